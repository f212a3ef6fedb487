package prober

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	grpchealth "google.golang.org/grpc/health/grpc_health_v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch05-kubelet/kubelet/probe"
)

// A test server on loopback stands in for the pod: the prober's nil
// DialFunc dials from where the test runs.
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
		want    probe.Result
		wantOut string
	}{
		{"/healthz", intstr.FromInt(port), probe.Success, "ok"},
		{"/healthz", intstr.FromString("http"), probe.Success, "ok"}, // the container's port by name
		{"/broken", intstr.FromInt(port), probe.Failure, "HTTP probe failed with statuscode: 500"},
		{"/away", intstr.FromInt(port), probe.Warning, "Probe terminated redirects, Response body: "},
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
	if got, _, err := pb.runProbe(context.Background(), p, pod, host, c, "c1"); got != probe.Unknown || err == nil {
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
	if got, out, err := pb.runProbe(context.Background(), p, &corev1.Pod{}, "127.0.0.1", corev1.Container{}, "c1"); got != probe.Success || err != nil {
		t.Errorf("listening: %v %q %v", got, out, err)
	}
	l.Close()
	got, out, err := pb.runProbe(context.Background(), p, &corev1.Pod{}, "127.0.0.1", corev1.Container{}, "c1")
	if got != probe.Failure || err != nil || !strings.Contains(out, "connection refused") {
		t.Errorf("closed: %v %q %v, want failure: connection refused", got, out, err)
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
		want    probe.Result
		wantOut string
	}{
		{"", probe.Success, "service healthy"},
		{"db", probe.Failure, `service unhealthy (responded with "NOT_SERVING")`},
	} {
		p := &corev1.Probe{TimeoutSeconds: 2, ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: port, Service: &tc.service}}}
		got, out, err := pb.runProbe(context.Background(), p, &corev1.Pod{}, "127.0.0.1", corev1.Container{}, "c1")
		if got != tc.want || out != tc.wantOut || err != nil {
			t.Errorf("service %q: %v %q %v, want %v %q", tc.service, got, out, err, tc.want, tc.wantOut)
		}
	}
}
