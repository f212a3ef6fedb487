package kubelet

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	grpchealth "google.golang.org/grpc/health/grpc_health_v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
)

// A test server on loopback stands in for the pod: nsPath "" dials from
// where the test runs.
func probeServer(t *testing.T) (host string, port int, seen chan http.Header) {
	t.Helper()
	seen = make(chan http.Header, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header
		switch r.URL.Path {
		case "/healthz":
			w.Write([]byte("ok"))
		case "/away":
			http.Redirect(w, r, "http://example.invalid/", http.StatusFound)
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	port, _ = strconv.Atoi(u.Port())
	return u.Hostname(), port, seen
}

func TestHTTPGetProbe(t *testing.T) {
	host, port, seen := probeServer(t)
	pb := &prober{event: func(*corev1.Pod, corev1.Container, string, string, string, ...any) {}}
	c := corev1.Container{Name: "web", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: int32(port)}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u"}}
	for _, tc := range []struct {
		path    string
		port    intstr.IntOrString
		want    probeResult
		wantOut string
	}{
		{"/healthz", intstr.FromInt(port), probeSuccess, "ok"},
		{"/healthz", intstr.FromString("http"), probeSuccess, "ok"}, // the container's port by name
		{"/broken", intstr.FromInt(port), probeFailure, "HTTP probe failed with statuscode: 500"},
		{"/away", intstr.FromInt(port), probeWarning, "Probe terminated redirects, Response body: "},
	} {
		p := &corev1.Probe{TimeoutSeconds: 1, ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: tc.path, Port: tc.port, HTTPHeaders: []corev1.HTTPHeader{{Name: "X-Custom", Value: "yes"}}}}}
		// The host defaults to the pod's IP: here the test server's.
		got, out, err := pb.runProbe(context.Background(), p, pod, host, c, "c1")
		if err != nil || got != tc.want || !strings.HasPrefix(out, tc.wantOut) {
			t.Errorf("GET %s (port %v): %v %q %v; want %v %q", tc.path, tc.port, got, out, err, tc.want, tc.wantOut)
		}
		h := <-seen
		if h.Get("User-Agent") != "kube-probe/1.35" || h.Get("X-Custom") != "yes" || h.Get("Accept") != "*/*" {
			t.Errorf("request headers %v", h)
		}
	}
	// An unknown port name: the probe cannot run.
	p := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString("nope")}}}
	if got, _, err := pb.runProbe(context.Background(), p, pod, host, c, "c1"); got != probeUnknown || err == nil {
		t.Errorf("unknown port name: %v %v, want unknown and an error", got, err)
	}
}

func TestTCPSocketProbe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	pb := &prober{}
	p := &corev1.Probe{TimeoutSeconds: 1, ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt(port)}}}
	if got, out, err := pb.runProbe(context.Background(), p, &corev1.Pod{}, "127.0.0.1", corev1.Container{}, "c1"); got != probeSuccess || err != nil {
		t.Errorf("listening: %v %q %v", got, out, err)
	}
	l.Close()
	got, out, err := pb.runProbe(context.Background(), p, &corev1.Pod{}, "127.0.0.1", corev1.Container{}, "c1")
	if got != probeFailure || err != nil || !strings.Contains(out, "connection refused") {
		t.Errorf("closed: %v %q %v, want failure: connection refused", got, out, err)
	}
}

func TestLifecycleHooks(t *testing.T) {
	host, port, seen := probeServer(t)
	var ran []string
	hr := handlerRunner{run: func(_ context.Context, id string, cmd []string, timeout time.Duration) ([]byte, error) {
		ran = append(ran, id+": "+strings.Join(cmd, " "))
		if cmd[0] == "false" {
			return []byte("boom"), &exitError{Code: 1, err: errors.New("command 'false' exited with 1: boom")}
		}
		return nil, nil
	}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u"}}
	c := &corev1.Container{Name: "web"}

	if msg, err := hr.runHook(context.Background(), pod, c, "c1", host, &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}); err != nil || msg != "" {
		t.Errorf("exec true: %q %v", msg, err)
	}
	msg, err := hr.runHook(context.Background(), pod, c, "c1", host, &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"false"}}})
	want := `Exec lifecycle hook ([false]) for Container "web" in Pod "p_default(u)" failed - error: command 'false' exited with 1: boom, message: "boom"`
	if err == nil || msg != want {
		t.Errorf("exec false:\n got %q\nwant %q", msg, want)
	}
	if len(ran) != 2 || ran[0] != "c1: true" {
		t.Errorf("commands run: %q", ran)
	}

	// An HTTP hook fails only when the request does: a 500 is fine.
	if msg, err := hr.runHook(context.Background(), pod, c, "c1", host, &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: "/broken", Port: intstr.FromInt(port)}}); err != nil || msg != "" {
		t.Errorf("http hook: %q %v", msg, err)
	}
	if h := <-seen; h.Get("User-Agent") != "kube-lifecycle/1.35" {
		t.Errorf("hook User-Agent %q", h.Get("User-Agent"))
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().(*net.TCPAddr).Port
	l.Close()
	msg, err = hr.runHook(context.Background(), pod, c, "c1", "127.0.0.1", &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: "/bye", Port: intstr.FromInt(closed)}})
	if err == nil || !strings.HasPrefix(msg, `HTTP lifecycle hook (/bye) for Container "web" in Pod "p_default(u)" failed - error: Get "http://127.0.0.1:`) {
		t.Errorf("http hook to a closed port: %q %v", msg, err)
	}
}

// The container status follows the probes: ready and started as they say.
func TestContainerStatusFromProbes(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "busybox:1.35"}}}}
	obs := observedPod{SandboxReady: true, Containers: map[string][]observedContainer{"web": {{ID: "c1", Name: "web", State: stateRunning}}},
		Probed: map[string]probedContainer{"c1": {Started: true, Ready: false}}}
	st := podStatus(pod, obs, "127.0.0.1", metav1.Now())
	cs := st.ContainerStatuses[0]
	if cs.Ready || !*cs.Started {
		t.Errorf("container status ready=%v started=%v, want false true", cs.Ready, *cs.Started)
	}
	for _, c := range st.Conditions {
		if (c.Type == corev1.PodReady || c.Type == corev1.ContainersReady) &&
			(c.Status != corev1.ConditionFalse || c.Reason != "ContainersNotReady" || c.Message != "containers with unready status: [web]") {
			t.Errorf("condition %+v", c)
		}
	}
	obs.Probed["c1"] = probedContainer{Started: true, Ready: true}
	if st := podStatus(pod, obs, "127.0.0.1", metav1.Now()); !st.ContainerStatuses[0].Ready {
		t.Error("readiness succeeded, the container is not ready")
	}
}

func TestGRPCProbe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus("db", grpchealth.HealthCheckResponse_NOT_SERVING)
	grpchealth.RegisterHealthServer(srv, hs)
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	port := int32(l.Addr().(*net.TCPAddr).Port)
	pb := &prober{}
	for _, tc := range []struct {
		service string
		want    probeResult
		wantOut string
	}{
		{"", probeSuccess, "service healthy"},
		{"db", probeFailure, `service unhealthy (responded with "NOT_SERVING")`},
	} {
		p := &corev1.Probe{TimeoutSeconds: 2, ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: port, Service: &tc.service}}}
		got, out, err := pb.runProbe(context.Background(), p, &corev1.Pod{}, "127.0.0.1", corev1.Container{}, "c1")
		if got != tc.want || out != tc.wantOut || err != nil {
			t.Errorf("service %q: %v %q %v, want %v %q", tc.service, got, out, err, tc.want, tc.wantOut)
		}
	}
}
