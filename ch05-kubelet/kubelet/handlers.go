package kubelet

// The actions probes and lifecycle hooks share (upstream's pkg/probe/exec,
// pkg/probe/http, pkg/probe/tcp and the handler runner of
// pkg/kubelet/lifecycle/handlers.go): run a command in the container
// through the CRI's ExecSync, GET a URL, open a TCP connection. Connections
// go to the pod's IP, which only the node's network namespace reaches:
// every dial goes through dialInNetNS. (gRPC probes are here too: only
// probes use them.)

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	grpchealth "google.golang.org/grpc/health/grpc_health_v1"
	grpcstatus "google.golang.org/grpc/status"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
)

// probeUserAgentVersion is the version in the User-Agent of probes and
// hooks: kube-probe/1.35, kube-lifecycle/1.35, as upstream's kubelet 1.35.
const probeUserAgentVersion = "1.35"

// maxRespBodyLength is how much of a response body a probe reads (10 KiB).
const maxRespBodyLength = 10 * 1 << 10

// runtimeRequestTimeout is upstream's --runtime-request-timeout: the time
// a CRI call may take on top of an exec's own timeout.
const runtimeRequestTimeout = 2 * time.Minute

// errCommandTimedOut is the runtime's exec timing out (upstream's
// remote.ErrCommandTimedOut).
var errCommandTimedOut = errors.New("command timed out")

// exitError is a command in a container that exited non-zero (upstream's
// utilexec.CodeExitError).
type exitError struct {
	Code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// commandRunner runs cmd in a container and returns its stdout followed by
// its stderr (upstream's kubecontainer.CommandRunner). A timeout of 0
// means none.
type commandRunner func(ctx context.Context, containerID string, cmd []string, timeout time.Duration) ([]byte, error)

// runInContainer is the kubelet's commandRunner: the CRI's ExecSync, which
// the runtime runs next to the container's process (same namespaces and
// cgroup), waiting for its exit. The runtime kills it after timeout.
func (k *Kubelet) runInContainer(ctx context.Context, containerID string, cmd []string, timeout time.Duration) ([]byte, error) {
	var cancel context.CancelFunc
	if timeout != 0 {
		ctx, cancel = context.WithTimeout(ctx, runtimeRequestTimeout+timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	resp, err := k.rt.ExecSync(ctx, &cri.ExecSyncRequest{ContainerId: containerID, Cmd: cmd, Timeout: int64(timeout.Seconds())})
	if err != nil {
		if grpcstatus.Code(err) == codes.DeadlineExceeded {
			return nil, fmt.Errorf("%w: %q timed out after %s", errCommandTimedOut, strings.Join(cmd, " "), timeout)
		}
		return nil, err
	}
	out := append(resp.Stdout, resp.Stderr...)
	if resp.ExitCode != 0 {
		return out, &exitError{Code: int(resp.ExitCode),
			err: fmt.Errorf("command '%s' exited with %d: %s", strings.Join(cmd, " "), resp.ExitCode, resp.Stderr)}
	}
	return out, nil
}

// resolveContainerPort is a port by number, or by the name of one of the
// container's ports (upstream's probe.ResolveContainerPort).
func resolveContainerPort(param intstr.IntOrString, c *corev1.Container) (int, error) {
	port := -1
	var err error
	switch param.Type {
	case intstr.Int:
		port = int(param.IntVal)
	case intstr.String:
		if port, err = findPortByName(c, param.StrVal); err != nil {
			// Last ditch effort - maybe it was an int stored as string?
			if port, err = strconv.Atoi(param.StrVal); err != nil {
				return port, err
			}
		}
	default:
		return port, fmt.Errorf("intOrString had no kind: %+v", param)
	}
	if port > 0 && port < 65536 {
		return port, nil
	}
	return port, fmt.Errorf("invalid port number: %v", port)
}

func findPortByName(c *corev1.Container, name string) (int, error) {
	for _, p := range c.Ports {
		if p.Name == name {
			return int(p.ContainerPort), nil
		}
	}
	return 0, fmt.Errorf("port %s not found", name)
}

// newRequestForHTTPGetAction is the GET an httpGet probe or hook sends:
// scheme (default http), host (default the pod's IP), the port resolved,
// the path, the user's headers, and User-Agent kube-<purpose>/1.35 unless
// the user set one (upstream's httpprobe.NewRequestForHTTPGetAction).
func newRequestForHTTPGetAction(ctx context.Context, g *corev1.HTTPGetAction, c *corev1.Container, podIP, purpose string) (*http.Request, error) {
	scheme := strings.ToLower(string(g.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	host := g.Host
	if host == "" {
		host = podIP
	}
	port, err := resolveContainerPort(g.Port, c)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(g.Path)
	if err != nil {
		u = &url.URL{Path: g.Path}
	}
	u.Scheme, u.Host = scheme, net.JoinHostPort(host, strconv.Itoa(port))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	headers := http.Header{}
	for _, h := range g.HTTPHeaders {
		headers.Add(h.Name, h.Value)
	}
	if _, ok := headers["User-Agent"]; !ok {
		headers.Set("User-Agent", "kube-"+purpose+"/"+probeUserAgentVersion)
	}
	if _, ok := headers["Accept"]; !ok {
		headers.Set("Accept", "*/*")
	} else if headers.Get("Accept") == "" {
		headers.Del("Accept")
	}
	req.Header = headers
	req.Host = headers.Get("Host")
	return req, nil
}

// httpClient GETs from inside the network namespace nsPath, without
// keep-alives or proxies, trusting any certificate (the kubelet cannot
// verify a pod's), following redirects only on the same host. A timeout
// of 0 means none (lifecycle hooks).
func httpClient(nsPath string, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			TLSClientConfig:    &tls.Config{InsecureSkipVerify: true},
			DisableKeepAlives:  true,
			DisableCompression: true, // no Accept-Encoding header
			Proxy:              http.ProxyURL(nil),
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				return dialInNetNS(ctx, nsPath, network, addr)
			},
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Hostname() != via[0].URL.Hostname() {
				return http.ErrUseLastResponse
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}
}

// doHTTPProbe sends req: a status 200-299 succeeds, 300-399 (a redirect
// not followed) succeeds with a warning, anything else fails with
// upstream's words (pkg/probe/http.DoHTTPProbe).
func doHTTPProbe(req *http.Request, c *http.Client) (probeResult, string, error) {
	res, err := c.Do(req)
	if err != nil {
		return probeFailure, err.Error(), nil
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxRespBodyLength))
	if err != nil {
		return probeFailure, "", err
	}
	body := string(b)
	if res.StatusCode >= http.StatusOK && res.StatusCode < http.StatusBadRequest {
		if res.StatusCode >= http.StatusMultipleChoices {
			return probeWarning, "Probe terminated redirects, Response body: " + body, nil
		}
		return probeSuccess, body, nil
	}
	return probeFailure, fmt.Sprintf("HTTP probe failed with statuscode: %d", res.StatusCode), nil
}

// doTCPProbe succeeds when a TCP connection to addr opens within timeout
// (pkg/probe/tcp.DoTCPProbe); the dial error is the failure's output.
func doTCPProbe(ctx context.Context, nsPath, addr string, timeout time.Duration) (probeResult, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dialInNetNS(ctx, nsPath, "tcp", addr)
	if err != nil {
		return probeFailure, err.Error(), nil
	}
	conn.Close()
	return probeSuccess, "", nil
}

// doGRPCProbe asks the gRPC health service at addr about service
// (grpc.health.v1.Health/Check, pkg/probe/grpc): SERVING succeeds, any
// other answer or error fails, with upstream's words. The connection is
// plaintext, as upstream's.
func doGRPCProbe(ctx context.Context, nsPath, addr, service string, timeout time.Duration) (probeResult, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithUserAgent("kube-probe/"+probeUserAgentVersion),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return dialInNetNS(ctx, nsPath, "tcp", addr)
		}))
	if err != nil {
		return probeFailure, fmt.Sprintf("error: failed to connect service at %q: %+v", addr, err), nil
	}
	defer conn.Close()
	resp, err := grpchealth.NewHealthClient(conn).Check(ctx, &grpchealth.HealthCheckRequest{Service: service})
	if err != nil {
		switch st, _ := grpcstatus.FromError(err); st.Code() {
		case codes.Unimplemented:
			return probeFailure, "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): " + st.Message(), nil
		case codes.DeadlineExceeded:
			return probeFailure, fmt.Sprintf("timeout: health rpc did not complete within %v", timeout), nil
		}
		return probeFailure, fmt.Sprintf("error: health rpc probe failed: %+v", err), nil
	}
	if resp.GetStatus() != grpchealth.HealthCheckResponse_SERVING {
		return probeFailure, fmt.Sprintf("service unhealthy (responded with %q)", resp.GetStatus().String()), nil
	}
	return probeSuccess, "service healthy", nil
}

