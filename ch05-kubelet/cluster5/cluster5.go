// Package cluster5 starts chapter 5's cluster: chapter 4's (the apiserver
// on etcd, kube-scheduler, kube-controller-manager; hollow nodes only when
// asked) plus one REAL node, this machine (package node5): its own
// containerd and its kubelet, identity system:node:<hostname>, which runs
// the pods bound to it as containers. ch05-kubelet/main.go runs it as is.
package cluster5

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch04-controllers/cluster4"
	"kubik/ch05-kubelet/images"
	"kubik/ch05-kubelet/node5"
)

// Config is chapter 4's configuration plus the node's.
type Config struct {
	cluster4.Config
	Node node5.Config // the kubelet's flags and the node's pod network
	// LocalNode runs this machine as the node. Chapter 6 turns it off: its
	// nodes are machines of their own, each running a node5 of its own.
	LocalNode bool
}

// NewConfig is the configuration with chapter 5's defaults: chapter 4's,
// without hollow nodes (--hollow-nodes=N brings them back).
func NewConfig() *Config {
	c := &Config{Config: *cluster4.NewConfig(), Node: *node5.NewConfig(), LocalNode: true}
	c.HollowNodes = 0
	return c
}

// AddFlags registers chapter 4's flags and the kubelet's.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	c.Config.AddFlags(fs)
	c.Node.AddFlags(fs)
}

// Cluster is a running chapter 5 cluster.
type Cluster struct {
	*cluster4.Cluster
	Node       *node5.Node
	components *app.Group
}

// Stop stops the kubelet, removes its pods and stops its containerd, then
// stops chapter 4's part.
func (c *Cluster) Stop() {
	c.components.Stop()
	if c.Node != nil {
		c.Node.Stop()
	}
	c.Cluster.Stop()
}

// Welcome prints chapter 5's banner.
func (c *Cluster) Welcome(w io.Writer) {
	c.PrintWelcome(w, "Kubik chapter 5 (kubelet)")
	nodes := append([]string{c.Node.Name + " (REAL: containerd " + c.Node.Endpoint + ")"}, c.NodeNames...)
	fmt.Fprintf(w, "nodes: %s\n\n  kubectl run web --image=%s\n  kubectl get pods -o wide\n\n", strings.Join(nodes, ", "), images.Demo)
}

// Start checks that this machine can run containers, runs chapter 4's
// cluster, then the node.
func Start(ctx context.Context, cfg *Config, log *slog.Logger) (_ *Cluster, err error) {
	node := cfg.Node
	if cfg.LocalNode {
		if err := node.Resolve(cfg.DataDir); err != nil {
			return nil, err
		}
	}
	c4, err := cluster4.Start(ctx, &cfg.Config, log)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Cluster: c4, components: app.NewGroup(context.WithoutCancel(ctx), c4.Errors())}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	if !cfg.LocalNode {
		return c, nil
	}
	kc, err := c.Kubeconfig("kubelet", pki.Node(node.HostnameOverride))
	if err != nil {
		return nil, err
	}
	if c.Node, err = node5.Start(c.components.Context(), &node, kc, c.CA, log); err != nil {
		return nil, err
	}
	c.components.Go(func(context.Context) error { return c.Node.Wait() })
	return c, nil
}
