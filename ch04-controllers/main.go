// Chapter 4: the controllers.
//
// Chapter 3's cluster (the apiserver on etcd, kube-scheduler, hollow nodes)
// plus kube-controller-manager, identity system:kube-controller-manager,
// leader of the Lease kube-system/kube-controller-manager. Its controllers
// turn Deployments into ReplicaSets and ReplicaSets into pods, which the
// scheduler places and the hollow nodes "run":
//
//	kubectl create deployment web --image=nginx --replicas=3
//	kubectl rollout status deployment/web
//
// The wiring is package cluster4 (chapter 5 adds a real node to it).
// Chapter 3's stand-in for the node lifecycle controller (package
// notreadytaint) does not run: the nodelifecycle controller removes the
// not-ready taint from Ready nodes.
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
	"kubik/ch04-controllers/cluster4"
	"kubik/ch04-controllers/controllermanager"
)

func main() {
	var opts app.Options
	var flags cluster.Flags
	var cm controllermanager.Config
	flags.AddFlags(flag.CommandLine)
	cm.AddFlags(flag.CommandLine)
	leaderElect := flag.Bool("leader-elect", true, "kube-scheduler and kube-controller-manager compete for their Leases in kube-system before working")
	hollowNodes := flag.Int("hollow-nodes", 3, "how many simulated nodes (hollow-node-1 ...) to run")
	app.Main(&opts, "cluster", func(ctx context.Context, log *slog.Logger) error {
		cm.LeaderElect = *leaderElect
		return run(ctx, &opts, flags, cm, *hollowNodes, log)
	})
}

func run(ctx context.Context, opts *app.Options, flags cluster.Flags, cm controllermanager.Config, hollowNodes int, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	c, err := cluster4.Start(ctx, opts, flags, cluster4.Config{ControllerManager: cm, HollowNodes: hollowNodes}, log)
	if err != nil {
		cancel()
		return err
	}
	defer c.Stop()
	defer cancel() // first the components, then chapter 2's part

	c.PrintWelcome(os.Stdout, "Kubik chapter 4 (controllers)")
	fmt.Printf("controllers: %s\nnodes (SIMULATED, no containers run): %s\n\n  kubectl create deployment web --image=nginx --replicas=3\n  kubectl rollout status deployment/web\n\n",
		strings.Join(cluster4.ControllerNames(cm), ", "), strings.Join(c.NodeNames, ", "))
	return <-c.Err
}
