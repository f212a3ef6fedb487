package kubik

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
)

// serveHealth answers GET /healthz at addr inside the namespace with 200
// while ok holds, else 503.
func (f *testFabric) serveHealth(path, addr string, ok *atomic.Bool) {
	f.t.Helper()
	var ln net.Listener
	f.do(path, func() (err error) {
		ln, err = net.Listen("tcp", addr)
		return err
	})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" && ok.Load() {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})}
	f.t.Cleanup(func() { srv.Close() })
	go srv.Serve(ln)
}

// only waits until every one of n connections in a row reaches want.
func only(t *testing.T, f *testFabric, addr, want string) {
	t.Helper()
	eventually(t, "every connection to "+addr+" reaches "+want, func() (string, bool) {
		for range 20 {
			got, err := ask(f.host, noAddr, addr)
			if err != nil || got != want {
				return got + errString(err), false
			}
		}
		return "", true
	})
}

func both(t *testing.T, f *testFabric, addr, a, b string) {
	t.Helper()
	seen := map[string]bool{}
	eventually(t, "connections to "+addr+" reach "+a+" and "+b, func() (string, bool) {
		got, err := ask(f.host, noAddr, addr)
		if err == nil {
			seen[got] = true
		}
		return got + errString(err), seen[a] && seen[b]
	})
}

// TestHealthChecks: a node failing kube-proxy's health check gets no new
// connections until it passes again; with every node failing, all get
// them; a Service with externalTrafficPolicy: Local goes only to the nodes
// that pass its healthCheckNodePort.
func TestHealthChecks(t *testing.T) {
	f := newTestFabric(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	n1, p1, ip1 := f.addMachine(1)
	n2, p2, ip2 := f.addMachine(2)
	var ok1, ok2, local1 atomic.Bool
	ok1.Store(true)
	ok2.Store(true)
	local1.Store(true)
	for _, m := range []struct {
		name, path string
		ip         string
		ok         *atomic.Bool
	}{{n1, p1, ip1.String(), &ok1}, {n2, p2, ip2.String(), &ok2}} {
		f.serve(m.path, m.ip+":30080", m.name)
		f.serve(m.path, m.ip+":30081", m.name)
		f.serveHealth(m.path, m.ip+":10256", m.ok)
	}
	f.serveHealth(p1, ip1.String()+":30999", &local1) // node-2 has no pod of "local"

	cloud, err := New(f.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cloud.Teardown() })
	cloud.health.interval = 100 * time.Millisecond
	cloud.Initialize(ctx)
	nodes := []*corev1.Node{testNode(n1, ip1), testNode(n2, ip2)}
	web := lbService("web", "1", tcpPort("http", 80, 30080))
	name := cloud.GetLoadBalancerName(ctx, "kubernetes", web)
	if _, err := cloud.EnsureLoadBalancer(ctx, "kubernetes", web, nodes); err != nil {
		t.Fatal(err)
	}
	both(t, f, "10.240.99.200:80", n1, n2)

	ok2.Store(false)
	only(t, f, "10.240.99.200:80", n1)
	ok2.Store(true)
	both(t, f, "10.240.99.200:80", n1, n2)

	ok1.Store(false)
	ok2.Store(false)
	eventually(t, "both nodes marked unhealthy", func() (string, bool) {
		return "", !cloud.health.healthy(name, ip1.String()) && !cloud.health.healthy(name, ip2.String())
	})
	both(t, f, "10.240.99.200:80", n1, n2) // fail open
	ok1.Store(true)
	ok2.Store(true)

	local := lbService("local", "2", tcpPort("http", 80, 30081))
	local.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	local.Spec.HealthCheckNodePort = 30999
	if st, err := cloud.EnsureLoadBalancer(ctx, "kubernetes", local, nodes); err != nil || st.Ingress[0].IP != "10.240.99.201" {
		t.Fatalf("local: %+v %v", st, err)
	}
	only(t, f, "10.240.99.201:80", n1)
}
