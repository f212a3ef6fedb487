package apiserver

// The pods' "connect" subresources, which the apiserver does not answer
// itself but passes on to the kubelet of the pod's node (its HTTPS API on
// port 10250), as upstream's pkg/registry/core/pod/rest/{log,subresources}.go:
//
//	GET  pods/<name>/log          → GET https://<node>:10250/containerLogs/<ns>/<pod>/<container>
//	POST pods/<name>/exec         → /exec/<ns>/<pod>/<container>?command=...   (SPDY upgrade)
//	POST pods/<name>/attach       → /attach/<ns>/<pod>/<container>
//	POST pods/<name>/portforward  → /portForward/<ns>/<pod>
//
// The apiserver authenticates to the kubelet with its own client
// certificate (user kube-apiserver-kubelet-client, allowed nodes/proxy by
// the ClusterRole system:kubelet-api-admin), so what a user may do is
// decided here, by RBAC on pods/log, pods/exec ..., not by the kubelet.
//
// Simplified: kubectl 1.30+ first tries exec, attach and port-forward over
// WebSocket (Upgrade: websocket, subprotocol v5.channel.k8s.io or
// SPDY/3.1+portforward.k8s.io); upstream's apiserver translates that to
// SPDY toward the kubelet. Kubik answers such a request 400, and kubectl
// silently falls back to SPDY, which is relayed as it is.

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/proxy"
)

// kubeletDialTimeout bounds connecting to a kubelet: an unreachable node
// gives an error, not a hang.
const kubeletDialTimeout = 10 * time.Second

// isPodConnect reports whether a request is for one of the subresources
// passed on to the kubelet. They are long-running (a followed log, an
// interactive shell): no request timeout applies.
func isPodConnect(res *scheme.Resource, subresource string) bool {
	if res.Group != "" || res.Resource != "pods" {
		return false
	}
	switch subresource {
	case "log", "exec", "attach", "portforward":
		return true
	}
	return false
}

// servePodConnect answers pods/<name>/{log,exec,attach,portforward}.
func (s *Server) servePodConnect(q *request) {
	var err error
	switch {
	case q.info.Subresource == "log" && q.info.Verb == "get":
		err = s.servePodLog(q)
	case q.info.Subresource != "log" && (q.r.Method == http.MethodGet || q.r.Method == http.MethodPost):
		err = s.servePodStream(q)
	default:
		err = methodNotAllowed()
	}
	if err != nil {
		writeStatus(q.w, q.r, err)
	}
}

// ---- logs ----

// servePodLog streams a container's log from the kubelet, flushing every
// write when following.
func (s *Server) servePodLog(q *request) error {
	ctx := q.r.Context()
	opts, err := podLogParams(q)
	if err != nil {
		return err
	}
	pod, err := s.getPod(ctx, q)
	if err != nil {
		return err
	}
	container, err := validateContainer(q.query("container"), pod)
	if err != nil {
		return err
	}
	if pod.Spec.NodeName == "" {
		// Not scheduled yet: no log anywhere. Upstream answers an empty log.
		q.w.Header().Set("Content-Type", "text/plain")
		q.w.WriteHeader(http.StatusOK)
		return nil
	}
	node, err := s.kubeletAddress(ctx, pod.Spec.NodeName)
	if err != nil {
		return err
	}
	loc := &url.URL{Scheme: "https", Host: node,
		Path:     fmt.Sprintf("/containerLogs/%s/%s/%s", pod.Namespace, pod.Name, container),
		RawQuery: opts.Encode()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		return ErrInternal(err)
	}
	resp, err := s.kubeletHTTPClient().Do(req)
	if err != nil {
		// `Get "https://127.0.0.1:10250/containerLogs/...": dial tcp ...: connect: connection refused`
		return newStatus(http.StatusInternalServerError, metav1.StatusReasonUnknown, err.Error(), nil)
	}
	defer resp.Body.Close()
	if err := kubeletResponseError(resp, "pods/log", pod.Name); err != nil {
		return err
	}
	q.w.Header().Set("Content-Type", "text/plain")
	q.w.WriteHeader(http.StatusOK)
	follow := opts.Get("follow") == "true"
	rc := http.NewResponseController(q.w)
	buf := make([]byte, 32*1024)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, err := q.w.Write(buf[:n]); err != nil {
				return nil // the client went away
			}
			if follow {
				rc.Flush()
			}
		}
		if rerr != nil {
			return nil // the kubelet ended the log (or the connection)
		}
	}
}

