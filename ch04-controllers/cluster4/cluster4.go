// Package cluster4 starts chapter 4's cluster: chapter 3's (the apiserver on
// etcd, kube-scheduler, hollow nodes) without its node-lifecycle stand-in,
// plus kube-controller-manager with its own identity
// system:kube-controller-manager. ch04-controllers/main.go runs it as is;
// chapter 5's main.go adds a real node.
package cluster4

import (
	"context"
	"log/slog"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch02-etcd-store/cluster"
	"kubik/ch03-scheduler/cluster3"
	"kubik/ch04-controllers/controllermanager"
)

// Config is what chapter 4 adds to chapter 2's flags.
type Config struct {
	ControllerManager controllermanager.Config // its LeaderElect applies to the scheduler too
	HollowNodes       int
}

// Start runs the cluster until ctx ends; the caller calls Stop after ctx
// ended (first the components, then chapter 2's part) and waits on Err.
func Start(ctx context.Context, opts *app.Options, flags cluster.Flags, cfg Config, log *slog.Logger) (*cluster3.Cluster, error) {
	cm := cfg.ControllerManager
	if err := cm.Validate(); err != nil {
		return nil, err
	}
	// With a garbage collector running, DELETE with propagationPolicy
	// Orphan or Foreground gets the finalizer the collector removes
	// (upstream: kube-apiserver --enable-garbage-collector).
	for _, d := range cm.Enabled() {
		if d.Name == "garbagecollector" {
			opts.EnableGarbageCollector = true
		}
	}
	c, err := cluster3.Start(ctx, opts, flags, cluster3.Config{LeaderElect: cm.LeaderElect, HollowNodes: cfg.HollowNodes,
		NotReadyTaintStandIn: false}, log)
	if err != nil {
		return nil, err
	}
	kc, err := c.Kubeconfig("kube-controller-manager", pki.ControllerManager)
	if err != nil {
		c.Stop()
		return nil, err
	}
	cm.Kubeconfig, cm.Logger = kc, log
	go func() { c.Err <- controllermanager.Run(ctx, cm) }()
	return c, nil
}

// ControllerNames lists the enabled controllers, for the welcome text.
func ControllerNames(cm controllermanager.Config) []string {
	var names []string
	for _, d := range cm.Enabled() {
		names = append(names, d.Name)
	}
	return names
}
