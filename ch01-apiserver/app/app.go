// Package app turns command-line flags into a running apiserver: the PKI in
// --data-dir, the admin kubeconfig, logging, and the HTTPS server. Upstream:
// cmd/kube-apiserver/app. Every chapter's main.go starts the apiserver
// through it and only chooses the storage (memory in ch01, etcd from ch02).
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/storage"
)

// Options are the apiserver's flags, with upstream's names.
type Options struct {
	DataDir                     string
	BindAddress                 string
	SecurePort                  int
	AdvertiseAddress            string
	ServiceClusterIPRange       string
	ServiceNodePortRange        string
	RequestTimeout              time.Duration
	MinRequestTimeout           int
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	Profiling                   bool
	LogLevel                    string
	// Authentication and authorization (see auth.go).
	AuthorizationMode            string
	DisableAnonymousAuth         bool // --anonymous-auth=false (kept inverted: Options without AddFlags get the default)
	TokenAuthFile                string
	ServiceAccountKeyFiles       stringList
	ServiceAccountSigningKeyFile string
	ServiceAccountIssuer         string
	ServiceAccountJWKSURI        string
	APIAudiences                 string
	// EnableGarbageCollector: a garbage collector runs (chapter 4's
	// controller manager), so DELETE with propagationPolicy Orphan or
	// Foreground adds the orphan/foregroundDeletion finalizer for it to
	// remove. Upstream's --enable-garbage-collector (default true there;
	// off here until a chapter runs a collector, else such deletes would
	// never finish).
	EnableGarbageCollector bool
	// ListenAlso are more addresses to serve on, at the same port: chapter
	// 6 serves the node network's bridge address too, so that nodes and
	// pods reach the control plane, while the host keeps 127.0.0.1 (not a
	// flag: upstream has one --bind-address).
	ListenAlso []string
	// How the apiserver calls kubelets (see kubeletclient.go).
	KubeletClientCertificate    string
	KubeletClientKey            string
	KubeletCertificateAuthority string
	// Certificates made elsewhere (see certs.go): with them the apiserver
	// serves TLSCertFile and trusts ClientCAFile, and keeps no CA of its
	// own in DataDir. Registered by AddCertificateFlags only, since a
	// chapter's one program also runs a kubelet, whose flags have the
	// same names.
	TLSCertFile       string
	TLSPrivateKeyFile string
	ClientCAFile      string
	// API aggregation: the front proxy's identity and how extension
	// apiservers are reached (see aggregation.go).
	RequestHeaderClientCAFile       string
	RequestHeaderAllowedNames       stringList
	RequestHeaderUsernameHeaders    stringList
	RequestHeaderUIDHeaders         stringList
	RequestHeaderGroupHeaders       stringList
	RequestHeaderExtraHeadersPrefix stringList
	ProxyClientCertFile             string
	ProxyClientKeyFile              string
	// EnableAggregatorRouting: upstream's --enable-aggregator-routing,
	// false by default there and here; the chapters' programs turn it on
	// (set before AddFlags), since no chapter before 7 routes ClusterIPs.
	EnableAggregatorRouting bool
	// EndpointReconciler keeps the kubernetes Service's endpoints (not a
	// flag: the program that knows the storage chooses it); nil: this
	// apiserver's own address only.
	EndpointReconciler apiserver.EndpointReconcilerFunc
}