// podLogParams validates PodLogOptions from the query and returns the
// parameters for the kubelet (upstream's LogLocation).
func podLogParams(q *request) (url.Values, error) {
	in, out := q.r.URL.Query(), url.Values{}
	for _, name := range []string{"follow", "previous", "timestamps"} {
		if v := in.Get(name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, ErrBadRequest(fmt.Sprintf("%s: invalid value %q", name, v))
			}
			if b {
				out.Set(name, "true")
			}
		}
	}
	var causes []metav1.StatusCause
	var msgs []string
	invalid := func(field string, v int64, msg string) {
		m := fmt.Sprintf("Invalid value: %d: %s", v, msg)
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Message: m, Field: field})
		msgs = append(msgs, field+": "+m)
	}
	for _, name := range []string{"tailLines", "limitBytes", "sinceSeconds"} {
		v := in.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, ErrBadRequest(fmt.Sprintf("%s: invalid value %q", name, v))
		}
		switch {
		case name == "tailLines" && n < 0:
			invalid(name, n, "must be greater than or equal to 0")
		case name != "tailLines" && n < 1:
			invalid(name, n, "must be greater than 0")
		}
		out.Set(name, strconv.FormatInt(n, 10))
	}
	if v := in.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, ErrBadRequest(fmt.Sprintf("sinceTime: invalid value %q", v))
		}
		if in.Get("sinceSeconds") != "" {
			m := "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"
			causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeForbidden, Message: m})
			msgs = append(msgs, m)
		}
		out.Set("sinceTime", t.Format(time.RFC3339))
	}
	if len(causes) > 0 {
		return nil, ErrInvalid("", "PodLogOptions", q.info.Name, causes, joinErrs(msgs))
	}
	return out, nil
}

// joinErrs is upstream's aggregate of field errors: one is itself, several are "[a, b]".
func joinErrs(msgs []string) string {
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// kubeletResponseError turns a kubelet's error answer into the Status the
// client gets, as upstream's GenericHttpResponseChecker: 400 keeps the
// kubelet's text ("container \"x\" in pod \"y\" is waiting to start:
// ContainerCreating"), 500 is an internal error, others name the resource.
func kubeletResponseError(resp *http.Response, resource, name string) error {
	if resp.StatusCode >= 200 && resp.StatusCode <= 206 {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 50000))
	text := string(body)
	switch resp.StatusCode {
	case http.StatusInternalServerError:
		return ErrInternal(fmt.Errorf("%s", text))
	case http.StatusBadRequest:
		return ErrBadRequest(text)
	case http.StatusNotFound:
		return newStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
			fmt.Sprintf("the server could not find the requested resource ( %s %s)", resource, name),
			&metav1.StatusDetails{Kind: resource, Name: name})
	case http.StatusForbidden:
		return newStatus(http.StatusForbidden, metav1.StatusReasonForbidden,
			fmt.Sprintf("%s ( %s %s)", text, resource, name), &metav1.StatusDetails{Kind: resource, Name: name})
	case http.StatusUnauthorized:
		return newStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized,
			fmt.Sprintf("the server has asked for the client to provide credentials ( %s %s)", resource, name),
			&metav1.StatusDetails{Kind: resource, Name: name})
	}
	return newStatus(int32(resp.StatusCode), metav1.StatusReasonUnknown,
		fmt.Sprintf("the server responded with the status code %d but did not return more information ( %s %s)", resp.StatusCode, resource, name),
		&metav1.StatusDetails{Kind: resource, Name: name})
}

// ---- exec, attach, port-forward ----

// servePodStream relays an exec, attach or port-forward upgrade to the
// kubelet, which relays it to the container runtime.
func (s *Server) servePodStream(q *request) error {
	ctx := q.r.Context()
	if strings.EqualFold(q.r.Header.Get("Upgrade"), "websocket") {
		// See the file comment: kubectl falls back to SPDY on any non-101 answer.
		return ErrBadRequest("WebSocket streaming is not supported by this server; use SPDY/3.1")
	}
	pod, err := s.getPod(ctx, q)
	if err != nil {
		return err
	}
	params := url.Values{}
	var path string
	if q.info.Subresource == "portforward" {
		if ports := q.r.URL.Query()["ports"]; len(ports) > 0 {
			params.Set("port", strings.Join(ports, ","))
		}
		path = fmt.Sprintf("/portForward/%s/%s", pod.Namespace, pod.Name)
	} else {
		container, err := validateContainer(q.query("container"), pod)
		if err != nil {
			return err
		}
		// The kubelet's names for the streams (core/v1 ExecStdinParam,
		// ExecStdoutParam, ExecStderrParam, ExecTTYParam).
		for name, kubelet := range map[string]string{"stdin": "input", "stdout": "output", "stderr": "error", "tty": "tty"} {
			if b, _ := strconv.ParseBool(q.query(name)); b {
				params.Set(kubelet, "1")
			}
		}
		if q.info.Subresource == "exec" {
			command := q.r.URL.Query()["command"]
			if len(command) == 0 {
				return ErrBadRequest("you must specify at least 1 command")
			}
			params["command"] = command
		}
		path = fmt.Sprintf("/%s/%s/%s/%s", q.info.Subresource, pod.Namespace, pod.Name, container)
	}
	if pod.Spec.NodeName == "" {
		return ErrBadRequest(fmt.Sprintf("pod %s does not have a host assigned", pod.Name))
	}
	addr, err := s.kubeletAddress(ctx, pod.Spec.NodeName)
	if err != nil {
		return err
	}
	if !proxy.IsUpgrade(q.r) {
		return ErrBadRequest("Upgrade request required")
	}
	dial := func() (net.Conn, error) {
		d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: kubeletDialTimeout}, Config: s.kubeletTLSConfig()}
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("error dialing backend: %w", err)
		}
		return c, nil
	}
	if err := proxy.Upgrade(q.w, q.r, dial, addr, path, params.Encode()); err != nil {
		// `Error from server: error dialing backend: dial tcp ...: connect: connection refused`
		return newStatus(http.StatusInternalServerError, metav1.StatusReasonUnknown, err.Error(), nil)
	}
	return nil
}

