// Package cluster5 starts chapter 5's cluster: chapter 4's (the apiserver
// on etcd, kube-scheduler, kube-controller-manager; hollow nodes only when
// asked) plus one REAL node, this machine (package node5): its own
// containerd and its kubelet, identity system:node:<hostname>, which runs
// the pods bound to it as containers. ch05-kubelet/main.go runs it as is.
package cluster5

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/cluster4"
	"kubik/ch05-kubelet/images"
	"kubik/ch05-kubelet/metricsserver"
	"kubik/ch05-kubelet/node5"
)

// Config is chapter 4's configuration plus the node's.
type Config struct {
	cluster4.Config
	Node node5.Config // the kubelet's flags and the node's pod network
	// LocalNode runs this machine as the node. Chapter 6 turns it off: its
	// nodes are machines of their own, each running a node5 of its own.
	LocalNode bool
	// MetricsServer runs the metrics server (--metrics-server) with
	// --metric-resolution; hollow nodes then serve simulated resource
	// metrics.
	MetricsServer    bool
	MetricResolution time.Duration
	// MetricsServerAddress is the IP the metrics server listens on
	// (default: the local node's IP; without a local node and without
	// it, the metrics server does not run).
	MetricsServerAddress string
}

// NewConfig is the configuration with chapter 5's defaults: chapter 4's,
// without hollow nodes (--hollow-nodes=N brings them back).
func NewConfig() *Config {
	c := &Config{Config: *cluster4.NewConfig(), Node: *node5.NewConfig(), LocalNode: true,
		MetricsServer: true, MetricResolution: metricsserver.DefaultMetricResolution}
	c.HollowNodes = 0
	return c
}

// AddFlags registers chapter 4's flags and the kubelet's.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	c.Config.AddFlags(fs)
	c.Node.AddFlags(fs)
	fs.BoolVar(&c.MetricsServer, "metrics-server", c.MetricsServer, "run the metrics server (metrics.k8s.io through the aggregation layer: kubectl top, the autoscaler's CPU and memory targets)")
	fs.DurationVar(&c.MetricResolution, "metric-resolution", c.MetricResolution, "how often the metrics server scrapes the kubelets (metrics-server's --metric-resolution)")
}

// Cluster is a running chapter 5 cluster.
type Cluster struct {
	*cluster4.Cluster
	Node *node5.Node
	// MetricsServer is where the metrics server listens ("": it does not run).
	MetricsServer string
	metricsAPI    bool // metrics.k8s.io is registered (APIService)
	components    *app.Group
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
	switch {
	case c.MetricsServer != "" && c.metricsAPI:
		fmt.Fprintf(w, "metrics-server: %s (after two scrapes)\n\n  kubectl top nodes\n  kubectl top pods -A\n\n", c.MetricsServer)
	case c.MetricsServer != "":
		fmt.Fprintf(w, "metrics-server: %s, not registered: a loopback address cannot be an EndpointSlice's (no kubectl top)\n\n", c.MetricsServer)
	}
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
	// The hollow nodes serve simulated usage for the metrics server.
	cfg.HollowNodeKubeletAPI = cfg.HollowNodeKubeletAPI || cfg.MetricsServer && (cfg.LocalNode || cfg.MetricsServerAddress != "")
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
		if cfg.MetricsServer && cfg.MetricsServerAddress != "" {
			if err := c.startMetricsServer(ctx, cfg.MetricsServerAddress, cfg.MetricResolution, log); err != nil {
				return nil, err
			}
		}
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
	if cfg.MetricsServer {
		ip := cfg.MetricsServerAddress
		if ip == "" {
			ip = node.NodeIP
		}
		if err := c.startMetricsServer(ctx, ip, cfg.MetricResolution, log); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// startMetricsServer runs the metrics server beside the control plane,
// listening on the node's IP (where a hostNetwork pod of it would listen),
// and registers it as the official manifest does (metricsserver.Install).
func (c *Cluster) startMetricsServer(ctx context.Context, ip string, resolution time.Duration, log *slog.Logger) error {
	if c.CA == nil || c.AdminKubeconfig == "" {
		log.Warn("metrics-server not started: it needs the cluster CA and the admin kubeconfig (--metrics-server=false)")
		return nil
	}
	kc, err := c.Kubeconfig("metrics-server", metricsserver.UserIdentity)
	if err != nil {
		return err
	}
	certPEM, keyPEM, err := c.CA.IssueServingCert(metricsserver.ServiceHost, metricsserver.ServingHosts(ip))
	if err != nil {
		return err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return err
	}
	// The official manifest's flags: the kubelets at their InternalIP and
	// status port; their serving certificates are the cluster CA's.
	ms, err := metricsserver.New(metricsserver.Config{Kubeconfig: kc, BindAddress: ip, ServingCert: cert,
		MetricResolution: resolution, KubeletPreferredAddressTypes: []string{"InternalIP", "ExternalIP", "Hostname"},
		KubeletUseNodeStatusPort: true, KubeletCA: c.CA.CertPool(), Logger: log})
	if err != nil {
		return err
	}
	admin, err := rest.New(c.AdminKubeconfig, "kubik-cluster5")
	if err != nil {
		return err
	}
	switch err := metricsserver.Install(ctx, admin, ms.Addr(), c.CA.CertPEM); {
	case errors.Is(err, metricsserver.ErrLoopback):
		log.Warn("metrics-server listens on a loopback address: no EndpointSlice and no APIService, so kubectl top cannot reach it (give --node-ip a non-loopback address)",
			"component", "metrics-server", "address", ms.Addr().String(), "reason", err)
	case err != nil:
		return err
	default:
		c.metricsAPI = true
	}
	c.MetricsServer = ms.Addr().String()
	c.components.Go(ms.Run)
	return nil
}
