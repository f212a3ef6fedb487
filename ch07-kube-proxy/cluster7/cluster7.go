// Package cluster7 starts chapter 7's cluster: chapter 6's (the control
// plane and the machines with their pod network) with kube-proxy on every
// machine (package node7), and the cluster's DNS running the way CoreDNS
// does — a Deployment of our DNS server in kube-system behind the Service
// kube-dns at 10.96.0.10, reaching the apiserver through the kubernetes
// Service with its own ServiceAccount token: the first client that lives
// inside the cluster. The kubelets point pods at it (--cluster-dns,
// --cluster-domain). Then the ingress controller (package ingress): a
// Deployment in ingress-kubik behind node ports 30080 and 30443, with the
// default IngressClass kubik.
package cluster7

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch06-cni/cluster6"
	"kubik/ch06-cni/node6"
	"kubik/ch07-kube-proxy/cmd/kube-proxy/app"
	"kubik/ch07-kube-proxy/node7"
)

// Config is chapter 6's configuration plus kube-proxy's and the DNS's.
type Config struct {
	cluster6.Config
	ProxyMode string // --proxy-mode: iptables (upstream's default) or nftables
	// DNSReplicas is the DNS Deployment's size (CoreDNS's: 2); 0: no DNS.
	DNSReplicas int
	// IngressReplicas is the ingress controller Deployment's size; 0: no
	// ingress controller.
	IngressReplicas int
}

// The cluster DNS's address and domain, as kubeadm's defaults.
const (
	ClusterDNS    = "10.96.0.10"
	ClusterDomain = "cluster.local"
)

// NewConfig is the configuration with chapter 7's defaults: chapter 6's,
// kube-proxy in iptables mode, two DNS replicas, one ingress controller,
// and kubelets that give
// pods the cluster DNS.
func NewConfig() *Config {
	c := &Config{Config: *cluster6.NewConfig(), ProxyMode: "iptables", DNSReplicas: 2, IngressReplicas: 1}
	c.Node.ClusterDNS, c.Node.ClusterDomain = ClusterDNS, ClusterDomain
	c.NodeConfig = c.nodeConfig
	return c
}

// AddFlags registers chapter 6's flags and chapter 7's.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	c.Config.AddFlags(fs)
	fs.StringVar(&c.ProxyMode, "proxy-mode", c.ProxyMode, "kube-proxy's mode on every node: iptables or nftables (ipvs needs kernel support this machine lacks)")
	fs.IntVar(&c.DNSReplicas, "dns-replicas", c.DNSReplicas, "replicas of the cluster DNS Deployment kube-system/coredns (0: no cluster DNS)")
	fs.IntVar(&c.IngressReplicas, "ingress-replicas", c.IngressReplicas, "replicas of the ingress controller Deployment ingress-kubik/ingress-kubik-controller (0: none)")
}

// nodeConfig is a machine's chapter 7 node config: chapter 6's plus
// kube-proxy with an identity of its own.
func (c *Config) nodeConfig(cl *cluster6.Cluster, m *cluster6.Machine, n *node6.Config) (any, error) {
	kc := filepath.Join(m.Dir, "kube-proxy.kubeconfig")
	if err := cl.CA.WriteIdentityKubeconfig(kc, m.Server, pki.KubeProxy); err != nil {
		return nil, err
	}
	// kube-proxy's own flags, as its DaemonSet would pass them.
	proxy, err := app.ParseFlags([]string{"--kubeconfig=" + kc, "--proxy-mode=" + c.ProxyMode,
		"--cluster-cidr=" + c.NodeIPAM.ClusterCIDR, "--hostname-override=" + m.Name, "--bind-address=" + m.IP.String()})
	if err != nil {
		return nil, err
	}
	return &node7.Config{Config: *n, Proxy: *proxy, ServiceCIDR: c.ServiceClusterIPRange, Interface: "eth0"}, nil
}

// Cluster is a running chapter 7 cluster.
type Cluster struct {
	*cluster6.Cluster
	ingress bool // the ingress controller was deployed
}

// Welcome prints chapter 7's banner.
func (c *Cluster) Welcome(w io.Writer) {
	c.PrintWelcome(w, "Kubik chapter 7 (Services: kube-proxy, cluster DNS)")
	var nodes []string
	for _, m := range c.Machines {
		nodes = append(nodes, fmt.Sprintf("%s (%s)", m.Name, m.IP))
	}
	fmt.Fprintf(w, "nodes: %s; cluster DNS: %s (kube-system/kube-dns)\n", strings.Join(nodes, ", "), ClusterDNS)
	if c.ingress {
		fmt.Fprintf(w, "ingress controller: ingress-kubik/ingress-kubik-controller, IngressClass kubik (default), node ports 30080 (http) and 30443 (https)\n")
	}
	fmt.Fprintf(w, "\n  kubectl create deployment web --image=kubik.local/demo:1.0 --replicas=3\n  kubectl expose deployment web --port=80 --target-port=8080\n  kubectl run client --image=busybox:1.35 --restart=Never -it --rm -- wget -qO- http://web\n\n")
}

// Start runs chapter 6's cluster with chapter 7's machines, then the
// cluster DNS and the ingress controller.
func Start(ctx context.Context, cfg *Config, log *slog.Logger) (_ *Cluster, err error) {
	c6, err := cluster6.Start(ctx, &cfg.Config, log)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Cluster: c6, ingress: cfg.IngressReplicas > 0}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	if cfg.DNSReplicas == 0 && cfg.IngressReplicas == 0 {
		return c, nil
	}
	admin, err := rest.New(c.AdminKubeconfig, "kubik-ch07-addons")
	if err != nil {
		return nil, err
	}
	if cfg.DNSReplicas > 0 {
		if err := EnsureDNS(ctx, admin, cfg.DNSReplicas); err != nil {
			return nil, fmt.Errorf("cluster DNS: %w", err)
		}
	}
	if cfg.IngressReplicas > 0 {
		if err := EnsureIngress(ctx, admin, cfg.IngressReplicas); err != nil {
			return nil, fmt.Errorf("ingress controller: %w", err)
		}
	}
	return c, nil
}
