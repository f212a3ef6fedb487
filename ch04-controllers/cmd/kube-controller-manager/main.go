// Command kube-controller-manager runs only chapter 4's controller manager
// (package controllermanager), as its own process, against any apiserver a
// kubeconfig points at — Kubik's or upstream's. `make bench-controllers`
// starts it next to upstream's kube-controller-manager binary with the same
// flag names:
//
//	kube-controller-manager --kubeconfig controller-manager.kubeconfig \
//	    --controllers=deployment,replicaset --leader-elect=false \
//	    --kube-api-qps=10000 --kube-api-burst=10000
//
// --controllers, --kube-api-qps, --kube-api-burst, --concurrent-*-syncs and
// --node-monitor-* are controllermanager.Config's flags (upstream's names
// and defaults). --cpuprofile writes a Go CPU profile of the whole run
// (read it with `go tool pprof`), stopped when the process ends on SIGTERM
// or Ctrl-C.
//
// Upstream: cmd/kube-controller-manager.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"kubik/ch04-controllers/controllermanager"
)

func main() {
	var cfg controllermanager.Config
	cfg.AddFlags(flag.CommandLine)
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the controller manager's identity (system:kube-controller-manager)")
	leaderElect := flag.Bool("leader-elect", true, "compete for the Lease kube-system/kube-controller-manager before running the controllers")
	logLevel := flag.String("log-level", "info", "debug, info, warn or error")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()

	cfg.Kubeconfig, cfg.LeaderElect = *kubeconfig, *leaderElect
	if err := run(cfg, *logLevel, *cpuprofile); err != nil {
		fmt.Fprintln(os.Stderr, "kube-controller-manager:", err)
		os.Exit(1)
	}
}

func run(cfg controllermanager.Config, logLevel, cpuprofile string) error {
	if cfg.Kubeconfig == "" {
		return errors.New("--kubeconfig is required")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return controllermanager.Run(ctx, cfg)
}
