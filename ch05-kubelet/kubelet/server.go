package kubelet

// The kubelet's own HTTPS API (upstream: pkg/kubelet/server/server.go), on
// --address:--port (the node's IP, 10250). Its main client is the
// apiserver, which passes `kubectl logs`, `exec`, `attach` and
// `port-forward` on to it:
//
//	GET  /healthz                                    ok
//	GET  /pods                                       the kubelet's pods (a PodList)
//	GET  /containerLogs/<ns>/<pod>/<container>       a container's log (logs.go)
//	POST /exec/<ns>/<pod>/<container>?command=...    SPDY upgrade, relayed to the runtime (streaming.go)
//	POST /attach/<ns>/<pod>/<container>
//	POST /portForward/<ns>/<pod>
//
// Every request is authenticated (auth.go) and authorized by asking the
// apiserver (a SubjectAccessReview), so only who may use nodes/proxy of
// this node — the apiserver's kubelet client — gets in.

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
)

// DefaultPort is the kubelet API's port (--port).
const DefaultPort = 10250

// ServerConfig is the kubelet API's part of Config, with upstream's flag names.
type ServerConfig struct {
	Address string // --address: where to listen (default: the node's IP)
	Port    int    // --port (default 10250; 0: none)
	// TLS: the serving certificate (--tls-cert-file, --tls-private-key-file)
	// and the CA whose client certificates are accepted (--client-ca-file).
	ServingCert tls.Certificate
	ClientCA    *x509.CertPool
}

// serve runs the kubelet API until ctx ends. Failing to listen is logged,
// not fatal (upstream exits): the node still runs its pods, only logs and
// exec are unavailable.
func (k *Kubelet) serve(ctx context.Context) {
	sc := k.cfg.Server
	if sc.Port == 0 || len(sc.ServingCert.Certificate) == 0 {
		k.log.Info("kubelet API disabled (no --port or serving certificate)")
		return
	}
	addr := sc.Address
	if addr == "" {
		addr = k.cfg.NodeIP
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(sc.Port)))
	if err != nil {
		k.log.Error("cannot serve the kubelet API: logs, exec and port-forward are unavailable", "err", err)
		return
	}
	srv := &http.Server{
		Handler: k.handler(),
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{sc.ServingCert},
			ClientAuth:   tls.VerifyClientCertIfGiven, // or a bearer token
			ClientCAs:    sc.ClientCA,
			MinVersion:   tls.VersionTLS12,
			NextProtos:   []string{"http/1.1"}, // upgrades (SPDY) need HTTP/1.1
		},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(k.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		<-ctx.Done()
		srv.Close() // hijacked streams end with the runtime's connections
	}()
	k.log.Info("serving the kubelet API", "address", ln.Addr().String())
	if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
		k.log.Error("kubelet API stopped", "err", err)
	}
}

// handler routes the kubelet API behind authentication and authorization.
func (k *Kubelet) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("GET /pods", k.servePods)
	mux.HandleFunc("GET /pods/", k.servePods)
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", k.serveContainerLogs)
	for _, verb := range []string{"GET", "POST"} {
		mux.HandleFunc(verb+" /exec/{namespace}/{pod}/{container}", k.serveExec)
		mux.HandleFunc(verb+" /attach/{namespace}/{pod}/{container}", k.serveAttach)
		mux.HandleFunc(verb+" /portForward/{namespace}/{pod}", k.servePortForward)
	}
	return k.withAuth(mux)
}

// servePods lists the pods bound to this node, as the kubelet sees them.
func (k *Kubelet) servePods(w http.ResponseWriter, r *http.Request) {
	list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: []corev1.Pod{}}
	for _, p := range k.pods.GetStore().List() {
		list.Items = append(list.Items, *p)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(list)
}

// podByName is the pod namespace/name among this node's pods.
func (k *Kubelet) podByName(namespace, name string) (*corev1.Pod, bool) {
	// A static pod first: the runtime knows it by its own UID, not the
	// mirror pod's that the apiserver has.
	if p, ok := k.staticPod(namespace, name); ok {
		return p, true
	}
	return k.pods.GetStore().GetByKey(namespace + "/" + name)
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
