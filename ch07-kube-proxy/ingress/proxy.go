package ingress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"sync/atomic"
	"time"
)

// Proxy serves HTTP and HTTPS with the current routing table: the part
// nginx plays in ingress-nginx.
type Proxy struct {
	table atomic.Pointer[Table]
	fake  *tls.Certificate
	rp    *httputil.ReverseProxy
	log   *slog.Logger
}

// MaxAttempts bounds the endpoints one request is tried on when dialing
// fails (ingress-nginx: proxy-next-upstream-tries 3).
const MaxAttempts = 3

// NewProxy returns a proxy with an empty table (every request 404s until
// SetTable).
func NewProxy(log *slog.Logger) (*Proxy, error) {
	fake, err := FakeCertificate()
	if err != nil {
		return nil, err
	}
	p := &Proxy{fake: fake, log: log}
	p.table.Store(NewTable(Objects{}))
	base := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     60 * time.Second,
		// ingress-nginx's proxy-read-timeout is 60s.
		ResponseHeaderTimeout: 60 * time.Second,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetXForwarded() // X-Forwarded-For, -Host, -Proto
			pr.Out.URL.Scheme = "http"
			pr.Out.Host = pr.In.Host // the backend sees the Host the client asked for
		},
		Transport:    &retryTransport{base: base},
		ErrorHandler: p.badGateway,
	}
	return p, nil
}

// SetTable swaps the routing table in; requests in flight finish with the
// old one.
func (p *Proxy) SetTable(t *Table) { p.table.Store(t) }

// Table is the current routing table.
func (p *Proxy) Table() *Table { return p.table.Load() }

// GetCertificate is the HTTPS server's SNI callback.
func (p *Proxy) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := p.table.Load().Certificate(hello.ServerName); c != nil {
		return c, nil
	}
	return p.fake, nil
}

// TLSConfig is the HTTPS server's configuration.
func (p *Proxy) TLSConfig() *tls.Config {
	return &tls.Config{GetCertificate: p.GetCertificate, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
}

type backendCtxKey struct{}

// ServeHTTP routes one request: 404 when no rule and no default backend
// matches, 503 when the backend has no ready endpoints, else to one of
// its pods.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route, ok := p.table.Load().Match(r.Host, r.URL.Path)
	if !ok {
		http.Error(w, "default backend - 404", http.StatusNotFound)
		return
	}
	if len(route.Backend.Endpoints) == 0 {
		http.Error(w, "503 Service Temporarily Unavailable: "+route.Backend.Err, http.StatusServiceUnavailable)
		return
	}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), backendCtxKey{}, route.Backend)))
}

func (p *Proxy) badGateway(w http.ResponseWriter, r *http.Request, err error) {
	be, _ := r.Context().Value(backendCtxKey{}).(*Backend)
	p.log.Warn("backend failed", "backend", be, "host", r.Host, "path", r.URL.Path, "err", err)
	http.Error(w, fmt.Sprintf("502 Bad Gateway: %s: %v", be, err), http.StatusBadGateway)
}

// retryTransport sends a request to the backend's next endpoint and, when
// the connection cannot be made (a pod that just went away), to the next
// one, for idempotent requests without a body: what nginx's
// proxy_next_upstream "error timeout" does. A request that reached a pod
// is never sent twice.
type retryTransport struct{ base *http.Transport }

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	be := req.Context().Value(backendCtxKey{}).(*Backend)
	attempts := min(MaxAttempts, len(be.Endpoints))
	var err error
	for i := 0; i < attempts; i++ {
		ep, _ := be.Next()
		req.URL.Host = ep
		var resp *http.Response
		if resp, err = t.base.RoundTrip(req); err == nil {
			return resp, nil
		}
		if !retriable(req, err) {
			return nil, err
		}
	}
	return nil, err
}

// retriable: the request may go to another endpoint — the dial failed (so
// nothing was sent), and the method is idempotent with no body to replay.
func retriable(req *http.Request, err error) bool {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		return false
	}
	if req.Body != nil && req.Body != http.NoBody {
		return false
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete, http.MethodTrace:
		return true
	}
	return false
}
