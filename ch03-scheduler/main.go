// Chapter 3: the scheduler.
//
// Chapter 2's cluster (the apiserver on etcd) plus kube-scheduler, and
// --hollow-nodes simulated nodes for it to schedule onto; package cluster3
// starts them (chapter 4 reuses it).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"kubik/ch01-apiserver/app"
	"kubik/ch02-etcd-store/cluster"
	"kubik/ch03-scheduler/cluster3"
)

func main() {
	var opts app.Options
	var flags cluster.Flags
	flags.AddFlags(flag.CommandLine)
	leaderElect := flag.Bool("leader-elect", true, "kube-scheduler competes for the Lease kube-system/kube-scheduler before scheduling")
	hollowNodes := flag.Int("hollow-nodes", 3, "how many simulated nodes (hollow-node-1 ...) to run")
	app.Main(&opts, "cluster", func(ctx context.Context, log *slog.Logger) error {
		return run(ctx, &opts, flags, cluster3.Config{LeaderElect: *leaderElect, HollowNodes: *hollowNodes, NotReadyTaintStandIn: true}, log)
	})
}

func run(ctx context.Context, opts *app.Options, flags cluster.Flags, cfg cluster3.Config, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	c, err := cluster3.Start(ctx, opts, flags, cfg, log)
	if err != nil {
		cancel()
		return err
	}
	defer c.Stop()
	defer cancel() // first the components, then chapter 2's part
	c.PrintWelcome(os.Stdout, "Kubik chapter 3 (scheduler, hollow nodes)")
	fmt.Printf("nodes (SIMULATED, no containers run): %s\n\n  kubectl run web --image=nginx\n  kubectl get pods -o wide\n\n",
		strings.Join(c.NodeNames, ", "))
	return <-c.Err
}
