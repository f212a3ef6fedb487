// Package server is the kubelet's own HTTPS API (upstream's
// pkg/kubelet/server), on --address:--port (the node's IP, 10250). Its
// main client is the apiserver, which passes `kubectl logs`, `exec`,
// `attach` and `port-forward` on to it:
//
//	GET  /healthz                                    ok
//	GET  /pods                                       the kubelet's pods (a PodList)
//	GET  /containerLogs/<ns>/<pod>/<container>       a container's log (logs.go)
//	POST /exec/<ns>/<pod>/<container>?command=...    SPDY upgrade, relayed to the runtime (streaming.go)
//	POST /attach/<ns>/<pod>/<container>
//	POST /portForward/<ns>/<pod>
//	GET  /metrics/resource                           CPU and memory of the node, pods, containers (metrics.go)
//
// Every request is authenticated (auth.go) and authorized by asking the
// apiserver (a SubjectAccessReview), so only who may use nodes/proxy of
// this node — the apiserver's kubelet client — gets in.
//
// The server knows the kubelet only through a HostInterface, as
// upstream's: its pods, and the runtime's answers about their containers.
package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// DefaultPort is the kubelet API's port (--port).
const DefaultPort = 10250

// Config is the kubelet API's configuration, with upstream's flag names.
type Config struct {
	Address string // --address: where to listen (default: the node's IP)
	Port    int    // --port (default 10250; 0: none)
	// TLS: the serving certificate (--tls-cert-file, --tls-private-key-file)
	// and the CA whose client certificates are accepted (--client-ca-file).
	ServingCert tls.Certificate
	ClientCA    *x509.CertPool
}

// HostInterface is what the server asks of the kubelet (upstream's
// server.HostInterface).
type HostInterface interface {
	// GetPods are the pods bound to this node, as the kubelet sees them.
	GetPods() []*corev1.Pod
	// GetPodByName is the pod namespace/name among this node's.
	GetPodByName(namespace, name string) (*corev1.Pod, bool)
	// GetContainerLogFile is the log file of container containerName of
	// pod — of the instance before the current one when previous — and
	// whether that instance still runs, asked while a followed log is
	// read. An error is the client's (400): no such instance, or the
	// runtime does not know it.
	GetContainerLogFile(ctx context.Context, pod *corev1.Pod, containerName string, previous bool) (path string, running func() bool, err error)
	// GetRunningContainerID is the runtime's ID of the running container
	// containerName of the pod with UID podUID.
	GetRunningContainerID(ctx context.Context, podUID, containerName string) (string, error)
	// GetExec, GetAttach and GetPortForward ask the runtime for a
	// one-time streaming URL (CRI Exec, Attach, PortForward) for a
	// container, or for the pod's sandbox. A gRPC status error is
	// answered with its code (NotFound: 404 ...).
	GetExec(ctx context.Context, containerID string, cmd []string, opts StreamOptions) (string, error)
	GetAttach(ctx context.Context, containerID string, opts StreamOptions) (string, error)
	GetPortForward(ctx context.Context, pod *corev1.Pod) (string, error)
}

// DialFunc connects to the runtime's streaming server (from inside the
// node's network namespace, where it listens).
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Server serves the kubelet API for one node.
type Server struct {
	host     HostInterface
	client   *rest.Client // TokenReviews and SubjectAccessReviews
	nodeName string
	dial     DialFunc
	log      *slog.Logger
}

// NewServer returns the API of node nodeName, answered by host; requests
// are authenticated and authorized by the apiserver c talks to, streams
// relayed through dial.
func NewServer(host HostInterface, c *rest.Client, nodeName string, dial DialFunc, log *slog.Logger) *Server {
	return &Server{host: host, client: c, nodeName: nodeName, dial: dial, log: log}
}

// ListenAndServe runs the kubelet API until ctx ends, on cfg.Address
// (default: nodeIP). Failing to listen is logged, not fatal (upstream
// exits): the node still runs its pods, only logs and exec are
// unavailable.
func (s *Server) ListenAndServe(ctx context.Context, cfg Config, nodeIP string) {
	if cfg.Port == 0 || len(cfg.ServingCert.Certificate) == 0 {
		s.log.Info("kubelet API disabled (no --port or serving certificate)")
		return
	}
	addr := cfg.Address
	if addr == "" {
		addr = nodeIP
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(cfg.Port)))
	if err != nil {
		s.log.Error("cannot serve the kubelet API: logs, exec and port-forward are unavailable", "err", err)
		return
	}
	srv := &http.Server{
		Handler: s.handler(),
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cfg.ServingCert},
			ClientAuth:   tls.VerifyClientCertIfGiven, // or a bearer token
			ClientCAs:    cfg.ClientCA,
			MinVersion:   tls.VersionTLS12,
			NextProtos:   []string{"http/1.1"}, // upgrades (SPDY) need HTTP/1.1
		},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		<-ctx.Done()
		srv.Close() // hijacked streams end with the runtime's connections
	}()
	s.log.Info("serving the kubelet API", "address", ln.Addr().String())
	if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Error("kubelet API stopped", "err", err)
	}
}

// handler routes the kubelet API behind authentication and authorization.
func (s *Server) handler() http.Handler {
	return s.withAuth(s.routes())
}

// routes are the kubelet API's paths.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("GET /pods", s.servePods)
	mux.HandleFunc("GET /pods/", s.servePods)
	mux.HandleFunc("GET /metrics/resource", s.serveResourceMetrics)
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", s.serveContainerLogs)
	for _, verb := range []string{"GET", "POST"} {
		mux.HandleFunc(verb+" /exec/{namespace}/{pod}/{container}", s.serveExec)
		mux.HandleFunc(verb+" /attach/{namespace}/{pod}/{container}", s.serveAttach)
		mux.HandleFunc(verb+" /portForward/{namespace}/{pod}", s.servePortForward)
	}
	return mux
}

// servePods lists the pods bound to this node, as the kubelet sees them.
func (s *Server) servePods(w http.ResponseWriter, r *http.Request) {
	list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: []corev1.Pod{}}
	for _, p := range s.host.GetPods() {
		list.Items = append(list.Items, *p)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(list)
}

// containerSpec finds a container (init, regular or ephemeral) by name.
func containerSpec(pod *corev1.Pod, name string) bool {
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			if c.Name == name {
				return true
			}
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// writeError answers with a plain-text error, as upstream's kubelet does
// (the apiserver turns it into a Status).
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprint(w, msg)
}
