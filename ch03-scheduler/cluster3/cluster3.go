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
// ch03-scheduler/main.go runs it as is; chapter 4's cluster4 embeds its
// Config and Cluster, runs it without the stand-in and adds
// kube-controller-manager.
package cluster3

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch02-etcd-store/cluster2"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/leaderelection"
	"kubik/ch03-scheduler/hollownode"
	"kubik/ch03-scheduler/notreadytaint"
	"kubik/ch03-scheduler/scheduler"
)

// Config is chapter 2's configuration plus what chapter 3 adds.
type Config struct {
	cluster2.Config
	// LeaderElect: the control plane's components (the scheduler here,
	// kube-controller-manager from chapter 4 on) compete for their Leases
	// in kube-system before working, as upstream's --leader-elect.
	LeaderElect bool
	HollowNodes int // hollow-node-1 ... hollow-node-N
	// NotReadyTaintStandIn runs package notreadytaint; chapter 4 turns it
	// off: its node lifecycle controller removes the taint.
	NotReadyTaintStandIn bool
	// HollowNodeKubeletAPI gives each hollow node a minimal kubelet API on
	// its loopback address, with SIMULATED resource metrics (chapter 5
	// turns it on for its metrics server; see hollownode.KubeletAPI).
	HollowNodeKubeletAPI bool
}

// NewConfig is the configuration with chapter 3's defaults: 3 hollow nodes
// and the stand-in for chapter 4's node lifecycle controller.
func NewConfig() *Config {
	return &Config{Config: *cluster2.NewConfig(), HollowNodes: 3, NotReadyTaintStandIn: true}
}

// AddFlags registers chapter 2's flags and chapter 3's.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	c.Config.AddFlags(fs)
	fs.BoolVar(&c.LeaderElect, "leader-elect", true, "the control plane's components (kube-scheduler; kube-controller-manager from chapter 4 on) compete for their Leases in kube-system before working")
	fs.IntVar(&c.HollowNodes, "hollow-nodes", c.HollowNodes, "how many simulated nodes (hollow-node-1 ...) to run")
}

// Cluster is a running chapter 3 cluster.
type Cluster struct {
	*cluster2.Cluster
	NodeNames  []string // the hollow nodes
	components *app.Group
}

// Stop stops the scheduler, the hollow nodes and the stand-in, waits for
// them, then stops chapter 2's part.
func (c *Cluster) Stop() {
	c.components.Stop()
	c.Cluster.Stop()
}

// Welcome prints chapter 3's banner.
func (c *Cluster) Welcome(w io.Writer) {
	c.PrintWelcome(w, "Kubik chapter 3 (scheduler, hollow nodes)")
	fmt.Fprintf(w, "nodes (SIMULATED, no containers run): %s\n\n  kubectl run web --image=nginx\n  kubectl get pods -o wide\n\n",
		strings.Join(c.NodeNames, ", "))
}

// Start runs chapter 2's control plane, then the scheduler, the hollow
// nodes and (unless chapter 4 turns it off) the node lifecycle stand-in.
func Start(ctx context.Context, cfg *Config, log *slog.Logger) (_ *Cluster, err error) {
	// 1. Chapter 2: etcd, the watch cache, the apiserver.
	c2, err := cluster2.Start(ctx, &cfg.Config, log)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Cluster: c2, components: app.NewGroup(context.WithoutCancel(ctx), c2.Errors())}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()

	// 2. The scheduler.
	schedKC, err := c.Kubeconfig("kube-scheduler", pki.Scheduler)
	if err != nil {
		return nil, err
	}
	c.components.GoRestarted(log.With("component", "kube-scheduler"), leaderelection.Lost, func(ctx context.Context) error {
		return scheduler.Run(ctx, scheduler.Config{Kubeconfig: schedKC, LeaderElect: cfg.LeaderElect, Logger: log})
	})

	// 3. Stand-in for chapter 4's node lifecycle controller (package notreadytaint).
	if cfg.NotReadyTaintStandIn {
		if err := startNotReadyTaint(c, log); err != nil {
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
		if cfg.HollowNodeKubeletAPI {
			if hc.KubeletAPI, err = hollowKubeletAPI(c.CA, name, hc.InternalIP); err != nil {
				return nil, err
			}
		}
		c.components.Go(func(ctx context.Context) error { return hollownode.Run(ctx, hc) })
		c.NodeNames = append(c.NodeNames, name)
	}
	return c, nil
}

func startNotReadyTaint(c *Cluster, log *slog.Logger) error {
	admin, err := rest.New(c.AdminKubeconfig, "kubik-ch03-bootstrap")
	if err != nil {
		return err
	}
	if err := notreadytaint.EnsureRBAC(c.components.Context(), admin); err != nil {
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
	c.components.Go(func(ctx context.Context) error { notreadytaint.Run(ctx, nlc, log); return nil })
	return nil
}

// hollowKubeletAPI is a hollow node's kubelet API: a serving certificate
// of the cluster CA for its name and address, and the cluster CA for its
// clients.
func hollowKubeletAPI(ca *pki.CA, name, ip string) (*hollownode.KubeletAPI, error) {
	if ca == nil {
		return nil, fmt.Errorf("hollow node kubelet API: no cluster CA")
	}
	certPEM, keyPEM, err := ca.IssueServingCert(name, []string{name, ip})
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	return &hollownode.KubeletAPI{ServingCert: cert, ClientCA: ca.CertPool()}, nil
}
