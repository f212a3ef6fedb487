// Command kube-dns is the cluster DNS server (package dns) as it runs in
// the kube-dns pods of kube-system: in a pod it finds the apiserver
// through the kubernetes Service and authenticates with its service
// account's projected token; with --kubeconfig it runs anywhere.
//
//	kube-dns --cluster-domain=cluster.local --dns-port=53
//
// It answers DNS over UDP and TCP on --dns-bind-address:--dns-port,
// /health on :8080, /ready on :8181 (200 once the Services,
// EndpointSlices and Namespaces are listed) and /metrics on :9153, the
// ports of CoreDNS in kubeadm's Deployment. On SIGTERM it goes on
// answering for --lameduck, so that the endpoint is gone from the Service
// before the server is.
//
// Upstream: CoreDNS (github.com/coredns/coredns) with kubeadm's Corefile.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch07-kube-proxy/dns"
)

type options struct {
	kubeconfig     string
	logLevel       string
	clusterDomain  string
	dnsBindAddress string
	dnsPort        int
	healthAddress  string
	readyAddress   string
	metricsAddress string
	serviceCIDR    string
	podCIDR        string
	ttl            uint
	lameduck       time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig to reach the apiserver with; empty: the in-cluster configuration (service account)")
	flag.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	flag.StringVar(&o.clusterDomain, "cluster-domain", dns.DefaultClusterDomain, "the zone of Services and pods")
	flag.StringVar(&o.dnsBindAddress, "dns-bind-address", "0.0.0.0", "address to answer DNS on (UDP and TCP)")
	flag.IntVar(&o.dnsPort, "dns-port", 53, "port to answer DNS on (UDP and TCP)")
	flag.StringVar(&o.healthAddress, "health-bind-address", ":8080", "address of /health (liveness)")
	flag.StringVar(&o.readyAddress, "ready-bind-address", ":8181", "address of /ready (readiness)")
	flag.StringVar(&o.metricsAddress, "metrics-bind-address", ":9153", "address of /metrics; empty: none")
	flag.StringVar(&o.serviceCIDR, "service-cluster-ip-range", "10.96.0.0/12", "Service range, whose PTR records are answered")
	flag.StringVar(&o.podCIDR, "cluster-cidr", "10.244.0.0/16", "pod range, whose PTR records are answered")
	flag.UintVar(&o.ttl, "ttl", dns.DefaultTTL, "TTL of the records, in seconds")
	flag.DurationVar(&o.lameduck, "lameduck", 5*time.Second, "how long to go on answering after SIGTERM")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "kube-dns: --log-level:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("component", "kube-dns")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, log); err != nil {
		log.Error("exiting", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, log *slog.Logger) error {
	if o.ttl == 0 || o.ttl > 3600 {
		return fmt.Errorf("--ttl %d: must be 1 to 3600", o.ttl)
	}
	var cidrs []netip.Prefix
	for _, s := range []string{o.serviceCIDR, o.podCIDR} {
		if s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return err
		}
		cidrs = append(cidrs, p)
	}
	cfg, err := rest.BuildConfigFromFlags(o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.UserAgent = "kube-dns"
	c, err := rest.NewForConfig(cfg)
	if err != nil {
		return err
	}

	// serveCtx outlives ctx by the lameduck period.
	serveCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-ctx.Done()
		log.Info("stopping: answering for the lameduck period", "lameduck", o.lameduck)
		time.Sleep(o.lameduck)
		cancel()
	}()

	idx := dns.NewIndex()
	synced := dns.RunInformers(serveCtx, c, idx, log)
	go func() {
		if cache.WaitForCacheSync(serveCtx, synced) {
			log.Info("informers synced", "server", c.Server())
		}
	}()
	srv, err := dns.NewServer(dns.Config{ClusterDomain: o.clusterDomain, ReverseCIDRs: cidrs, TTL: uint32(o.ttl),
		LocalIPs: localIPs(o.dnsBindAddress), HasSynced: synced, Logger: log}, idx)
	if err != nil {
		return err
	}
	l, err := dns.Listen(net.JoinHostPort(o.dnsBindAddress, strconv.Itoa(o.dnsPort)))
	if err != nil {
		return err
	}

	errc := make(chan error, 4)
	serveHTTP(serveCtx, o.healthAddress, dns.HealthHandler(), errc)
	serveHTTP(serveCtx, o.readyAddress, dns.ReadyHandler(synced), errc)
	serveHTTP(serveCtx, o.metricsAddress, srv.MetricsHandler(), errc)
	go func() { errc <- srv.Serve(serveCtx, l) }()
	select {
	case err = <-errc:
	case <-serveCtx.Done():
	}
	cancel()
	return err
}

// serveHTTP serves h on addr until ctx ends; an empty addr serves nothing.
func serveHTTP(ctx context.Context, addr string, h http.Handler, errc chan<- error) {
	if addr == "" {
		return
	}
	s := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := s.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	go func() {
		<-ctx.Done()
		s.Close()
	}()
}

// localIPs are the addresses the server answers on, without loopback: its
// pod IP, which is how it finds the Service it is the name server behind.
func localIPs(bind string) []netip.Addr {
	if a, err := netip.ParseAddr(bind); err == nil && !a.IsUnspecified() {
		return []netip.Addr{a}
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() && !p.Addr().IsLoopback() {
			out = append(out, p.Addr())
		}
	}
	return out
}
