package reconcilers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"path"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/storage"
)

// MasterLeasesKey is where the leases live, upstream's /registry +
// "/masterleases/": one key per apiserver, named by its address.
const MasterLeasesKey = "/registry/masterleases/"

// DefaultEndpointReconcilerTTL is how long a lease lives unless renewed
// (upstream's DefaultEndpointReconcilerTTL): an apiserver renews it every
// apiserver.DefaultEndpointReconcilerInterval (10 s), so one that stops
// renewing drops out of the endpoints within 15 s plus an interval.
const DefaultEndpointReconcilerTTL = 15 * time.Second

// Leases is the set of live apiservers. Upstream: reconcilers.Leases.
type Leases interface {
	// ListLeases is the addresses of the apiservers whose lease is live.
	ListLeases(ctx context.Context) ([]string, error)
	// UpdateLease adds or refreshes ip's lease.
	UpdateLease(ctx context.Context, ip string) error
	// RemoveLease removes ip's lease (storage.ErrNotFound: there was none).
	RemoveLease(ctx context.Context, ip string) error
}

// etcdLeases keeps each lease as an etcd key attached to an etcd lease of
// leaseTime: etcd deletes the key itself when its lease runs out. The
// value is an Endpoints object holding the address, as upstream stores
// it (upstream writes through its storage.Interface with a TTL, which its
// etcd3 store turns into the same etcd lease; Kubik's storage.Interface
// has no TTL, so this talks to the apiserver's etcd client directly).
type etcdLeases struct {
	client    *clientv3.Client
	baseKey   string
	leaseTime time.Duration

	mu   sync.Mutex
	held map[string]clientv3.LeaseID // the etcd lease each of our keys is attached to
}

// NewLeases keeps the leases under baseKey (MasterLeasesKey) in the etcd
// client talks to, each living leaseTime unless renewed.
func NewLeases(client *clientv3.Client, baseKey string, leaseTime time.Duration) Leases {
	return &etcdLeases{client: client, baseKey: baseKey, leaseTime: leaseTime, held: map[string]clientv3.LeaseID{}}
}

// maxLeaseValue bounds what is decoded of a lease: an Endpoints with one
// address is about a hundred bytes.
const maxLeaseValue = 64 << 10

func (l *etcdLeases) ListLeases(ctx context.Context) ([]string, error) {
	resp, err := l.client.Get(ctx, l.baseKey, clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	ips := make([]string, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		var ep corev1.Endpoints
		if len(kv.Value) > maxLeaseValue || json.Unmarshal(kv.Value, &ep) != nil {
			continue // not a lease we can read: ignored, as upstream ignores what has no address
		}
		if len(ep.Subsets) > 0 && len(ep.Subsets[0].Addresses) > 0 && ep.Subsets[0].Addresses[0].IP != "" {
			ips = append(ips, ep.Subsets[0].Addresses[0].IP)
		}
	}
	return ips, nil
}

// UpdateLease writes ip's key again, attached to a fresh etcd lease, and
// revokes the lease it was attached to before (the key moved on, so only
// the old lease goes).
func (l *etcdLeases) UpdateLease(ctx context.Context, ip string) error {
	ttl := int64(l.leaseTime / time.Second)
	if ttl < 1 {
		ttl = 1
	}
	grant, err := l.client.Grant(ctx, ttl)
	if err != nil {
		return fmt.Errorf("granting an etcd lease: %w", err)
	}
	value, _ := json.Marshal(&corev1.Endpoints{
		TypeMeta:   metav1.TypeMeta{Kind: "Endpoints", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: ip},
		Subsets:    []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: ip}}}},
	})
	if _, err := l.client.Put(ctx, path.Join(l.baseKey, ip), string(value), clientv3.WithLease(grant.ID)); err != nil {
		return fmt.Errorf("writing the lease of %s: %w", ip, err)
	}
	l.mu.Lock()
	prev := l.held[ip]
	l.held[ip] = grant.ID
	l.mu.Unlock()
	if prev != 0 {
		l.client.Revoke(ctx, prev) // best effort: it runs out anyway
	}
	return nil
}

func (l *etcdLeases) RemoveLease(ctx context.Context, ip string) error {
	resp, err := l.client.Delete(ctx, path.Join(l.baseKey, ip))
	if err != nil {
		return err
	}
	if resp.Deleted == 0 {
		return storage.ErrNotFound
	}
	return nil
}

// leaseEndpointReconciler publishes every apiserver that holds a lease.
// Upstream: leaseEndpointReconciler.
type leaseEndpointReconciler struct {
	adapter *apiserver.EndpointsAdapter
	leases  Leases
	stopped atomic.Bool
	mu      sync.Mutex // ReconcileEndpoints and RemoveEndpoints one at a time
}

// NewLeaseEndpointReconciler is the reconciler of
// --endpoint-reconciler-type=lease.
func NewLeaseEndpointReconciler(adapter *apiserver.EndpointsAdapter, leases Leases) apiserver.EndpointReconciler {
	return &leaseEndpointReconciler{adapter: adapter, leases: leases}
}

// ReconcileEndpoints renews this apiserver's lease — first, whatever
// happens after, so that the others add it — then makes the endpoints
// list every live lease. An apiserver that stops renewing expires, and the
// next reconcile of any apiserver drops it.
func (r *leaseEndpointReconciler) ReconcileEndpoints(ctx context.Context, ip netip.Addr, ports []corev1.EndpointPort, reconcilePorts bool) error {
	if r.stopped.Load() {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.leases.UpdateLease(ctx, ip.String()); err != nil {
		return err
	}
	return r.doReconcile(ctx, ports, reconcilePorts)
}

func (r *leaseEndpointReconciler) doReconcile(ctx context.Context, ports []corev1.EndpointPort, reconcilePorts bool) error {
	ips, err := r.leases.ListLeases(ctx)
	if err != nil {
		return err
	}
	// Our own lease was just renewed: none at all means storage is
	// wrong, not that there are no apiservers — unless we are the last
	// one leaving.
	if !r.stopped.Load() && len(ips) == 0 {
		return errors.New("no API server IP addresses were listed in storage, refusing to erase all endpoints for the kubernetes Service")
	}
	return r.adapter.Sync(ctx, ips, ports, reconcilePorts)
}

// RemoveEndpoints removes this apiserver's lease and publishes the rest
// at once, so clients stop being sent to an apiserver that is going.
func (r *leaseEndpointReconciler) RemoveEndpoints(ctx context.Context, ip netip.Addr, ports []corev1.EndpointPort) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.leases.RemoveLease(ctx, ip.String()); err != nil {
		return err
	}
	return r.doReconcile(ctx, ports, true)
}

func (r *leaseEndpointReconciler) StopReconciling() { r.stopped.Store(true) }
