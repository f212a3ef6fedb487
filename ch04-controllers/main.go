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
	"kubik/ch01-apiserver/pki"
	"kubik/ch02-etcd-store/cluster"
	"kubik/ch03-scheduler/cluster3"
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
	if err := cm.Validate(); err != nil {
		return err
	}
	// With a garbage collector running, DELETE with propagationPolicy
	// Orphan or Foreground gets the finalizer the collector removes
	// (upstream: kube-apiserver --enable-garbage-collector).
	for _, d := range cm.Enabled() {
		if d.Name == "garbagecollector" {
			opts.EnableGarbageCollector = true
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	c, err := cluster3.Start(ctx, opts, flags, cluster3.Config{LeaderElect: cm.LeaderElect, HollowNodes: hollowNodes,
		NotReadyTaintStandIn: false}, log)
	if err != nil {
		cancel()
		return err
	}
	defer c.Stop()
	defer cancel() // first the components, then chapter 2's part

	kc, err := c.Kubeconfig("kube-controller-manager", pki.ControllerManager)
	if err != nil {
		return err
	}
	cm.Kubeconfig, cm.Logger = kc, log
	go func() { c.Err <- controllermanager.Run(ctx, cm) }()

	var names []string
	for _, d := range cm.Enabled() {
		names = append(names, d.Name)
	}
	c.PrintWelcome(os.Stdout, "Kubik chapter 4 (controllers)")
	fmt.Printf("controllers: %s\nnodes (SIMULATED, no containers run): %s\n\n  kubectl create deployment web --image=nginx --replicas=3\n  kubectl rollout status deployment/web\n\n",
		strings.Join(names, ", "), strings.Join(c.NodeNames, ", "))
	return <-c.Err
}