// handlerRunner runs lifecycle hooks (upstream's lifecycle.handlerRunner);
// the prober uses the same runner and dialing.
type handlerRunner struct {
	run    commandRunner
	nsPath string // the node's network namespace: where pod IPs are reachable
}

// runHook runs a postStart or preStop handler of container c (its ID
// containerID) of pod, whose IP is podIP. The message explains a failure
// with upstream's words; it goes to the container's status, not to events
// (it may hold secrets).
func (hr handlerRunner) runHook(ctx context.Context, pod *corev1.Pod, c *corev1.Container, containerID, podIP string, h *corev1.LifecycleHandler) (string, error) {
	switch {
	case h.Exec != nil:
		output, err := hr.run(ctx, containerID, h.Exec.Command, 0)
		if err != nil {
			return fmt.Sprintf("Exec lifecycle hook (%v) for Container %q in Pod %q failed - error: %v, message: %q",
				h.Exec.Command, c.Name, podRef(pod), err, string(output)), err
		}
		return "", nil
	case h.HTTPGet != nil:
		if err := hr.runHTTPHook(ctx, c, podIP, h.HTTPGet); err != nil {
			return fmt.Sprintf("HTTP lifecycle hook (%s) for Container %q in Pod %q failed - error: %v",
				h.HTTPGet.Path, c.Name, podRef(pod), err), err
		}
		return "", nil
	case h.Sleep != nil:
		select {
		case <-ctx.Done():
			err := errors.New("container terminated before sleep hook finished")
			return fmt.Sprintf("Sleep lifecycle hook (%d) for Container %q in Pod %q failed - error: %v",
				h.Sleep.Seconds, c.Name, podRef(pod), err), err
		case <-time.After(time.Duration(h.Sleep.Seconds) * time.Second):
			return "", nil
		}
	}
	err := fmt.Errorf("invalid handler: %v", h)
	return fmt.Sprintf("Cannot run handler: %v", err), err
}

// runHTTPHook GETs the hook's URL. Only a failed request fails the hook:
// the status code does not matter, as upstream's runHTTPHandler.
func (hr handlerRunner) runHTTPHook(ctx context.Context, c *corev1.Container, podIP string, g *corev1.HTTPGetAction) error {
	if g.Host == "" && podIP == "" {
		return errors.New("failed to find networking container: the pod has no IP")
	}
	req, err := newRequestForHTTPGetAction(ctx, g, c, podIP, "lifecycle")
	if err != nil {
		return err
	}
	resp, err := httpClient(hr.nsPath, 0).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxRespBodyLength))
	return nil
}
