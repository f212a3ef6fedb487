package healthcheck

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch07-kube-proxy/proxy"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

func freePort(t *testing.T) uint16 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestServiceHealthServer: a health-check node port answers 503 without
// local endpoints and 200 with them, with upstream's headers and body,
// and closes when the Service goes away.
func TestServiceHealthServer(t *testing.T) {
	hz := NewProxyHealthServer("127.0.0.1:0", time.Minute, nil)
	hz.Updated(corev1.IPv4Protocol)
	// Listen on 127.0.0.1 only (--nodeport-addresses), not on every address.
	npa := proxyutil.NewNodePortAddresses(corev1.IPv4Protocol, []string{"127.0.0.1/32"})
	hcs := NewServiceHealthServer("node-1", npa, hz, slog.New(slog.DiscardHandler))
	port := freePort(t)
	nsn := proxy.NamespacedName{Namespace: "ns", Name: "web"}
	if err := hcs.SyncServices(map[proxy.NamespacedName]uint16{nsn: port}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hcs.SyncServices(nil) })
	url := "http://127.0.0.1:" + strconv.Itoa(int(port)) + "/"

	resp, body := get(t, url)
	want := "{\n\t\"service\": {\n\t\t\"namespace\": \"ns\",\n\t\t\"name\": \"web\"\n\t},\n\t\"localEndpoints\": 0,\n\t\"serviceProxyHealthy\": true\n}"
	if resp.StatusCode != http.StatusServiceUnavailable || body != want ||
		resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
		resp.Header.Get("X-Load-Balancing-Endpoint-Weight") != "0" {
		t.Errorf("without endpoints: %d %v\n%s", resp.StatusCode, resp.Header, body)
	}

	_ = hcs.SyncEndpoints(map[proxy.NamespacedName]int{nsn: 2})
	resp, body = get(t, url)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Load-Balancing-Endpoint-Weight") != "2" {
		t.Errorf("with endpoints: %d %v\n%s", resp.StatusCode, resp.Header, body)
	}

	_ = hcs.SyncServices(nil)
	if _, err := http.Get(url); err == nil {
		t.Error("the health check still answers after its Service went away")
	}
}

// TestProxyHealthz: /healthz and /livez answer 200 while syncs keep up and
// 503 when a queued change waited longer than the timeout; /healthz also
// needs an eligible Node.
func TestProxyHealthz(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var node *corev1.Node
	hs := NewProxyHealthServer("127.0.0.1:0", 10*time.Second, func() *corev1.Node { return node })
	hs.now = func() time.Time { return now }
	srv := httptest.NewServer(hs.Handler())
	t.Cleanup(srv.Close)

	check := func(path string, wantCode int, wantHealthy bool) ProxyHealth {
		t.Helper()
		resp, body := get(t, srv.URL+path)
		var h ProxyHealth
		if err := json.Unmarshal([]byte(body), &h); err != nil {
			t.Fatalf("%s: %v: %s", path, err, body)
		}
		if resp.StatusCode != wantCode || h.Healthy != wantHealthy || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %s, want %d healthy=%v", path, resp.StatusCode, body, wantCode, wantHealthy)
		}
		return h
	}

	hs.Updated(corev1.IPv4Protocol)
	check("/livez", 200, true)
	// No Node yet: not eligible.
	if h := check("/healthz", 503, true); h.NodeEligible == nil || *h.NodeEligible {
		t.Errorf("nodeEligible = %v without a Node", h.NodeEligible)
	}
	node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	check("/healthz", 200, true)

	// A change queued and not synced for longer than the timeout.
	hs.QueuedUpdate(corev1.IPv4Protocol)
	now = now.Add(11 * time.Second)
	check("/livez", 503, false)
	check("/healthz", 503, false)
	hs.Updated(corev1.IPv4Protocol)
	check("/healthz", 200, true)

	// A node being removed by the autoscaler.
	node.Spec.Taints = []corev1.Taint{{Key: ToBeDeletedTaint, Effect: corev1.TaintEffectNoSchedule}}
	check("/healthz", 503, true)
	check("/livez", 200, true)
}