// AddFlags registers the flags on fs with their defaults.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.DataDir, "data-dir", ".kubik", "directory for the PKI, state, logs and admin.kubeconfig")
	fs.StringVar(&o.BindAddress, "bind-address", "127.0.0.1", "address to serve HTTPS on")
	fs.IntVar(&o.SecurePort, "secure-port", 6443, "port to serve HTTPS on (0: pick a free one)")
	fs.StringVar(&o.AdvertiseAddress, "advertise-address", "", "address published in the kubernetes Service's endpoints (default: the bind address, or 127.0.0.1)")
	fs.StringVar(&o.ServiceClusterIPRange, "service-cluster-ip-range", "10.96.0.0/12", "CIDR Service ClusterIPs are allocated from")
	fs.StringVar(&o.ServiceNodePortRange, "service-node-port-range", "30000-32767", "port range for NodePort Services")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", 60*time.Second, "longest time a non-watch request may take")
	fs.IntVar(&o.MinRequestTimeout, "min-request-timeout", 1800, "a watch ends after a random time between this many seconds and twice as many")
	fs.IntVar(&o.MaxRequestsInFlight, "max-requests-inflight", 400, "most non-mutating requests served at once; more wait in line (0: no limit)")
	fs.IntVar(&o.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", 200, "most mutating requests served at once; more wait in line (0: no limit)")
	fs.BoolVar(&o.Profiling, "profiling", true, "serve Go's profiles on /debug/pprof/ (to system:masters)")
	fs.StringVar(&o.LogLevel, "log-level", "info", "debug, info, warn or error")
	fs.BoolVar(&o.EnableGarbageCollector, "enable-garbage-collector", o.EnableGarbageCollector,
		"a garbage collector runs (kube-controller-manager): DELETE with propagationPolicy Orphan or Foreground adds the finalizer it removes (upstream's default: true; Kubik's: only where a chapter runs one)")
	o.addAuthFlags(fs)
	o.addKubeletClientFlags(fs)
	o.addAggregationFlags(fs)
}

// APIServer returns the options themselves: chapter 1's Config.
func (o *Options) APIServer() *Options { return o }

