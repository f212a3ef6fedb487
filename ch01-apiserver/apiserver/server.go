// Package apiserver is Kubik's kube-apiserver: the hub every component talks
// to. A request passes through
//
//	authentication → routing (RequestInfo) → decoding → admission (defaulting,
//	mutation) → validation → storage → response or watch stream
//
// and nothing but this package touches storage.
package apiserver

import (
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"kubik/ch01-apiserver/version"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/apiextensions"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/auth/node"
	"kubik/ch01-apiserver/apiserver/auth/rbac"
	"kubik/ch01-apiserver/apiserver/auth/rbac/bootstrappolicy"
	"kubik/ch01-apiserver/apiserver/auth/serviceaccount"
	"kubik/ch01-apiserver/apiserver/policy"
	"kubik/ch01-apiserver/apiserver/webhook"
	"kubik/ch01-apiserver/storage"
)

// Version is what GET /version reports: the Kubernetes release whose behaviour
// Kubik follows, marked as Kubik's (a valid semver, which kubectl insists on).
var Version = VersionInfo{
	Major: "1", Minor: "35", EmulationMajor: "1", EmulationMinor: "35",
	MinCompatibilityMajor: "1", MinCompatibilityMinor: "34",
	GitVersion: version.Version, GitCommit: "", GitTreeState: "clean",
	BuildDate: "2026-11-30T00:00:00Z", Compiler: "gc",
}

// Config is everything the apiserver needs; main.go fills it from flags.
type Config struct {
	// Storage is the only state. ch01 passes storage.NewMemory, ch02 etcd.
	Storage storage.Interface
	// BindAddress and SecurePort: where HTTPS is served (--bind-address, --secure-port).
	BindAddress string
	SecurePort  int
	// AdvertiseAddress is the address published in the "kubernetes" Service's endpoints.
	AdvertiseAddress string
	// TLS: the serving certificate and the CA that signs client certificates.
	ServingCert tls.Certificate
	ClientCA    *x509.CertPool
	// Authenticators tried in order after x509 client certificates, before bearer tokens.
	Authenticators []auth.Authenticator
	// TokenAuthenticators check bearer tokens (--token-auth-file) before
	// ServiceAccount tokens.
	TokenAuthenticators []auth.TokenAuthenticator
	// AuthorizationModes is --authorization-mode: "Node", "RBAC",
	// "AlwaysAllow", "AlwaysDeny", asked in order (nil: AlwaysAllow).
	AuthorizationModes []string
	// DisableAnonymous is --anonymous-auth=false: a request without
	// credentials gets 401 instead of going on as system:anonymous.
	DisableAnonymous bool
	// ServiceAccountIssuer is the "iss" of ServiceAccount tokens
	// (--service-account-issuer, default https://kubernetes.default.svc.cluster.local);
	// APIAudiences are the audiences the apiserver accepts (default: the issuer).
	ServiceAccountIssuer string
	APIAudiences         []string
	// ServiceAccountJWKSURI is the jwks_uri published in the issuer's
	// discovery document (--service-account-jwks-uri; default: this
	// apiserver's /openid/v1/jwks).
	ServiceAccountJWKSURI string
	// ServiceAccountSigningKey signs TokenRequest tokens
	// (--service-account-signing-key-file); ServiceAccountKeys verify them
	// (--service-account-key-file; the signing key's public half is always included).
	ServiceAccountSigningKey crypto.Signer
	ServiceAccountKeys       []crypto.PublicKey
	// ServiceClusterIPRange is --service-cluster-ip-range (default 10.96.0.0/12).
	ServiceClusterIPRange netip.Prefix
	// ServiceNodePortRange is --service-node-port-range (default 30000-32767).
	NodePortMin, NodePortMax int
	// EnableGarbageCollection: when a garbage collector runs (ch04), deletes with
	// propagationPolicy Orphan/Foreground add finalizers it will remove.
	EnableGarbageCollection bool
	// ReadyChecks are extra /readyz checks (ch02 adds etcd).
	ReadyChecks map[string]func(context.Context) error
	// MaxRequestBodyBytes: upstream's 3 MiB. MaxObjectBytes: etcd's 1.5 MiB value limit.
	MaxRequestBodyBytes int64
	MaxObjectBytes      int
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight bound the reads
	// and writes served at once (--max-requests-inflight,
	// --max-mutating-requests-inflight; 0: no bound). See maxinflight.go.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// Profiling serves Go's profiles on /debug/pprof/ (--profiling, on by
	// default as upstream; like every path, only for who may GET it:
	// system:masters).
	Profiling bool
	// RequestTimeout bounds non-watch requests (--request-timeout, 60s).
	RequestTimeout time.Duration
	// MinRequestTimeout: watches end after a random time in [min, 2*min] (--min-request-timeout, 1800s).
	MinRequestTimeout time.Duration
	// KubeletClientCert is the apiserver's identity toward kubelets, for
	// pods/log, exec, attach and port-forward (--kubelet-client-certificate,
	// --kubelet-client-key); KubeletCA verifies the kubelets' serving
	// certificates (--kubelet-certificate-authority; nil: not verified).
	KubeletClientCert *tls.Certificate
	KubeletCA         *x509.CertPool
	// EndpointReconciler, when set, keeps the kubernetes Service's
	// endpoints listing every live apiserver (bootstrap.go); nil: this
	// apiserver's address, published once.
	EndpointReconciler EndpointReconcilerFunc
	// API aggregation (aggregator.go). ClientCAPEM is the client CA bundle
	// as published in kube-system/extension-apiserver-authentication.
	// RequestHeader authenticates a front proxy's requests
	// (--requestheader-*; nil: none), RequestHeaderCAPEM its CA bundle.
	// ProxyClientCert is what the apiserver presents to extension
	// apiservers (--proxy-client-cert-file, --proxy-client-key-file; nil:
	// no client certificate). EnableAggregatorRouting: call a Service's
	// ready endpoint instead of its ClusterIP (--enable-aggregator-routing).
	ClientCAPEM             []byte
	RequestHeader           *auth.RequestHeader
	RequestHeaderCAPEM      []byte
	ProxyClientCert         *tls.Certificate
	EnableAggregatorRouting bool
	Logger                  *slog.Logger
}

