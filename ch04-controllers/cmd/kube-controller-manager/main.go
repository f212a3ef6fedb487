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
	"flag"
	"log/slog"

	"kubik/ch03-scheduler/clientgo/component"
	"kubik/ch04-controllers/controllermanager"
)

func main() {
	var f component.Flags
	f.AddFlags(flag.CommandLine, "system:kube-controller-manager")
	var cfg controllermanager.Config
	cfg.AddFlags(flag.CommandLine)
	leaderElect := flag.Bool("leader-elect", true, "compete for the Lease kube-system/kube-controller-manager before running the controllers")
	flag.Parse()

	component.Main("kube-controller-manager", f, func(ctx context.Context, log *slog.Logger) error {
		cfg.Kubeconfig, cfg.LeaderElect, cfg.Logger = f.Kubeconfig, *leaderElect, log
		return controllermanager.Run(ctx, cfg)
	})
}