// NewLogger is the logger of every Kubik process: one text line per event
// on w, at level ("debug", "info", "warn" or "error").
func NewLogger(level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// Logger writes one line per event to stderr and to DIR/logs/<name>.log.
func (o *Options) Logger(name string) (*slog.Logger, io.Closer, error) {
	dir := filepath.Join(o.DataDir, "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	log, err := NewLogger(o.LogLevel, io.MultiWriter(os.Stderr, f))
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return log, f, nil
}

// Cluster is what a running apiserver tells the rest of the program.
type Cluster struct {
	Server *apiserver.Server
	URL    string // https://127.0.0.1:6443
	// CA and AdminKubeconfig: the CA in --data-dir and the kubeconfig it
	// issued; nil and "" when the certificates were made elsewhere
	// (--tls-cert-file).
	CA              *pki.CA
	AdminKubeconfig string
}

// Start prepares the PKI and the admin kubeconfig, opens the port and starts
// serving on store in the background. It returns once the apiserver is ready
// (GET /readyz answers ok); errc reports when it stops.
func Start(ctx context.Context, o *Options, store storage.Interface, log *slog.Logger, readyChecks map[string]func(context.Context) error) (*Cluster, <-chan error, error) {
	cidr, err := netip.ParsePrefix(o.ServiceClusterIPRange)
	if err != nil {
		return nil, nil, fmt.Errorf("--service-cluster-ip-range: %w", err)
	}
	lo, hi, err := parsePortRange(o.ServiceNodePortRange)
	if err != nil {
		return nil, nil, fmt.Errorf("--service-node-port-range: %w", err)
	}
	// The certificates: given (--tls-cert-file ...), or from the CA in --data-dir.
	certs, err := o.servingCerts(cidr)
	if err != nil {
		return nil, nil, err
	}
	ca, cert := certs.ca, certs.serving
	advertise := o.AdvertiseAddress
	if advertise == "" {
		advertise = o.BindAddress
		if ip, err := netip.ParseAddr(advertise); err != nil || ip.IsUnspecified() {
			advertise = "127.0.0.1"
		}
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(o.BindAddress, strconv.Itoa(o.SecurePort)))
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, nil, fmt.Errorf("--secure-port: port %d is already in use (another cluster, or this chapter running in another terminal?): stop that, or pick another port: --secure-port=N (make chNN-run PORT=N): %w", o.SecurePort, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--secure-port: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	var more []net.Listener
	for _, a := range o.ListenAlso {
		l, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(port)))
		if err != nil {
			ln.Close()
			for _, m := range more {
				m.Close()
			}
			return nil, nil, fmt.Errorf("listening on %s as well: %w", a, err)
		}
		more = append(more, l)
	}
	closeAll := func() {
		ln.Close()
		for _, m := range more {
			m.Close()
		}
	}
	cfg := apiserver.Config{
		Storage: store, BindAddress: o.BindAddress, SecurePort: port, AdvertiseAddress: advertise,
		ServingCert: cert, ClientCA: certs.clientCA, ServiceClusterIPRange: cidr, NodePortMin: lo, NodePortMax: hi,
		ReadyChecks: readyChecks, RequestTimeout: o.RequestTimeout,
		MaxRequestsInFlight: o.MaxRequestsInFlight, MaxMutatingRequestsInFlight: o.MaxMutatingRequestsInFlight,
		Profiling:         o.Profiling,
		MinRequestTimeout: time.Duration(o.MinRequestTimeout) * time.Second, Logger: log,
		EnableGarbageCollection: o.EnableGarbageCollector,
		EndpointReconciler:      o.EndpointReconciler,
	}
	if err := o.authConfig(&cfg); err != nil {
		closeAll()
		return nil, nil, err
	}
	if err := o.kubeletClientConfig(&cfg, ca, certs.clientCA); err != nil {
		closeAll()
		return nil, nil, err
	}
	if err := o.aggregationConfig(&cfg, certs); err != nil {
		closeAll()
		return nil, nil, err
	}
	srv, err := apiserver.New(cfg)
	if err != nil {
		closeAll()
		return nil, nil, err
	}

	host := o.BindAddress
	if ip, err := netip.ParseAddr(host); err != nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	url := "https://" + net.JoinHostPort(host, strconv.Itoa(port))
	var kubeconfig string
	if ca != nil {
		if kubeconfig, err = filepath.Abs(filepath.Join(o.DataDir, "admin.kubeconfig")); err != nil {
			return nil, nil, err
		}
		// Written before the server reports ready, so a script can wait for /readyz and then use it.
		if err := ca.WriteKubeconfig(kubeconfig, url, "kubernetes-admin", []string{"system:masters"}); err != nil {
			return nil, nil, fmt.Errorf("admin kubeconfig: %w", err)
		}
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx, ln, more...) }()
	if err := waitReady(ctx, srv, errc); err != nil {
		return nil, nil, err
	}
	return &Cluster{Server: srv, URL: url, CA: ca, AdminKubeconfig: kubeconfig}, errc, nil
}

func waitReady(ctx context.Context, srv *apiserver.Server, errc chan error) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for !srv.Ready() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			if err == nil {
				err = errors.New("apiserver stopped before it was ready")
			}
			return err
		case <-t.C:
		}
	}
	return nil
}

// PrintWelcome tells the user how to point kubectl at the cluster, and
// which process it is (its PID file, when Main wrote one).
func (c *Cluster) PrintWelcome(w io.Writer, chapter string) {
	fmt.Fprintf(w, "\n%s is running at %s\n", chapter, c.URL)
	if pidFile != "" {
		fmt.Fprintf(w, "pid: %d (in %s)\n", os.Getpid(), pidFile)
	}
	fmt.Fprintf(w, "kubeconfig: %s\n\n  export KUBECONFIG=%s\n  kubectl get ns\n\n", c.AdminKubeconfig, c.AdminKubeconfig)
}

func parsePortRange(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, fmt.Errorf("%q is not a range like 30000-32767", s)
	}
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || lo <= 0 || hi > 65535 || lo > hi {
		return 0, 0, fmt.Errorf("%q is not a range like 30000-32767", s)
	}
	return lo, hi, nil
}