// DefaultServiceAccountIssuer is upstream's usual --service-account-issuer.
const DefaultServiceAccountIssuer = serviceaccount.DefaultIssuer

// NewTokenFile reads the static token file of --token-auth-file, for
// Config.TokenAuthenticators (auth.NewTokenFile).
func NewTokenFile(path string) (*auth.TokenFile, error) { return auth.NewTokenFile(path) }

// SignJWT signs claims as ServiceAccount tokens are signed (serviceaccount.SignJWT).
func SignJWT(key crypto.Signer, claims any) (string, error) {
	return serviceaccount.SignJWT(key, claims)
}

// VersionInfo is the body of GET /version.
type VersionInfo struct {
	Major                 string `json:"major"`
	Minor                 string `json:"minor"`
	EmulationMajor        string `json:"emulationMajor,omitempty"`
	EmulationMinor        string `json:"emulationMinor,omitempty"`
	MinCompatibilityMajor string `json:"minCompatibilityMajor,omitempty"`
	MinCompatibilityMinor string `json:"minCompatibilityMinor,omitempty"`
	GitVersion            string `json:"gitVersion"`
	GitCommit             string `json:"gitCommit"`
	GitTreeState          string `json:"gitTreeState"`
	BuildDate             string `json:"buildDate"`
	GoVersion             string `json:"goVersion"`
	Compiler              string `json:"compiler"`
	Platform              string `json:"platform"`
}

// Server is a running apiserver.
type Server struct {
	cfg       Config
	log       *slog.Logger
	handler   http.Handler
	ready     atomic.Bool
	ipAlloc   *ipAllocator
	portAlloc *portAllocator
	openapi   http.Handler
	// authentication and authorization (newAuth): the request
	// authenticators, the bearer token authenticators (TokenReview asks
	// them too), the chain of --authorization-mode, RBAC's cache,
	// ServiceAccount tokens.
	authenticator auth.Union
	tokens        auth.TokenUnion
	authorizer    auth.Chain
	rbac          *rbac.Authorizer
	saTokens      *serviceaccount.Tokens
	// anonymous: requests without credentials go on as system:anonymous.
	anonymous bool
	// kubeletClient fetches logs from kubelets (podconnect.go).
	kubeletOnce   sync.Once
	kubeletClient *http.Client
	// admissionObjects: what admission reads, decoded once per revision (admission.go).
	admissionObjects decodedCache
	// protobufItems: list items already encoded in protobuf (listproto.go).
	protobufItems protobufItems
	// endpoints: the configured EndpointReconciler (bootstrap.go).
	endpoints endpointLoop
	// crds: the custom resources this server serves (customresource.go,
	// crdcontrollers.go).
	crds *apiextensions.Registry
	// openAPIV2: the last /openapi/v2 built with the custom resources
	// (customresource_openapi.go).
	openAPIV2 v2Cache
	// webhooks: the admission webhooks, from a watch of their
	// configurations (admission_webhook.go).
	webhookSource *webhook.Source
	webhooks      *webhook.Dispatcher
	// policies: the ValidatingAdmissionPolicies and their bindings, from a
	// watch (admission_policy.go).
	policySource *policy.Source
	policies     *policy.Dispatcher
	// agg: the APIServices and the proxy to extension apiservers (aggregator.go).
	agg *aggregator
}

