// Chapter 3: the scheduler.
//
// Chapter 2's cluster (the apiserver on etcd) plus kube-scheduler, and
// --hollow-nodes simulated nodes for it to schedule onto. Every component
// talks only to the apiserver, over HTTPS, with its own identity — even in
// one process:
//
//	kube-scheduler       system:kube-scheduler       watches pods and nodes, binds pods
//	hollow-node-N        system:node:hollow-node-N   registers its Node, renews its Lease,
//	                                                 reports its pods Running (SIMULATED kubelet)
//	node-lifecycle stand-in  system:serviceaccount:kube-system:node-controller
//	                                                 removes the not-ready taint from Ready nodes
//	                                                 (chapter 4's controller manager does it for real)
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch02-etcd-store/cluster"
	"kubik/ch03-scheduler/client"
	"kubik/ch03-scheduler/hollownode"
	"kubik/ch03-scheduler/notreadytaint"
	"kubik/ch03-scheduler/scheduler"
)

func main() {
	var opts app.Options
	var flags cluster.Flags
	flags.AddFlags(flag.CommandLine)
	leaderElect := flag.Bool("leader-elect", true, "kube-scheduler competes for the Lease kube-system/kube-scheduler before scheduling")
	hollowNodes := flag.Int("hollow-nodes", 3, "how many simulated nodes (hollow-node-1 ...) to run")
	app.Main(&opts, "cluster", func(ctx context.Context, log *slog.Logger) error {
		return run(ctx, &opts, flags, *leaderElect, *hollowNodes, log)
	})
}

func run(ctx context.Context, opts *app.Options, flags cluster.Flags, leaderElect bool, hollowNodes int, log *slog.Logger) error {
	// 1. Chapter 2: etcd, the watch cache, the apiserver.
	c, err := cluster.Start(ctx, opts, flags, log)
	if err != nil {
		return err
	}
	defer c.Stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 2+hollowNodes)
	go func() { errc <- <-c.Err }()

	// kubeconfig issues a client certificate for id: each component's own.
	kubeconfig := func(file string, id pki.Identity) (string, error) {
		path := filepath.Join(opts.DataDir, file+".kubeconfig")
		return path, c.CA.WriteIdentityKubeconfig(path, c.URL, id)
	}

	// 2. The scheduler.
	schedKC, err := kubeconfig("kube-scheduler", pki.Scheduler)
	if err != nil {
		return err
	}
	go func() {
		errc <- scheduler.Run(ctx, scheduler.Config{Kubeconfig: schedKC, LeaderElect: leaderElect, Logger: log})
	}()

	// 3. Stand-in for chapter 4's node lifecycle controller (package notreadytaint).
	admin, err := client.New(c.AdminKubeconfig, "kubik-ch03-bootstrap")
	if err != nil {
		return err
	}
	if err := notreadytaint.EnsureRBAC(ctx, admin); err != nil {
		return err
	}
	nlcKC, err := kubeconfig("node-controller", notreadytaint.Identity)
	if err != nil {
		return err
	}
	nlc, err := client.New(nlcKC, "kube-controller-manager/node-lifecycle-standin")
	if err != nil {
		return err
	}
	go notreadytaint.Run(ctx, nlc, log)

	// 4. Hollow nodes: simulated kubelets, each with its own identity.
	var names []string
	for i := 1; i <= hollowNodes; i++ {
		name := fmt.Sprintf("hollow-node-%d", i)
		kc, err := kubeconfig(name, pki.Node(name))
		if err != nil {
			return err
		}
		cfg := hollownode.Config{Name: name, Kubeconfig: kc, CPU: "4", Memory: "8Gi", Pods: 110,
			PodCIDR: fmt.Sprintf("10.244.%d.0/24", i), InternalIP: fmt.Sprintf("192.0.2.%d", i), Logger: log}
		go func() { errc <- hollownode.Run(ctx, cfg) }()
		names = append(names, name)
	}

	c.PrintWelcome(os.Stdout, "Kubik chapter 3 (scheduler, hollow nodes)")
	fmt.Printf("nodes (SIMULATED, no containers run): %s\n\n  kubectl run web --image=nginx\n  kubectl get pods -o wide\n\n",
		strings.Join(names, ", "))
	return <-errc
}
