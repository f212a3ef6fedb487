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
	"flag"
	"log/slog"

	"kubik/ch03-scheduler/clientgo/component"
	"kubik/ch03-scheduler/scheduler"
)

func main() {
	var f component.Flags
	f.AddFlags(flag.CommandLine, "system:kube-scheduler")
	var cfg scheduler.Config
	flag.BoolVar(&cfg.LeaderElect, "leader-elect", true, "compete for the Lease kube-system/kube-scheduler before scheduling")
	flag.Float64Var(&cfg.KubeAPIQPS, "kube-api-qps", 50, "QPS to use while talking with kubernetes apiserver.")
	flag.IntVar(&cfg.KubeAPIBurst, "kube-api-burst", 100, "Burst to use while talking with kubernetes apiserver.")
	flag.Parse()

	component.Main("kube-scheduler", f, func(ctx context.Context, log *slog.Logger) error {
		cfg.Kubeconfig, cfg.Logger = f.Kubeconfig, log
		return scheduler.Run(ctx, cfg)
	})
}
