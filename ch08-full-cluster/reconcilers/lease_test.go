package reconcilers

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/storage"
	"kubik/ch02-etcd-store/etcdstore"
	"kubik/internal/etcdtest"
)

var (
	endpoint string
	prefixN  atomic.Int64
	quiet    = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func TestMain(m *testing.M) { etcdtest.Main(m, &endpoint) }

// env is one etcd key space shared by the apiservers of a test, as one
// cluster's etcd is.
type env struct {
	store    *etcdstore.Store
	leaseKey string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	n := prefixN.Add(1)
	store, err := etcdstore.New(etcdstore.Config{Endpoints: []string{endpoint}, Prefix: fmt.Sprintf("/test-%d", n), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &env{store: store, leaseKey: fmt.Sprintf("/test-%d/masterleases/", n)}
}

// apiserver is an apiserver on the env's storage, advertising ip, with a
// lease reconciler whose leases live ttl; Bootstrap has run (its first
// reconcile included).
func (e *env) apiserver(t *testing.T, ip string, ttl time.Duration) (apiserver.EndpointReconciler, netip.Addr) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	var r apiserver.EndpointReconciler
	s, err := apiserver.New(apiserver.Config{Storage: e.store, AdvertiseAddress: ip, SecurePort: 6443, Logger: quiet,
		ServiceAccountSigningKey: key,
		EndpointReconciler: func(a *apiserver.EndpointsAdapter) apiserver.EndpointReconciler {
			r = NewLeaseEndpointReconciler(a, NewLeases(e.store.Client(), e.leaseKey, ttl))
			return r
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r, netip.MustParseAddr(ip)
}

// published is what the kubernetes Service's Endpoints and EndpointSlice
// list, read from storage: "endpoints | slice".
func (e *env) published(t *testing.T) string {
	t.Helper()
	get := func(key string, into any) {
		kv, err := e.store.Get(context.Background(), key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if err := json.Unmarshal(kv.Value, into); err != nil {
			t.Fatal(err)
		}
	}
	var ep corev1.Endpoints
	get("/registry/services/endpoints/default/kubernetes", &ep)
	var slice discoveryv1.EndpointSlice
	get("/registry/endpointslices/default/kubernetes", &slice)
	var a, b []string
	for _, s := range ep.Subsets {
		for _, addr := range s.Addresses {
			a = append(a, addr.IP)
		}
	}
	for _, e := range slice.Endpoints {
		b = append(b, e.Addresses...)
	}
	return strings.Join(a, " ") + " | " + strings.Join(b, " ")
}

var ports = []corev1.EndpointPort{{Name: "https", Port: 6443, Protocol: corev1.ProtocolTCP}}

// TestLeaseEndpointReconciler: three apiservers publish each other; one
// that leaves removes itself at once; one that stops renewing drops out
// once its lease runs out.
func TestLeaseEndpointReconciler(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	r1, ip1 := e.apiserver(t, "10.240.0.11", time.Minute)
	r2, ip2 := e.apiserver(t, "10.240.0.12", time.Minute)
	_, _ = e.apiserver(t, "10.240.0.13", 2*time.Second) // never renewed after its start
	if got := e.published(t); got != "10.240.0.11 10.240.0.12 10.240.0.13 | 10.240.0.11 10.240.0.12 10.240.0.13" {
		t.Fatalf("after three starts: %s", got)
	}

	r2.StopReconciling()
	if err := r2.ReconcileEndpoints(ctx, ip2, ports, false); err != nil {
		t.Fatal(err)
	}
	if err := r2.RemoveEndpoints(ctx, ip2, ports); err != nil {
		t.Fatal(err)
	}
	if got := e.published(t); got != "10.240.0.11 10.240.0.13 | 10.240.0.11 10.240.0.13" {
		t.Fatalf("after apiserver 2 left: %s", got)
	}
	if err := r2.RemoveEndpoints(ctx, ip2, ports); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("removing twice: %v", err)
	}

	// The third's lease runs out; the first's next reconcile drops it.
	deadline := time.Now().Add(time.Minute)
	for {
		if err := r1.ReconcileEndpoints(ctx, ip1, ports, false); err != nil {
			t.Fatal(err)
		}
		got := e.published(t)
		if got == "10.240.0.11 | 10.240.0.11" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the expired apiserver is still published: %s", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRefusesToEraseAll: with no lease at all (ours was just written, so
// storage is wrong) the endpoints are left as they are.
func TestRefusesToEraseAll(t *testing.T) {
	e := newEnv(t)
	_, _ = e.apiserver(t, "10.240.0.11", time.Minute)
	r := NewLeaseEndpointReconciler(nil, emptyLeases{})
	err := r.ReconcileEndpoints(context.Background(), netip.MustParseAddr("10.240.0.11"), ports, false)
	if err == nil || !strings.Contains(err.Error(), "refusing to erase all endpoints") {
		t.Fatalf("%v", err)
	}
	if got := e.published(t); got != "10.240.0.11 | 10.240.0.11" {
		t.Fatalf("%s", got)
	}
}

type emptyLeases struct{}

func (emptyLeases) ListLeases(context.Context) ([]string, error) { return nil, nil }
func (emptyLeases) UpdateLease(context.Context, string) error    { return nil }
func (emptyLeases) RemoveLease(context.Context, string) error    { return nil }

func TestParseType(t *testing.T) {
	for _, s := range []string{"lease", "none"} {
		if got, err := ParseType(s); err != nil || string(got) != s {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	if _, err := ParseType("master-count"); err == nil {
		t.Error("master-count accepted")
	}
	r := NewNoneEndpointReconciler()
	if r.ReconcileEndpoints(context.Background(), netip.Addr{}, nil, true) != nil || r.RemoveEndpoints(context.Background(), netip.Addr{}, nil) != nil {
		t.Error("none did something")
	}
}
