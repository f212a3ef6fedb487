// Package component is what the main functions of the components that run
// as processes of their own share (kube-scheduler here, chapter 4's
// kube-controller-manager): the --kubeconfig, --log-level and --cpuprofile
// flags, a logger, and a context that ends on SIGTERM or Ctrl-C.
package component

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"kubik/ch01-apiserver/app"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

// Flags are the flags every component has.
type Flags struct {
	Kubeconfig string
	LogLevel   string
	CPUProfile string
}

// AddFlags registers them on fs; identity names who the kubeconfig is for
// ("system:kube-scheduler").
func (f *Flags) AddFlags(fs *flag.FlagSet, identity string) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "kubeconfig of the component's identity ("+identity+")")
	fs.StringVar(&f.LogLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to this file (stopped when the process ends on SIGTERM or Ctrl-C)")
}

// Main runs run until SIGTERM or Ctrl-C; an error is printed as
// "<name>: <error>" and the process exits 1.
func Main(name string, f Flags, run func(ctx context.Context, log *slog.Logger) error) {
	if err := runComponent(f, run); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

func runComponent(f Flags, run func(ctx context.Context, log *slog.Logger) error) error {
	if f.Kubeconfig == "" {
		return errors.New("--kubeconfig is required")
	}
	log, err := app.NewLogger(f.LogLevel, os.Stderr)
	if err != nil {
		return err
	}
	if f.CPUProfile != "" {
		out, err := os.Create(f.CPUProfile)
		if err != nil {
			return err
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, log)
}