// New builds the server. Call Bootstrap (or Run) to create the initial objects.
func New(cfg Config) (*Server, error) {
	if cfg.Storage == nil {
		return nil, errors.New("apiserver: Config.Storage is required")
	}
	if cfg.MaxRequestBodyBytes == 0 {
		cfg.MaxRequestBodyBytes = 3 * 1024 * 1024
	}
	if cfg.MaxObjectBytes == 0 {
		cfg.MaxObjectBytes = 1536 * 1024
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 60 * time.Second
	}
	if cfg.MinRequestTimeout == 0 {
		cfg.MinRequestTimeout = 1800 * time.Second
	}
	if !cfg.ServiceClusterIPRange.IsValid() {
		cfg.ServiceClusterIPRange = netip.MustParsePrefix("10.96.0.0/12")
	}
	if cfg.NodePortMin == 0 {
		cfg.NodePortMin, cfg.NodePortMax = 30000, 32767
	}
	if cfg.AdvertiseAddress == "" {
		cfg.AdvertiseAddress = "127.0.0.1"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, log: cfg.Logger.With("component", "apiserver"), crds: apiextensions.NewRegistry()}
	s.newWebhooks()
	s.newPolicies()
	s.agg = newAggregator(s)
	s.ipAlloc = newIPAllocator(cfg.Storage, cfg.ServiceClusterIPRange)
	s.portAlloc = newPortAllocator(cfg.Storage, cfg.NodePortMin, cfg.NodePortMax)
	s.openapi = s.agg.withOpenAPI(newOpenAPIHandler(scheme.Resources, Version.GitVersion, s.serveCustomOpenAPI))
	if err := s.newAuth(cfg); err != nil {
		return nil, err
	}
	s.handler = s.buildHandler()
	return s, nil
}

// newAuth builds what cfg says about authentication and authorization: the
// RBAC authorizer (which RBAC escalation checks ask too), the chain of
// --authorization-mode, ServiceAccount tokens, and the authenticators in
// upstream's order — the client certificate, Config.Authenticators, then
// bearer tokens (the token file, ServiceAccount tokens).
func (s *Server) newAuth(cfg Config) error {
	s.rbac = rbac.New(rbacObjects{s})
	var err error
	nodeAuthorizer := node.NewAuthorizer(nodeObjects{s}, bootstrappolicy.NodeRules())
	if s.authorizer, err = auth.NewChain(cfg.AuthorizationModes, nodeAuthorizer, s.rbac); err != nil {
		return err
	}
	// Upstream's ApplyAuthorization: anonymous requests and an authorizer
	// that allows everything would let anyone do anything.
	s.anonymous = !cfg.DisableAnonymous
	if s.anonymous && (len(cfg.AuthorizationModes) == 0 || slices.Contains(cfg.AuthorizationModes, auth.ModeAlwaysAllow)) {
		s.log.Warn("AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer")
		s.anonymous = false
	}
	s.saTokens = serviceaccount.NewTokens(tokenObjects{s}, cfg.ServiceAccountIssuer, cfg.APIAudiences,
		cfg.ServiceAccountSigningKey, cfg.ServiceAccountKeys)
	s.tokens = append(append(auth.TokenUnion(nil), cfg.TokenAuthenticators...), s.saTokens)
	s.authenticator = append(append(auth.Union{auth.X509Authenticator{}}, cfg.Authenticators...), auth.BearerToken{Tokens: s.tokens})
	if cfg.RequestHeader != nil {
		// The front proxy's certificates pass the TLS handshake too, so the
		// x509 authenticator checks its chain against the client CA alone.
		s.authenticator[0] = auth.X509Authenticator{Roots: cfg.ClientCA}
		s.authenticator = append(auth.Union{cfg.RequestHeader}, s.authenticator...)
	}
	return nil
}

