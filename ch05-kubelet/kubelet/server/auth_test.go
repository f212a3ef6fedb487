package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/storage"
	"kubik/ch03-scheduler/clientgo/rest"
)

func TestRequestAttributes(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		verb         string
		subresources []string
	}{
		{"GET", "/containerLogs/default/web/web", "get", []string{"proxy"}},
		{"POST", "/exec/default/web/web", "create", []string{"proxy"}},
		{"GET", "/exec/default/web/web", "get", []string{"proxy"}},
		{"POST", "/portForward/default/web", "create", []string{"proxy"}},
		{"GET", "/pods", "get", []string{"pods", "proxy"}},
		{"GET", "/healthz", "get", []string{"healthz", "proxy"}},
		{"GET", "/logs/syslog", "get", []string{"log"}},
		{"GET", "/stats/summary", "get", []string{"stats"}},
		{"GET", "/metrics/resource", "get", []string{"metrics"}},
		{"GET", "/podsfoo", "get", []string{"proxy"}},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		verb, subs := requestAttributes(r)
		if verb != tc.verb || len(subs) != len(tc.subresources) || (len(subs) > 0 && subs[0] != tc.subresources[0]) ||
			(len(subs) > 1 && subs[1] != tc.subresources[1]) {
			t.Errorf("%s %s: %s %v, want %s %v", tc.method, tc.path, verb, subs, tc.verb, tc.subresources)
		}
	}
}

// Authentication and authorization against a real apiserver: the
// kubelet (system:node:node-1) asks it with SubjectAccessReviews.
func TestKubeletAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an apiserver")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := &app.Options{DataDir: dir, BindAddress: "127.0.0.1", ServiceClusterIPRange: "10.96.0.0/12",
		ServiceNodePortRange: "30000-32767", MinRequestTimeout: 1800, RequestTimeout: time.Minute, LogLevel: "error"}
	c, _, err := app.Start(ctx, opts, storage.NewMemory(0), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(dir, "kubelet.kubeconfig")
	if err := c.CA.WriteIdentityKubeconfig(kc, c.URL, pki.Node("node-1")); err != nil {
		t.Fatal(err)
	}
	cl, err := rest.New(kc, "kubelet-test")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{nodeName: "node-1", log: slog.New(slog.NewTextHandler(testWriter{t}, nil)), client: cl}
	h := s.withAuth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))

	// as builds a request carrying a verified client certificate of user in groups.
	as := func(method, path, user string, groups ...string) *http.Request {
		certPEM, _, err := c.CA.IssueClientCert(user, groups)
		if err != nil {
			t.Fatal(err)
		}
		block, _ := pem.Decode(certPEM)
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(method, path, nil)
		r.TLS = &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{cert}}}
		return r
	}
	for _, tc := range []struct {
		name string
		r    *http.Request
		code int
		body string
	}{
		{"anonymous", httptest.NewRequest("GET", "/pods", nil), 401, "Unauthorized"},
		{"apiserver's kubelet client", as("POST", "/exec/default/web/web", pki.KubeletClient.User, pki.KubeletClient.Groups...), 200, "ok"},
		{"a user without rights", as("GET", "/pods", "jane", "dev"), 403,
			"Forbidden (user=jane, verb=get, resource=nodes, subresource(s)=[pods proxy])\n"},
		{"another node", as("POST", "/exec/default/web/web", "system:node:node-2", "system:nodes"), 403,
			"Forbidden (user=system:node:node-2, verb=create, resource=nodes, subresource(s)=[proxy])\n"},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, tc.r)
		if w.Code != tc.code || w.Body.String() != tc.body {
			t.Errorf("%s: %d %q, want %d %q", tc.name, w.Code, w.Body.String(), tc.code, tc.body)
		}
	}

	// A bearer token the apiserver does not know: 401.
	r := httptest.NewRequest("GET", "/pods", nil)
	r.Header.Set("Authorization", "Bearer nonsense")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 401 {
		t.Errorf("unknown token: %d %q", w.Code, w.Body.String())
	}
}

// testWriter sends the kubelet's log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
