package ingress

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/networkingv1"
)

// backendServer answers "<name> <X-Forwarded-For> <X-Forwarded-Host> <X-Forwarded-Proto> <Host>".
func backendServer(t *testing.T, name string) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s %s %s %s", name, r.Header.Get("X-Forwarded-For"), r.Header.Get("X-Forwarded-Host"),
			r.Header.Get("X-Forwarded-Proto"), r.Host)
	}))
	t.Cleanup(s.Close)
	return strings.TrimPrefix(s.URL, "http://")
}

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// setEndpoints gives the fixture's Service name the endpoints addrs
// ("127.0.0.1:port": each its own slice, since a slice has one port).
func (f *fixture) setEndpoints(name string, addrs ...string) {
	f.service(name)
	var slices []*discoveryv1.EndpointSlice
	for _, a := range addrs {
		host, port, _ := net.SplitHostPort(a)
		var p int32
		fmt.Sscan(port, &p)
		slices = append(slices, &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4,
			Ports:     []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(p)}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{host}}}})
	}
	f.objs.EndpointSlices["ns/"+name] = slices
}

func get(t *testing.T, c *http.Client, url, host string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = host
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestProxy runs the proxy on loopback in front of loopback backends: the
// forwarded headers, 404 and 503 bodies, round robin, and a dead endpoint
// skipped for GET (not for POST).
func TestProxy(t *testing.T) {
	f := newFixture()
	a, b, dead := backendServer(t, "a"), backendServer(t, "b"), deadAddr(t)
	f.setEndpoints("ab", a, b)
	f.setEndpoints("flaky", dead, a)
	f.service("empty")
	f.ingress("ing", 0, "web.example", path{prefix, "/ab", "ab"}, path{prefix, "/flaky", "flaky"}, path{prefix, "/empty", "empty"})
	p, err := NewProxy(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	p.SetTable(NewTable(f.objs))
	srv := httptest.NewServer(p)
	defer srv.Close()
	c := srv.Client()

	code, body := get(t, c, srv.URL+"/ab/x", "web.example:30080")
	if f := strings.Fields(body); code != 200 || len(f) != 5 || f[1] != "127.0.0.1" || f[2] != "web.example:30080" || f[3] != "http" || f[4] != "web.example:30080" {
		t.Errorf("forwarded: %d %q", code, body)
	}
	seen := map[string]int{}
	for range 10 {
		_, body := get(t, c, srv.URL+"/ab", "web.example")
		seen[strings.Fields(body)[0]]++
	}
	if seen["a"] != 5 || seen["b"] != 5 {
		t.Errorf("round robin: %v", seen)
	}
	for range 4 {
		if code, body := get(t, c, srv.URL+"/flaky", "web.example"); code != 200 || !strings.HasPrefix(body, "a ") {
			t.Errorf("GET with a dead endpoint: %d %q", code, body)
		}
	}
	fails := 0
	for range 4 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/flaky", strings.NewReader("x"))
		req.Host = "web.example"
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusBadGateway {
			fails++
		}
		resp.Body.Close()
	}
	if fails != 2 {
		t.Errorf("POST with a body is not retried: %d of 4 failed, want 2", fails)
	}
	if code, body := get(t, c, srv.URL+"/empty", "web.example"); code != 503 || body != "503 Service Temporarily Unavailable: service ns/empty port 80 has no ready endpoints\n" {
		t.Errorf("no endpoints: %d %q", code, body)
	}
	if code, body := get(t, c, srv.URL+"/ab", "other.example"); code != 404 || body != "default backend - 404\n" {
		t.Errorf("no rule: %d %q", code, body)
	}
}

// TestProxyTLS serves HTTPS with the table's certificates: a client
// trusting the Secret's CA gets it for the host's SNI, and the fake
// certificate for a name no Secret covers; X-Forwarded-Proto is https.
func TestProxyTLS(t *testing.T) {
	f := newFixture()
	f.setEndpoints("a", backendServer(t, "a"))
	certPEM, keyPEM := selfSigned(t, "secure.example")
	f.objs.Secrets["ns/tls"] = &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM}}
	ing := f.ingress("ing", 0, "secure.example", path{prefix, "/", "a"})
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"secure.example"}, SecretName: "tls"}}
	p, err := NewProxy(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	p.SetTable(NewTable(f.objs))
	srv := httptest.NewUnstartedServer(p)
	srv.TLS = p.TLSConfig()
	srv.StartTLS()
	defer srv.Close()

	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "secure.example"}}}
	if code, body := get(t, c, srv.URL+"/", "secure.example"); code != 200 || strings.Fields(body)[3] != "https" {
		t.Errorf("https: %d %q", code, body)
	}
	conn, err := tls.Dial("tcp", strings.TrimPrefix(srv.URL, "https://"), &tls.Config{ServerName: "other.example", InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if cn := conn.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != "Kubernetes Ingress Controller Fake Certificate" {
		t.Errorf("unknown SNI: certificate %q", cn)
	}
}
