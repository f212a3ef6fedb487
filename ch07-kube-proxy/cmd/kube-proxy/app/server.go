// Package app is kube-proxy's server: flags with upstream's names and
// defaults, the apiserver client and informers, the health and metrics
// servers, and the proxier of the chosen mode.
//
// Upstream: k8s.io/kubernetes/cmd/kube-proxy/app.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch07-kube-proxy/proxy"
	"kubik/ch07-kube-proxy/proxy/config"
	"kubik/ch07-kube-proxy/proxy/healthcheck"
	"kubik/ch07-kube-proxy/proxy/iptables"
	"kubik/ch07-kube-proxy/proxy/metrics"
	"kubik/ch07-kube-proxy/proxy/nftables"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

// Options are kube-proxy's flags.
type Options struct {
	Kubeconfig         string
	ProxyMode          string
	ClusterCIDR        string
	NodePortAddresses  []string
	MasqueradeAll      bool
	MasqueradeBit      int
	LocalhostNodePorts bool
	SyncPeriod         time.Duration
	MinSyncPeriod      time.Duration
	HostnameOverride   string
	BindAddress        string
	HealthzBindAddress string
	MetricsBindAddress string
}

// ParseFlags parses args with upstream's flag names and defaults.
func ParseFlags(args []string) (*Options, error) {
	o := &Options{}
	fs := flag.NewFlagSet("kube-proxy", flag.ContinueOnError)
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "Path to kubeconfig file with authorization information (the master location can be overridden by the master flag).")
	fs.StringVar(&o.ProxyMode, "proxy-mode", "", "Which proxy mode to use: on Linux this can be 'iptables' (default) or 'nftables'.")
	fs.StringVar(&o.ClusterCIDR, "cluster-cidr", "", "The CIDR range of the pods in the cluster. Traffic from outside it to a ClusterIP is masqueraded.")
	nodePortAddresses := fs.String("nodeport-addresses", "", "A list of CIDR ranges that contain valid node IPs, or the single string 'primary'. If unset, NodePort connections are accepted on all local IPs (iptables mode) or on the node's primary IPs (nftables mode).")
	fs.BoolVar(&o.MasqueradeAll, "masquerade-all", false, "SNAT all traffic sent via Service cluster IPs.")
	fs.IntVar(&o.MasqueradeBit, "iptables-masquerade-bit", 14, "The bit of the fwmark space to mark packets requiring SNAT with. Must be within the range [0, 31].")
	fs.BoolVar(&o.LocalhostNodePorts, "iptables-localhost-nodeports", true, "If false, kube-proxy will disable the legacy behavior of allowing NodePort services to be accessed via localhost. (iptables mode, IPv4 only.)")
	fs.DurationVar(&o.SyncPeriod, "iptables-sync-period", 30*time.Second, "An interval (e.g. '5s', '1m', '2h22m') indicating how frequently various re-synchronizing and cleanup operations are performed. Must be greater than 0.")
	fs.DurationVar(&o.MinSyncPeriod, "iptables-min-sync-period", time.Second, "The minimum period between iptables rule resyncs (e.g. '5s', '1m', '2h22m'). A value of 0 means every Service or EndpointSlice change will result in an immediate iptables resync.")
	fs.StringVar(&o.HostnameOverride, "hostname-override", "", "If non-empty, will be used as the name of the Node that kube-proxy is running on.")
	fs.StringVar(&o.BindAddress, "bind-address", "0.0.0.0", "Overrides kube-proxy's idea of what its node's primary IP is.")
	fs.StringVar(&o.HealthzBindAddress, "healthz-bind-address", "0.0.0.0:10256", "The IP address and port for the health check server to serve on. Set empty to disable.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", "127.0.0.1:10249", "The IP address and port for the metrics server to serve on. Set empty to disable.")
	fs.Int("v", 0, "Log verbosity (ignored).")
	// Accepted for compatibility; the conntrack table limits are global and
	// read-only inside a node's network namespace here.
	fs.Int("conntrack-max-per-core", 32768, "Maximum number of NAT connections to track per CPU core (ignored).")
	fs.Int("conntrack-min", 131072, "Minimum number of conntrack entries to allocate (ignored).")
	fs.Duration("conntrack-tcp-timeout-established", 24*time.Hour, "Idle timeout for established TCP connections (ignored).")
	fs.Duration("conntrack-tcp-timeout-close-wait", time.Hour, "NAT timeout for TCP connections in the CLOSE_WAIT state (ignored).")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *nodePortAddresses != "" {
		for _, s := range strings.Split(*nodePortAddresses, ",") {
			if s = strings.TrimSpace(s); s != "" {
				o.NodePortAddresses = append(o.NodePortAddresses, s)
			}
		}
	}
	if o.ProxyMode == "" {
		o.ProxyMode = "iptables"
	}
	if o.ProxyMode != "iptables" && o.ProxyMode != "nftables" {
		return nil, fmt.Errorf("invalid --proxy-mode %q: must be iptables or nftables (ipvs needs kernel support this machine lacks)", o.ProxyMode)
	}
	// nftables mode defaults to the primary node IPs, as upstream.
	if o.ProxyMode == "nftables" && len(o.NodePortAddresses) == 0 {
		o.NodePortAddresses = []string{"primary"}
	}
	for _, s := range o.NodePortAddresses {
		if s == "primary" && len(o.NodePortAddresses) == 1 {
			continue
		}
		if _, err := proxyutil.ParseCIDRSloppy(s); err != nil {
			return nil, fmt.Errorf("invalid --nodeport-addresses %q: %v", s, err)
		}
	}
	if o.ClusterCIDR != "" {
		if _, err := proxyutil.ParseCIDRSloppy(o.ClusterCIDR); err != nil {
			return nil, fmt.Errorf("invalid --cluster-cidr %q: %v", o.ClusterCIDR, err)
		}
	}
	if o.SyncPeriod <= 0 || o.MinSyncPeriod < 0 || o.MasqueradeBit < 0 || o.MasqueradeBit > 31 {
		return nil, errors.New("--iptables-sync-period must be > 0, --iptables-min-sync-period >= 0, --iptables-masquerade-bit in [0, 31]")
	}
	return o, nil
}