// Handler is the whole HTTP handler chain (useful for tests).
func (s *Server) Handler() http.Handler { return s.handler }

// TLSConfig asks clients for a certificate but does not require one: requests
// without one are anonymous, which only health and version endpoints accept.
func (s *Server) TLSConfig() *tls.Config {
	clientCAs := s.cfg.ClientCA
	if s.cfg.RequestHeader != nil && clientCAs != nil {
		clientCAs = clientCAs.Clone()
		clientCAs.AppendCertsFromPEM(s.cfg.RequestHeaderCAPEM)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{s.cfg.ServingCert},
		ClientAuth:   tls.VerifyClientCertIfGiven,
		ClientCAs:    clientCAs,
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}
}

// Listen opens the secure port.
func (s *Server) Listen() (net.Listener, error) {
	addr := net.JoinHostPort(s.cfg.BindAddress, fmt.Sprint(s.cfg.SecurePort))
	return net.Listen("tcp", addr)
}

// Serve bootstraps the cluster state, then serves HTTPS on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener, more ...net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		TLSConfig:         s.TLSConfig(),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1+len(more))
	for _, l := range append([]net.Listener{ln}, more...) {
		go func() { errc <- srv.ServeTLS(l, "", "") }()
		s.log.Info("serving securely", "address", l.Addr().String())
	}
	s.rbac.Start(ctx)

	if err := s.Bootstrap(ctx); err != nil {
		srv.Close()
		return fmt.Errorf("bootstrap: %w", err)
	}
	if err := s.startCRDControllers(ctx); err != nil {
		srv.Close()
		return fmt.Errorf("starting the CustomResourceDefinition controllers: %w", err)
	}
	if err := s.webhookSource.Start(ctx); err != nil {
		srv.Close()
		return fmt.Errorf("starting the admission webhook configuration watch: %w", err)
	}
	if err := s.policySource.Start(ctx); err != nil {
		srv.Close()
		return fmt.Errorf("starting the admission policy watch: %w", err)
	}
	if err := s.agg.start(ctx); err != nil {
		srv.Close()
		return fmt.Errorf("starting the APIService controllers: %w", err)
	}
	go s.runFlowControlStatus(ctx)
	stopEndpoints := s.runEndpointReconciler(ctx)
	s.ready.Store(true)
	s.log.Info("apiserver is ready")

	select {
	case <-ctx.Done():
		s.ready.Store(false)
		stopEndpoints() // out of the kubernetes Service before the port closes
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdownCtx)
		return nil
	case err := <-errc:
		stopEndpoints()
		srv.Close()
		return err
	}
}

// buildHandler assembles the filter chain, outermost first: panic recovery and
// logging, authentication, impersonation, authorization, then the router.
func (s *Server) buildHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", s.serveHealth)
	mux.HandleFunc("/healthz/", s.serveHealth)
	mux.HandleFunc("/livez", s.serveHealth)
	mux.HandleFunc("/livez/", s.serveHealth)
	mux.HandleFunc("/readyz", s.serveReady)
	mux.HandleFunc("/readyz/", s.serveReady)
	mux.HandleFunc("/version", s.serveVersion)
	mux.HandleFunc("/version/", s.serveVersion)
	mux.Handle("/openapi/", s.openapi)
	for _, p := range []string{serviceaccount.OpenIDConfigPath, serviceaccount.JWKSPath} {
		mux.HandleFunc(p, s.serveOpenIDMetadata)
		mux.HandleFunc(p+"/{$}", s.serveOpenIDMetadata) // the path with a trailing slash, nothing below it
	}
	mux.HandleFunc("/api", s.serveAPI)
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("/apis", s.serveAPI)
	mux.HandleFunc("/apis/", s.serveAPI)
	if s.cfg.Profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.HandleFunc("/", notServed)
	return s.withRecovery(withRequestInfo(s.withAuthentication(s.withImpersonation(s.withMaxInFlight(s.withAuthorization(mux))))))
}

// isPublicPath: what anonymous users may see (upstream's system:public-info-viewer).
func isPublicPath(p string) bool {
	for _, prefix := range []string{"/healthz", "/livez", "/readyz", "/version"} {
		if p == prefix || strings.HasPrefix(p, prefix+"/") {
			return true
		}
	}
	return false
}

// Ready reports whether bootstrap has finished (what /readyz says).
func (s *Server) Ready() bool { return s.ready.Load() }
