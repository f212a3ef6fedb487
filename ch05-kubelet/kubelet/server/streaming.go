package server

// exec, attach and port-forward. The kubelet does not run the streams
// itself: it asks the runtime for a one-time streaming URL (CRI Exec,
// Attach, PortForward), then relays the client's SPDY upgrade to that URL,
// as upstream's kubelet does (pkg/kubelet/server/server.go proxyStream).
// containerd's streaming server listens on 127.0.0.1:<random port> inside
// the node's network namespace, so the server dials it from there.
//
//	kubectl ──SPDY──▶ apiserver ──TLS──▶ kubelet ──▶ containerd streaming server ──▶ runc exec
//	          (relayed byte for byte after "101 Switching Protocols")

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"kubik/ch01-apiserver/apiserver/proxy"
)

// StreamOptions are the query of /exec and /attach: which streams the
// client wants (upstream's remotecommand Options). The kubelet's names
// are not the pods/exec names: the apiserver turns stdin, stdout, stderr
// into input, output, error (core/v1's ExecStdinParam and friends), and
// a stream is wanted when its value is "1".
type StreamOptions struct {
	Stdin, Stdout, Stderr, TTY bool
}

func parseStreamOptions(q url.Values) StreamOptions {
	b := func(k string) bool { return q.Get(k) == "1" }
	return StreamOptions{Stdin: b("input"), Stdout: b("output"), Stderr: b("error"), TTY: b("tty")}
}

// serveExec: /exec/<ns>/<pod>/<container>?command=...&input=1...
func (s *Server) serveExec(w http.ResponseWriter, r *http.Request) {
	s.serveContainerStream(w, r, func(ctx context.Context, id string, o StreamOptions) (string, error) {
		cmd := r.URL.Query()["command"]
		if len(cmd) == 0 {
			return "", fmt.Errorf("missing command")
		}
		return s.host.GetExec(ctx, id, cmd, o)
	})
}

// serveAttach: /attach/<ns>/<pod>/<container>?input=1...
func (s *Server) serveAttach(w http.ResponseWriter, r *http.Request) {
	s.serveContainerStream(w, r, s.host.GetAttach)
}

// serveContainerStream finds the running container and relays the
// upgrade to the URL getURL obtains from the runtime.
func (s *Server) serveContainerStream(w http.ResponseWriter, r *http.Request,
	getURL func(ctx context.Context, id string, o StreamOptions) (string, error)) {
	pod, ok := s.host.GetPodByName(r.PathValue("namespace"), r.PathValue("pod"))
	if !ok {
		writeError(w, http.StatusNotFound, "pod does not exist")
		return
	}
	id, err := s.host.GetRunningContainerID(r.Context(), pod.UID, r.PathValue("container"))
	if err != nil {
		writeStreamingError(w, err)
		return
	}
	o := parseStreamOptions(r.URL.Query())
	if !o.Stdin && !o.Stdout && !o.Stderr {
		writeError(w, http.StatusBadRequest, "you must specify at least 1 of stdin, stdout, stderr")
		return
	}
	u, err := getURL(r.Context(), id, o)
	if err != nil {
		writeStreamingError(w, err)
		return
	}
	s.proxyStream(w, r, u)
}

// servePortForward: /portForward/<ns>/<pod>; the ports travel in the
// SPDY streams' headers, so the runtime's URL is for the whole sandbox.
func (s *Server) servePortForward(w http.ResponseWriter, r *http.Request) {
	pod, ok := s.host.GetPodByName(r.PathValue("namespace"), r.PathValue("pod"))
	if !ok {
		writeError(w, http.StatusNotFound, "pod does not exist")
		return
	}
	u, err := s.host.GetPortForward(r.Context(), pod)
	if err != nil {
		writeStreamingError(w, err)
		return
	}
	s.proxyStream(w, r, u)
}

// proxyStream relays the client's upgrade request to the runtime's
// streaming URL, dialled inside the node's network namespace.
func (s *Server) proxyStream(w http.ResponseWriter, r *http.Request, streamURL string) {
	u, err := url.Parse(streamURL)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !proxy.IsUpgrade(r) {
		writeError(w, http.StatusBadRequest, "Upgrade request required")
		return
	}
	dial := func() (net.Conn, error) { return s.dial(r.Context(), "tcp", u.Host) }
	if err := proxy.Upgrade(w, r, dial, u.Host, u.Path, u.RawQuery); err != nil {
		writeError(w, http.StatusInternalServerError, "error dialing backend: "+err.Error())
	}
}

// writeStreamingError maps a runtime error to an HTTP answer, as
// upstream's streaming.WriteError (NotFound → 404, ...).
func writeStreamingError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	msg := err.Error()
	if s, ok := status.FromError(err); ok {
		msg = s.Message()
		switch s.Code() {
		case codes.NotFound:
			code = http.StatusNotFound
		case codes.InvalidArgument:
			code = http.StatusBadRequest
		case codes.Unavailable:
			code = http.StatusServiceUnavailable
		}
	}
	writeError(w, code, strings.TrimSpace(msg))
}
