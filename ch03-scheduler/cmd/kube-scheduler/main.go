// Command kube-scheduler runs only chapter 3's scheduler (package
// scheduler), as its own process, against any apiserver a kubeconfig points
// at — Kubik's or upstream's. `make bench-scheduler` starts it next to
// upstream's kube-scheduler binary with the same flag names:
//
//	kube-scheduler --kubeconfig scheduler.kubeconfig --leader-elect=false \
//	    --kube-api-qps=10000 --kube-api-burst=10000
//
// --cpuprofile writes a Go CPU profile of the whole run (read it with
// `go tool pprof`), stopped when the process ends on SIGTERM or Ctrl-C.
//
// Upstream: cmd/kube-scheduler.
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

	"kubik/ch03-scheduler/scheduler"
)

func main() {
	var cfg scheduler.Config
	flag.StringVar(&cfg.Kubeconfig, "kubeconfig", "", "kubeconfig of the scheduler's identity (system:kube-scheduler)")
	flag.BoolVar(&cfg.LeaderElect, "leader-elect", true, "compete for the Lease kube-system/kube-scheduler before scheduling")
	flag.Float64Var(&cfg.KubeAPIQPS, "kube-api-qps", 50, "QPS to use while talking with kubernetes apiserver.")
	flag.IntVar(&cfg.KubeAPIBurst, "kube-api-burst", 100, "Burst to use while talking with kubernetes apiserver.")
	logLevel := flag.String("log-level", "info", "debug, info, warn or error")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()

	if err := run(cfg, *logLevel, *cpuprofile); err != nil {
		fmt.Fprintln(os.Stderr, "kube-scheduler:", err)
		os.Exit(1)
	}
}

func run(cfg scheduler.Config, logLevel, cpuprofile string) error {
	if cfg.Kubeconfig == "" {
		return errors.New("--kubeconfig is required")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

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
	cfg.Logger = log
	return scheduler.Run(ctx, cfg)
}
