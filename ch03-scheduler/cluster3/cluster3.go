// Package cluster3 starts chapter 3's cluster: chapter 2's control plane
// (the apiserver on etcd) plus kube-scheduler and --hollow-nodes simulated
// nodes. Every component talks only to the apiserver, over HTTPS, with its
// own identity — even in one process:
//
//	kube-scheduler       system:kube-scheduler       watches pods and nodes, binds pods
//	hollow-node-N        system:node:hollow-node-N   registers its Node, renews its Lease,
//	                                                 reports its pods Running (SIMULATED kubelet)
//	node-lifecycle stand-in  system:serviceaccount:kube-system:node-controller
//	                                                 removes the not-ready taint from Ready nodes
//	                                                 (chapter 4's controller manager does it for real)
//
// ch03-scheduler/main.go runs it as is; chapter 4's main.go runs it without
// the stand-in and adds kube-controller-manager.
package cluster3

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch02-etcd-store/cluster"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/hollownode"
	"kubik/ch03-scheduler/notreadytaint"
	"kubik/ch03-scheduler/scheduler"
)

// Config is what chapter 3 adds to chapter 2's flags.
type Config struct {
	LeaderElect bool // kube-scheduler competes for the Lease kube-system/kube-scheduler
	HollowNodes int  // hollow-node-1 ... hollow-node-N
	// NotReadyTaintStandIn runs package notreadytaint; chapter 4 turns it
	// off when its node lifecycle controller removes the taint.
	NotReadyTaintStandIn bool
}

// Cluster is a running chapter 3 cluster.
type Cluster struct {
	*cluster.Cluster
	// Err receives the first error of a component (the apiserver, the
	// scheduler, a hollow node); the caller usually returns it.
	Err       chan error
	NodeNames []string
	dataDir   string
}

// Kubeconfig issues a client certificate for id and writes a kubeconfig
// using it to --data-dir/<file>.kubeconfig: each component's own identity.
func (c *Cluster) Kubeconfig(file string, id pki.Identity) (string, error) {
	path := filepath.Join(c.dataDir, file+".kubeconfig")
	return path, c.CA.WriteIdentityKubeconfig(path, c.URL, id)
}

// Start runs the cluster until ctx ends; Stop releases chapter 2's part.
func Start(ctx context.Context, opts *app.Options, flags cluster.Flags, cfg Config, log *slog.Logger) (_ *Cluster, err error) {
	// 1. Chapter 2: etcd, the watch cache, the apiserver.
	c2, err := cluster.Start(ctx, opts, flags, log)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Cluster: c2, Err: make(chan error, 8+cfg.HollowNodes), dataDir: opts.DataDir}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	go func() { c.Err <- <-c2.Err }()

	// 2. The scheduler.
	schedKC, err := c.Kubeconfig("kube-scheduler", pki.Scheduler)
	if err != nil {
		return nil, err
	}
	go func() {
		c.Err <- scheduler.Run(ctx, scheduler.Config{Kubeconfig: schedKC, LeaderElect: cfg.LeaderElect, Logger: log})
	}()

	// 3. Stand-in for chapter 4's node lifecycle controller (package notreadytaint).
	if cfg.NotReadyTaintStandIn {
		if err := startNotReadyTaint(ctx, c, log); err != nil {
			return nil, err
		}
	}

	// 4. Hollow nodes: simulated kubelets, each with its own identity.
	for i := 1; i <= cfg.HollowNodes; i++ {
		name := fmt.Sprintf("hollow-node-%d", i)
		kc, err := c.Kubeconfig(name, pki.Node(name))
		if err != nil {
			return nil, err
		}
		hc := hollownode.Config{Name: name, Kubeconfig: kc, CPU: "4", Memory: "8Gi", Pods: 110,
			PodCIDR: fmt.Sprintf("10.244.%d.0/24", i), InternalIP: fmt.Sprintf("127.0.1.%d", i), Logger: log}
		go func() { c.Err <- hollownode.Run(ctx, hc) }()
		c.NodeNames = append(c.NodeNames, name)
	}
	return c, nil
}

func startNotReadyTaint(ctx context.Context, c *Cluster, log *slog.Logger) error {
	admin, err := rest.New(c.AdminKubeconfig, "kubik-ch03-bootstrap")
	if err != nil {
		return err
	}
	if err := notreadytaint.EnsureRBAC(ctx, admin); err != nil {
		return err
	}
	kc, err := c.Kubeconfig("node-controller", notreadytaint.Identity)
	if err != nil {
		return err
	}
	nlc, err := rest.New(kc, "kube-controller-manager/node-lifecycle-standin")
	if err != nil {
		return err
	}
	go notreadytaint.Run(ctx, nlc, log)
	return nil
}
