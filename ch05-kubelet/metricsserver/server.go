// Package metricsserver is chapter 5's metrics server: a small
// re-implementation of kubernetes-sigs/metrics-server, the add-on behind
// `kubectl top` and the horizontal pod autoscaler's CPU and memory targets.
//
// It is an API server of its own for one group, metrics.k8s.io/v1beta1,
// which the apiserver's aggregation layer (an APIService
// v1beta1.metrics.k8s.io) makes part of the cluster's API:
//
//	kubelet /metrics/resource ──scrape every --metric-resolution──▶ metrics server
//	kubectl top, HPA ──▶ apiserver /apis/metrics.k8s.io/... ──proxy (front-proxy cert)──▶ metrics server
//
// What it does, as the real one:
//   - lists and watches Nodes and Pods (identity
//     system:serviceaccount:kube-system:metrics-server, ClusterRole
//     system:metrics-server);
//   - every resolution, GETs /metrics/resource of each node's kubelet at the
//     node's address of --kubelet-preferred-address-types and its kubelet
//     port (scrape.go), keeping the last two readings (storage.go);
//   - serves NodeMetrics and PodMetrics (api.go): CPU as the rate between
//     the two readings, memory as the last working set, the window between;
//   - authenticates the apiserver's front proxy with the request-header
//     settings the apiserver publishes in ConfigMap
//     kube-system/extension-apiserver-authentication, and asks the
//     apiserver (SubjectAccessReview) whether the user the proxy names may
//     get or list nodes.metrics.k8s.io or pods.metrics.k8s.io (auth.go).
//
// The real one keeps its points in memory too: the API has no history, no
// watch and no storage.
package metricsserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// Defaults of upstream's flags.
const (
	DefaultMetricResolution = 15 * time.Second
	DefaultKubeletPort      = 10250
	// Identity is the metrics server's user: its service account in the
	// official manifest.
	Identity = "system:serviceaccount:kube-system:metrics-server"
)

// DefaultPreferredAddressTypes is upstream's --kubelet-preferred-address-types.
var DefaultPreferredAddressTypes = []string{"Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"}

// Config is the metrics server's configuration, with upstream's flag names.
type Config struct {
	Kubeconfig string // --kubeconfig: the metrics server's identity
	// BindAddress and SecurePort are where it serves (--bind-address,
	// --secure-port; port 0: a free one).
	BindAddress string
	SecurePort  int
	// ServingCert is its certificate (--tls-cert-file,
	// --tls-private-key-file), for metrics-server.kube-system.svc.
	ServingCert tls.Certificate

	MetricResolution             time.Duration  // --metric-resolution
	KubeletPreferredAddressTypes []string       // --kubelet-preferred-address-types
	KubeletUseNodeStatusPort     bool           // --kubelet-use-node-status-port
	KubeletPort                  int            // --kubelet-port
	KubeletInsecureTLS           bool           // --kubelet-insecure-tls
	KubeletCA                    *x509.CertPool // --kubelet-certificate-authority
	// KubeletRequestTimeout bounds one scrape (--kubelet-request-timeout;
	// default: 90 % of the resolution, as upstream's scraper).
	KubeletRequestTimeout time.Duration

	Logger *slog.Logger
}

// Server is a running metrics server.
type Server struct {
	cfg      Config
	c        *rest.Client
	log      *slog.Logger
	ln       net.Listener
	kubelets *http.Client
	token    string // presented to kubelets when the identity is a token
	store    *storage
	nodes    *cache.Informer[corev1.Node, *corev1.Node]
	pods     *cache.Informer[corev1.Pod, *corev1.Pod]

	authMu sync.RWMutex
	authn  *requestHeaderConfig // from extension-apiserver-authentication; nil until read

	scrapedOnce chan struct{} // closed after the first full scrape
}

