package kubelet

// exec, attach and port-forward. The kubelet does not run the streams
// itself: it asks the runtime for a one-time streaming URL (CRI Exec,
// Attach, PortForward), then relays the client's SPDY upgrade to that URL,
// as upstream's kubelet does (pkg/kubelet/server/server.go proxyStream).
// containerd's streaming server listens on 127.0.0.1:<random port> inside
// the node's network namespace, so the kubelet dials it from there.
//
//	kubectl ──SPDY──▶ apiserver ──TLS──▶ kubelet ──▶ containerd streaming server ──▶ runc exec
//	          (relayed byte for byte after "101 Switching Protocols")

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/apiserver/proxy"
)

// streamOptions are the query of /exec and /attach ("1" or "true").
type streamOptions struct {
	stdin, stdout, stderr, tty bool
}

func parseStreamOptions(q url.Values) streamOptions {
	b := func(k string) bool { v, _ := strconv.ParseBool(q.Get(k)); return v }
	return streamOptions{stdin: b("stdin"), stdout: b("stdout"), stderr: b("stderr"), tty: b("tty")}
}

// serveExec: /exec/<ns>/<pod>/<container>?command=...&stdin=1...
func (k *Kubelet) serveExec(w http.ResponseWriter, r *http.Request) {
	k.serveContainerStream(w, r, func(ctx context.Context, id string, o streamOptions) (string, error) {
		cmd := r.URL.Query()["command"]
		if len(cmd) == 0 {
			return "", fmt.Errorf("missing command")
		}
		resp, err := k.rt.Exec(ctx, &cri.ExecRequest{ContainerId: id, Cmd: cmd,
			Tty: o.tty, Stdin: o.stdin, Stdout: o.stdout, Stderr: o.stderr && !o.tty})
		return resp.GetUrl(), err
	})
}

// serveAttach: /attach/<ns>/<pod>/<container>?stdin=1...
func (k *Kubelet) serveAttach(w http.ResponseWriter, r *http.Request) {
	k.serveContainerStream(w, r, func(ctx context.Context, id string, o streamOptions) (string, error) {
		resp, err := k.rt.Attach(ctx, &cri.AttachRequest{ContainerId: id,
			Tty: o.tty, Stdin: o.stdin, Stdout: o.stdout, Stderr: o.stderr && !o.tty})
		return resp.GetUrl(), err
	})
}

// serveContainerStream finds the running container and relays the
// upgrade to the URL getURL obtains from the runtime.
func (k *Kubelet) serveContainerStream(w http.ResponseWriter, r *http.Request,
	getURL func(ctx context.Context, id string, o streamOptions) (string, error)) {
	pod, ok := k.podByName(r.PathValue("namespace"), r.PathValue("pod"))
	if !ok {
		writeError(w, http.StatusNotFound, "pod does not exist")
		return
	}
	name := r.PathValue("container")
	id, err := k.runningContainer(r.Context(), pod.UID, name)
	if err != nil {
		writeStreamingError(w, err)
		return
	}
	o := parseStreamOptions(r.URL.Query())
	if !o.stdin && !o.stdout && !o.stderr {
		writeError(w, http.StatusBadRequest, "you must specify at least 1 of stdin, stdout, stderr")
		return
	}
	u, err := getURL(r.Context(), id, o)
	if err != nil {
		writeStreamingError(w, err)
		return
	}
	k.proxyStream(w, r, u)
}

// servePortForward: /portForward/<ns>/<pod>; the ports travel in the
// SPDY streams' headers, so the runtime's URL is for the whole sandbox.
func (k *Kubelet) servePortForward(w http.ResponseWriter, r *http.Request) {
	pod, ok := k.podByName(r.PathValue("namespace"), r.PathValue("pod"))
	if !ok {
		writeError(w, http.StatusNotFound, "pod does not exist")
		return
	}
	sbs, err := k.sandboxes(r.Context(), pod.UID)
	if err != nil || len(sbs) == 0 || sbs[0].State != cri.PodSandboxState_SANDBOX_READY {
		writeError(w, http.StatusNotFound, fmt.Sprintf("pod not found (%q)", pod.Namespace+"/"+pod.Name))
		return
	}
	resp, err := k.rt.PortForward(r.Context(), &cri.PortForwardRequest{PodSandboxId: sbs[0].Id})
	if err != nil {
		writeStreamingError(w, err)
		return
	}
	k.proxyStream(w, r, resp.Url)
}

// runningContainer is the ID of the running container name of pod uid.
func (k *Kubelet) runningContainer(ctx context.Context, uid, name string) (string, error) {
	list, err := k.rt.ListContainers(ctx, &cri.ListContainersRequest{Filter: &cri.ContainerFilter{
		State:         &cri.ContainerStateValue{State: cri.ContainerState_CONTAINER_RUNNING},
		LabelSelector: map[string]string{labelPodUID: uid, labelContainerName: name}}})
	if err != nil {
		return "", err
	}
	if len(list.Containers) == 0 {
		return "", fmt.Errorf("container not found (%q)", name)
	}
	return list.Containers[0].Id, nil
}

// proxyStream relays the client's upgrade request to the runtime's
// streaming URL, dialled inside the node's network namespace.
func (k *Kubelet) proxyStream(w http.ResponseWriter, r *http.Request, streamURL string) {
	u, err := url.Parse(streamURL)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !proxy.IsUpgrade(r) {
		writeError(w, http.StatusBadRequest, "Upgrade request required")
		return
	}
	dial := func() (net.Conn, error) { return dialInNetNS(r.Context(), k.cfg.NetNS, "tcp", u.Host) }
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
