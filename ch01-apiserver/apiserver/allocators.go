package apiserver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/storage"
)

// Services get a ClusterIP from --service-cluster-ip-range and, for NodePort
// and LoadBalancer types, node ports from --service-node-port-range.
//
// Each allocation is one storage key created with "create if absent" — the
// same atomic step etcd gives — so several apiservers on one storage never
// hand out the same address. Upstream (1.33+) likewise keeps one IPAddress
// object per allocated ClusterIP under /registry/ipaddresses/.

type ipAllocator struct {
	store  storage.Interface
	prefix netip.Prefix
}

func newIPAllocator(store storage.Interface, prefix netip.Prefix) *ipAllocator {
	return &ipAllocator{store: store, prefix: prefix.Masked()}
}

func ipKey(ip netip.Addr) string { return "/registry/ipaddresses/" + ip.String() }

// FirstIP is the range's first usable address: the "kubernetes" Service's ClusterIP.
func (a *ipAllocator) FirstIP() netip.Addr { return a.prefix.Addr().Next() }

func (a *ipAllocator) size() uint64 {
	bits := a.prefix.Addr().BitLen() - a.prefix.Bits()
	if bits > 32 {
		bits = 32
	}
	return uint64(1) << bits
}

func (a *ipAllocator) nth(n uint64) netip.Addr {
	b := a.prefix.Addr().As16()
	base := binary.BigEndian.Uint64(b[8:])
	binary.BigEndian.PutUint64(b[8:], base+n)
	ip := netip.AddrFrom16(b)
	if a.prefix.Addr().Is4() {
		ip = ip.Unmap()
	}
	return ip
}

// Allocate picks a free address. Like upstream, dynamic allocation prefers
// the upper part of the range, leaving the lower part for static ClusterIPs.
func (a *ipAllocator) Allocate(ctx context.Context, owner string, dryRun bool) (netip.Addr, error) {
	n := a.size()
	if n < 4 {
		return netip.Addr{}, errors.New("range is full")
	}
	lowBand := min(max(uint64(16), n/16), 256)
	if lowBand > n/2 {
		lowBand = 1
	}
	start := lowBand + rand.Uint64N(n-lowBand-1)
	for i := uint64(0); i < n-2; i++ {
		off := 1 + (start+i-1)%(n-2) // skip network and broadcast addresses
		ip := a.nth(off)
		if dryRun {
			if _, err := a.store.Get(ctx, ipKey(ip)); errors.Is(err, storage.ErrNotFound) {
				return ip, nil
			}
			continue
		}
		_, err := a.store.Create(ctx, ipKey(ip), []byte(owner))
		if err == nil {
			return ip, nil
		}
		if !errors.Is(err, storage.ErrKeyExists) {
			return netip.Addr{}, err
		}
	}
	return netip.Addr{}, errors.New("range is full")
}

// Reserve takes a specific address.
func (a *ipAllocator) Reserve(ctx context.Context, ip netip.Addr, owner string, dryRun bool) error {
	if !a.prefix.Contains(ip) {
		return fmt.Errorf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, a.prefix)
	}
	if dryRun {
		if _, err := a.store.Get(ctx, ipKey(ip)); err == nil {
			return errors.New("provided IP is already allocated")
		}
		return nil
	}
	_, err := a.store.Create(ctx, ipKey(ip), []byte(owner))
	if errors.Is(err, storage.ErrKeyExists) {
		if kv, gerr := a.store.Get(ctx, ipKey(ip)); gerr == nil && string(kv.Value) == owner {
			return nil
		}
		return errors.New("provided IP is already allocated")
	}
	return err
}

// Release frees an address if owner still holds it.
func (a *ipAllocator) Release(ctx context.Context, ip netip.Addr, owner string) {
	releaseKey(ctx, a.store, ipKey(ip), owner)
}

func releaseKey(ctx context.Context, store storage.Interface, key, owner string) {
	kv, err := store.Get(ctx, key)
	if err != nil || string(kv.Value) != owner {
		return
	}
	store.Delete(ctx, key, kv.ModRevision)
}

type portAllocator struct {
	store    storage.Interface
	min, max int
}

func newPortAllocator(store storage.Interface, lo, hi int) *portAllocator {
	return &portAllocator{store: store, min: lo, max: hi}
}

func portKey(p int) string { return "/registry/nodeports/" + strconv.Itoa(p) }

func (a *portAllocator) Allocate(ctx context.Context, owner string, dryRun bool) (int, error) {
	n := a.max - a.min + 1
	start := rand.IntN(n)
	for i := 0; i < n; i++ {
		p := a.min + (start+i)%n
		if dryRun {
			if _, err := a.store.Get(ctx, portKey(p)); errors.Is(err, storage.ErrNotFound) {
				return p, nil
			}
			continue
		}
		_, err := a.store.Create(ctx, portKey(p), []byte(owner))
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, storage.ErrKeyExists) {
			return 0, err
		}
	}
	return 0, errors.New("range is full")
}

