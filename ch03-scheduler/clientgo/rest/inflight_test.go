package rest_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
)

// TestBurstUsesOneConnection: 500 requests at once, to a server that allows
// 100 streams per HTTP/2 connection as kube-apiserver does, travel over one
// connection with at most MaxInFlight of them in flight — not 500 TLS
// handshakes.
func TestBurstUsesOneConnection(t *testing.T) {
	var conns, inFlight, maxInFlight atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := maxInFlight.Load()
			if n <= m || maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond) // an apiserver that takes a moment
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 100}

	tlsConfig := &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	c, err := rest.NewForConfig(rest.Config{Kubeconfig: &pki.Kubeconfig{Server: srv.URL, TLS: tlsConfig}, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	// One request first, so that the connection exists (as it does once
	// a component has listed and started its watches).
	if err := c.Do(context.Background(), rest.Request{Method: "GET", Path: "/api"}, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 500 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Do(context.Background(), rest.Request{Method: "POST", Path: "/api/v1/namespaces/default/pods/p/binding", Body: []byte(`{}`)}, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 501 requests, want 1", n)
	}
	if m := maxInFlight.Load(); m > rest.MaxInFlight {
		t.Errorf("%d requests in flight at once, want at most %d", m, rest.MaxInFlight)
	}
}