// nodeName is --hostname-override or the host name, lower-cased.
func nodeName(override string) (string, error) {
	name := override
	if name == "" {
		h, err := os.Hostname()
		if err != nil {
			return "", err
		}
		name = h
	}
	return strings.ToLower(strings.TrimSpace(name)), nil
}

// nodeIPFromNode is the Node's first InternalIP (else ExternalIP), IPv4.
func nodeIPFromNode(n *corev1.Node) net.IP {
	for _, t := range []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeExternalIP} {
		for _, a := range n.Status.Addresses {
			if a.Type == t {
				if ip := proxyutil.ParseIPSloppy(a.Address); ip != nil && ip.To4() != nil {
					return ip
				}
			}
		}
	}
	return nil
}

// Run runs kube-proxy until ctx ends. It returns once everything it
// opened is closed again — the health, metrics and health-check node port
// listeners — so that it can be run again in the same process (node7
// restarts it on SIGUSR1).
func Run(ctx context.Context, o *Options) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("component", "kube-proxy")
	slog.SetDefault(log)

	name, err := nodeName(o.HostnameOverride)
	if err != nil {
		return err
	}
	c, err := rest.New(o.Kubeconfig, "kube-proxy/"+name)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	informers := config.NewInformers(c, name, log)

	// The node's primary IP: --bind-address, else the Node's address (the
	// Node informer runs ahead of the others for it), else 127.0.0.1.
	informers.RunNode(ctx)
	var nodeIP net.IP
	if ip := proxyutil.ParseIPSloppy(o.BindAddress); ip != nil && !ip.IsUnspecified() {
		nodeIP = ip
	} else {
		deadline := time.Now().Add(30 * time.Second)
		for nodeIP == nil && time.Now().Before(deadline) && ctx.Err() == nil {
			if n := informers.CurrentNode(); n != nil {
				nodeIP = nodeIPFromNode(n)
			}
			if nodeIP == nil {
				time.Sleep(200 * time.Millisecond)
			}
		}
		if nodeIP == nil {
			log.Info("Can't determine this node's IP, assuming loopback; if this is incorrect, please set the --bind-address flag", "node", name)
			nodeIP = net.IPv4(127, 0, 0, 1)
		}
	}
	nodePortAddresses := o.NodePortAddresses
	if len(nodePortAddresses) == 1 && nodePortAddresses[0] == "primary" {
		nodePortAddresses = []string{nodeIP.String() + "/32"}
	}
	log.Info("Starting kube-proxy", "mode", o.ProxyMode, "node", name, "nodeIP", nodeIP.String(), "nodePortAddresses", nodePortAddresses)

	var servers sync.WaitGroup
	defer servers.Wait()
	var hz *healthcheck.ProxyHealthServer
	if o.HealthzBindAddress != "" {
		hz = healthcheck.NewProxyHealthServer(o.HealthzBindAddress, 2*o.SyncPeriod, informers.CurrentNode)
		servers.Go(func() {
			if err := hz.Run(ctx); err != nil {
				log.Error("Healthz server failed", "err", err)
			}
		})
	}
	if o.MetricsBindAddress != "" {
		servers.Go(func() { serveMetrics(ctx, o.MetricsBindAddress, log) })
	}
	// The health-check node ports of externalTrafficPolicy Local Services.
	// Closed on the way out: every port it serves is listed again by the
	// next run's first sync.
	npa := proxyutil.NewNodePortAddresses(corev1.IPv4Protocol, nodePortAddresses)
	var hcs healthcheck.ServiceHealthServer
	if hz != nil {
		hcs = healthcheck.NewServiceHealthServer(name, npa, hz, log)
	} else {
		hcs = healthcheck.NewServiceHealthServer(name, npa, nil, log)
	}
	defer hcs.SyncServices(nil)

	detector := proxyutil.NewNoOpLocalDetector()
	if o.ClusterCIDR != "" {
		detector = proxyutil.NewDetectLocalByCIDR(o.ClusterCIDR)
	} else {
		log.Info("Detect-local-mode set to ClusterCIDR, but no cluster CIDR specified for primary IP family")
	}

	var p proxy.Provider
	switch o.ProxyMode {
	case "iptables":
		ipt, err := iptables.New()
		if err != nil {
			return err
		}
		p, err = iptables.NewProxier(iptables.Config{IPTables: ipt, SyncPeriod: o.SyncPeriod, MinSyncPeriod: o.MinSyncPeriod,
			MasqueradeAll: o.MasqueradeAll, LocalhostNodePorts: o.LocalhostNodePorts, MasqueradeBit: o.MasqueradeBit,
			LocalDetector: detector, NodeName: name, NodeIP: nodeIP, HealthzServer: hz, ServiceHealthServer: hcs,
			NodePortAddresses: nodePortAddresses, Logger: log})
		if err != nil {
			return err
		}
	case "nftables":
		p, err = nftables.NewProxier(nftables.Config{SyncPeriod: o.SyncPeriod, MinSyncPeriod: o.MinSyncPeriod,
			MasqueradeAll: o.MasqueradeAll, MasqueradeBit: o.MasqueradeBit,
			LocalDetector: detector, NodeName: name, NodeIP: nodeIP, HealthzServer: hz, ServiceHealthServer: hcs,
			NodePortAddresses: nodePortAddresses, Logger: log})
		if err != nil {
			return err
		}
	}

	informers.Run(ctx, p)
	p.SyncLoop(ctx.Done())
	return nil
}

func serveMetrics(ctx context.Context, addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		metrics.WriteText(w)
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	l, err := net.Listen("tcp", addr)
	if err != nil {
		log.Error("Failed to start metrics server", "address", addr, "err", err)
		return
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	_ = srv.Serve(l)
}