// ---- helpers ----

func (s *Server) getPod(ctx context.Context, q *request) (*corev1.Pod, error) {
	obj, err := s.getObject(ctx, q.res, q.info.Namespace, q.info.Name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}

// validateContainer picks the container a request is about, with
// upstream's messages (pkg/registry/core/pod/strategy.go).
func validateContainer(container string, pod *corev1.Pod) (string, error) {
	var names []string
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			names = append(names, c.Name)
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name)
	}
	if container == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return pod.Spec.Containers[0].Name, nil
		case 0:
			return "", ErrBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
		default:
			return "", ErrBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", pod.Name, names))
		}
	}
	for _, n := range names {
		if n == container {
			return container, nil
		}
	}
	return "", ErrBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod.Name))
}

// kubeletAddress is host:port of the kubelet of node: its first
// InternalIP, ExternalIP or Hostname address (kubeadm's
// --kubelet-preferred-address-types) and its daemon endpoint's port.
//
// Two rules keep the apiserver from dialing where it should not: only an
// address that is an IP is dialed — a hostname would be looked up in the
// machine's DNS and could lead anywhere — and a node that reports no
// kubelet port (chapter 3's hollow nodes: nothing runs there) is not
// dialed at all. Upstream falls back to port 10250 and resolves names.
func (s *Server) kubeletAddress(ctx context.Context, nodeName string) (string, error) {
	res := scheme.Lookup("", "v1", "nodes")
	obj, err := s.getObject(ctx, res, "", nodeName)
	if err != nil {
		return "", err
	}
	node := obj.(*corev1.Node)
	port := int(node.Status.DaemonEndpoints.KubeletEndpoint.Port)
	if port <= 0 {
		return "", ErrBadRequest(fmt.Sprintf("node %q reports no kubelet endpoint (status.daemonEndpoints.kubeletEndpoint.Port is 0): nothing on it answers for its pods", nodeName))
	}
	for _, t := range []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeExternalIP, corev1.NodeHostName} {
		for _, a := range node.Status.Addresses {
			if a.Type != t || a.Address == "" {
				continue
			}
			if _, err := netip.ParseAddr(a.Address); err != nil {
				continue // a name, never looked up
			}
			return net.JoinHostPort(a.Address, strconv.Itoa(port)), nil
		}
	}
	return "", ErrBadRequest(fmt.Sprintf("no preferred addresses found; known addresses: %v", node.Status.Addresses))
}

// kubeletTLSConfig presents the apiserver's kubelet client certificate
// and verifies the kubelet's serving certificate against
// --kubelet-certificate-authority; without one, as upstream, it does not.
func (s *Server) kubeletTLSConfig() *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	if s.cfg.KubeletClientCert != nil {
		cfg.Certificates = []tls.Certificate{*s.cfg.KubeletClientCert}
	}
	if s.cfg.KubeletCA != nil {
		cfg.RootCAs = s.cfg.KubeletCA
	} else {
		cfg.InsecureSkipVerify = true
	}
	return cfg
}

func (s *Server) kubeletHTTPClient() *http.Client {
	s.kubeletOnce.Do(func() {
		s.kubeletClient = &http.Client{Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: kubeletDialTimeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSClientConfig:     s.kubeletTLSConfig(),
			TLSHandshakeTimeout: kubeletDialTimeout,
			MaxIdleConnsPerHost: 10,
		}}
	})
	return s.kubeletClient
}