func (a *portAllocator) Reserve(ctx context.Context, p int, owner string, dryRun bool) error {
	if p < a.min || p > a.max {
		return fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", a.min, a.max)
	}
	if dryRun {
		return nil
	}
	_, err := a.store.Create(ctx, portKey(p), []byte(owner))
	if errors.Is(err, storage.ErrKeyExists) {
		if kv, gerr := a.store.Get(ctx, portKey(p)); gerr == nil && string(kv.Value) == owner {
			return nil
		}
		return errors.New("provided port is already allocated")
	}
	return err
}

func (a *portAllocator) Release(ctx context.Context, p int, owner string) {
	releaseKey(ctx, a.store, portKey(p), owner)
}

// allocate gives a Service its ClusterIP(s) and node ports on create, and
// keeps the old ones on update when the request leaves them out.
func (s *Server) allocate(ctx context.Context, res *scheme.Resource, obj, old metav1.Object, dryRun bool) error {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil
	}
	owner := svc.UID
	invalid := func(field string, value any, detail string) error {
		msg := fmt.Sprintf("%s: Invalid value: %s: %s", field, formatValue(value), detail)
		return ErrInvalid("", "Service", svc.Name, []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid,
			Message: fmt.Sprintf("Invalid value: %s: %s", formatValue(value), detail), Field: field}}, msg)
	}
	var oldSvc *corev1.Service
	if old != nil {
		oldSvc = old.(*corev1.Service)
		if svc.Spec.ClusterIP == "" && len(svc.Spec.ClusterIPs) == 0 && svc.Spec.Type != corev1.ServiceTypeExternalName {
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = oldSvc.Spec.ClusterIP, oldSvc.Spec.ClusterIPs
			svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = oldSvc.Spec.IPFamilies, oldSvc.Spec.IPFamilyPolicy
		}
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
		return nil
	}
	if svc.Spec.ClusterIP == "" && len(svc.Spec.ClusterIPs) > 0 {
		svc.Spec.ClusterIP = svc.Spec.ClusterIPs[0]
	}
	if old == nil || oldSvc.Spec.ClusterIP != svc.Spec.ClusterIP {
		switch svc.Spec.ClusterIP {
		case corev1.ClusterIPNone:
		case "":
			ip, err := s.ipAlloc.Allocate(ctx, owner, dryRun)
			if err != nil {
				return invalid("spec.clusterIPs", []string{}, "failed to allocate IP: "+err.Error())
			}
			svc.Spec.ClusterIP = ip.String()
		default:
			ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
			if err != nil {
				return invalid("spec.clusterIPs[0]", svc.Spec.ClusterIP, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")
			}
			if err := s.ipAlloc.Reserve(ctx, ip, owner, dryRun); err != nil {
				return invalid("spec.clusterIPs", []string{svc.Spec.ClusterIP}, fmt.Sprintf("failed to allocate IP %s: %v", ip, err))
			}
		}
	}
	svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	if svc.Spec.IPFamilyPolicy == nil {
		p := corev1.IPFamilyPolicySingleStack
		svc.Spec.IPFamilyPolicy = &p
	}

	if svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		oldPorts := map[string]int32{}
		if oldSvc != nil {
			for _, p := range oldSvc.Spec.Ports {
				oldPorts[fmt.Sprintf("%s/%d", p.Protocol, p.Port)] = p.NodePort
			}
		}
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			field := fmt.Sprintf("spec.ports[%d].nodePort", i)
			if p.NodePort == 0 {
				if prev := oldPorts[fmt.Sprintf("%s/%d", p.Protocol, p.Port)]; prev != 0 {
					p.NodePort = prev
					continue
				}
				np, err := s.portAlloc.Allocate(ctx, owner, dryRun)
				if err != nil {
					return invalid(field, p.NodePort, "failed to allocate a nodePort: "+err.Error())
				}
				p.NodePort = int32(np)
				continue
			}
			if err := s.portAlloc.Reserve(ctx, int(p.NodePort), owner, dryRun); err != nil {
				return invalid(field, p.NodePort, err.Error())
			}
		}
	} else {
		for i := range svc.Spec.Ports {
			svc.Spec.Ports[i].NodePort = 0
		}
	}
	return nil
}

// release frees what obj held and newObj (nil on delete) no longer holds.
func (s *Server) release(ctx context.Context, res *scheme.Resource, obj, newObj metav1.Object) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return
	}
	keepIP, keepPorts := "", map[int32]bool{}
	if newObj != nil {
		n := newObj.(*corev1.Service)
		keepIP = n.Spec.ClusterIP
		for _, p := range n.Spec.Ports {
			keepPorts[p.NodePort] = true
		}
	}
	ctx = context.WithoutCancel(ctx)
	if ip, err := netip.ParseAddr(svc.Spec.ClusterIP); err == nil && svc.Spec.ClusterIP != keepIP {
		s.ipAlloc.Release(ctx, ip, svc.UID)
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 && !keepPorts[p.NodePort] {
			s.portAlloc.Release(ctx, int(p.NodePort), svc.UID)
		}
	}
}

// formatValue prints a bad value the way upstream's field errors do.
func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []string:
		out := "[]string{"
		for i, s := range x {
			if i > 0 {
				out += ", "
			}
			out += strconv.Quote(s)
		}
		return out + "}"
	default:
		return fmt.Sprint(v)
	}
}