// New checks cfg and listens; Run serves.
func New(cfg Config) (*Server, error) {
	if cfg.Kubeconfig == "" || len(cfg.ServingCert.Certificate) == 0 {
		return nil, errors.New("metrics-server: a kubeconfig and a serving certificate are required")
	}
	if cfg.MetricResolution <= 0 {
		cfg.MetricResolution = DefaultMetricResolution
	}
	if len(cfg.KubeletPreferredAddressTypes) == 0 {
		cfg.KubeletPreferredAddressTypes = DefaultPreferredAddressTypes
	}
	if cfg.KubeletPort == 0 {
		cfg.KubeletPort = DefaultKubeletPort
	}
	if cfg.KubeletRequestTimeout <= 0 {
		cfg.KubeletRequestTimeout = cfg.MetricResolution * 9 / 10
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "metrics-server")
	kc, err := pki.LoadKubeconfig(cfg.Kubeconfig)
	if err != nil {
		return nil, err
	}
	c, err := rest.New(cfg.Kubeconfig, "metrics-server/kubik")
	if err != nil {
		return nil, err
	}
	// The kubelets: the same identity as towards the apiserver.
	ktls := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: cfg.KubeletCA, InsecureSkipVerify: cfg.KubeletInsecureTLS}
	if kc.TLS != nil {
		ktls.Certificates = kc.TLS.Certificates
	}
	if ktls.RootCAs == nil && !ktls.InsecureSkipVerify {
		return nil, errors.New("metrics-server: --kubelet-certificate-authority or --kubelet-insecure-tls is required")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.SecurePort)))
	if err != nil {
		return nil, fmt.Errorf("metrics-server: %w", err)
	}
	s := &Server{cfg: cfg, c: c, log: log, ln: ln, token: kc.Token, store: newStorage(), scrapedOnce: make(chan struct{}),
		kubelets: &http.Client{Timeout: cfg.KubeletRequestTimeout, Transport: &http.Transport{
			TLSClientConfig: ktls, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 2, IdleConnTimeout: 2 * cfg.MetricResolution}}}
	return s, nil
}

// Addr is where the server listens.
func (s *Server) Addr() *net.TCPAddr { return s.ln.Addr().(*net.TCPAddr) }

// Run serves the API and scrapes the kubelets until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	s.nodes = cache.New[corev1.Node](s.c, cache.Options{Logger: s.log})
	s.pods = cache.New[corev1.Pod](s.c, cache.Options{Logger: s.log})
	go s.nodes.Run(ctx)
	go s.pods.Run(ctx)
	go s.watchAuthConfig(ctx)
	go s.scrapeLoop(ctx)

	srv := &http.Server{
		Handler: s.handler(),
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{s.cfg.ServingCert},
			ClientAuth:   tls.RequestClientCert, // verified per request (auth.go)
			MinVersion:   tls.VersionTLS12,
		},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	s.log.Info("serving metrics.k8s.io/v1beta1", "address", s.ln.Addr().String(), "metricResolution", s.cfg.MetricResolution)
	if err := srv.ServeTLS(s.ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// scrapeLoop scrapes every node each resolution, all nodes at once.
func (s *Server) scrapeLoop(ctx context.Context) {
	for !s.nodes.HasSynced() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	t := time.NewTicker(s.cfg.MetricResolution)
	defer t.Stop()
	first := true
	for {
		s.scrapeAll(ctx)
		if first {
			close(s.scrapedOnce)
			first = false
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) scrapeAll(ctx context.Context) {
	nodes := s.nodes.GetStore().List()
	var mu sync.Mutex
	var wg sync.WaitGroup
	scraped := map[string]*batch{}
	keep := map[string]bool{}
	for _, n := range nodes {
		keep[n.Name] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := s.scrape(ctx, n)
			if err != nil {
				if ctx.Err() == nil {
					s.log.Error("Failed to scrape node", "node", n.Name, "err", err)
				}
				return
			}
			now := time.Now()
			fill := func(p *point) {
				if p.ts.IsZero() {
					p.ts = now
				}
			}
			fill(&b.node)
			for k, p := range b.containers {
				fill(&p)
				b.containers[k] = p
			}
			mu.Lock()
			scraped[n.Name] = b
			mu.Unlock()
		}()
	}
	wg.Wait()
	s.store.store(scraped, keep)
	s.log.Debug("scraped the kubelets", "nodes", len(nodes), "ok", len(scraped))
}
