package apiserver

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/storage"
)

// Services get a ClusterIP from --service-cluster-ip-range and, for NodePort
// and LoadBalancer types, node ports from --service-node-port-range.
//
// Each allocation is one storage key created with "create if absent" — the
// same atomic step etcd gives — so several apiservers on one storage never
// hand out the same address. A ClusterIP's key is an IPAddress object, as
// upstream's (1.33+) allocator keeps them: /registry/ipaddresses/<ip>, named
// by the IP, its parentRef the Service, labelled as managed by
// ipallocator.k8s.io; `kubectl get ipaddresses` lists them. A node port's
// key holds the owning Service's UID.

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

// rangeSize is how many addresses prefix holds (at most 2^32).
func rangeSize(prefix netip.Prefix) uint64 {
	bits := prefix.Addr().BitLen() - prefix.Bits()
	if bits > 32 {
		bits = 32
	}
	return uint64(1) << bits
}

// nthAddr is prefix's address at offset n.
func nthAddr(prefix netip.Prefix, n uint64) netip.Addr {
	b := prefix.Addr().As16()
	base := binary.BigEndian.Uint64(b[8:])
	binary.BigEndian.PutUint64(b[8:], base+n)
	ip := netip.AddrFrom16(b)
	if prefix.Addr().Is4() {
		ip = ip.Unmap()
	}
	return ip
}

var ipAddressResource = scheme.Lookup(networkingv1.GroupName, "v1", "ipaddresses")

// ipAddressUID is the uid of the IPAddress that gives ip to the Service
// with uid owner: derived from both, so that the allocator knows its own
// object again (a Service created twice under one name has another uid).
func ipAddressUID(owner string, ip netip.Addr) string {
	b := sha256.Sum256([]byte(owner + "/" + ip.String()))
	b[6] = b[6]&0x0f | 0x50 // a name-based (version 5 style) UUID
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// ipAddressFields are the fields the allocator sets in an IPAddress.
var ipAddressFields = []byte(`{"f:metadata":{"f:labels":{".":{},"f:ipaddress.kubernetes.io/ip-family":{},"f:ipaddress.kubernetes.io/managed-by":{}}},` +
	`"f:spec":{"f:parentRef":{".":{},"f:name":{},"f:namespace":{},"f:resource":{}}}}`)

// ipAddressFor is the stored IPAddress that gives ip to svc.
func ipAddressFor(ip netip.Addr, svc *corev1.Service) []byte {
	family := string(corev1.IPv4Protocol)
	if ip.Is6() {
		family = string(corev1.IPv6Protocol)
	}
	now := metav1.Now()
	obj := &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip.String(), UID: ipAddressUID(svc.UID, ip), CreationTimestamp: now,
			Labels: map[string]string{networkingv1.LabelIPAddressFamily: family, networkingv1.LabelManagedBy: networkingv1.IPAllocatorManager},
			// What upstream's allocator records, writing through its own client.
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-apiserver", Operation: "Update", APIVersion: "networking.k8s.io/v1",
				Time: &now, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: ipAddressFields}}}},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: svc.Namespace, Name: svc.Name}},
	}
	data, _ := encodeForStorage(ipAddressResource, obj) // plain structs: marshalling cannot fail
	return data
}

// ownsIP reports whether the stored value of an IP's key gives it to the
// Service with uid owner. Keys written before IPAddress objects were kept
// hold the bare uid.
func ownsIP(value []byte, owner string, ip netip.Addr) bool {
	if len(value) == 0 || value[0] != '{' {
		return string(value) == owner
	}
	var obj networkingv1.IPAddress
	return json.Unmarshal(value, &obj) == nil && obj.UID == ipAddressUID(owner, ip)
}

// errRangeFull is upstream's ipallocator.ErrFull.
var errRangeFull = errors.New("range is full")

// Allocate picks a free address: from --service-cluster-ip-range, and when
// that is full from the ready ServiceCIDRs an administrator added, as
// upstream's MetaAllocator takes an address from any ready range that has
// one left (it tries them in a random order; here the flag's range comes
// first and the others follow by name).
func (a *ipAllocator) Allocate(ctx context.Context, svc *corev1.Service, dryRun bool) (netip.Addr, error) {
	ip, err := a.allocateIn(ctx, a.prefix, svc, dryRun)
	if !errors.Is(err, errRangeFull) {
		return ip, err
	}
	for _, p := range a.readyServiceCIDRs(ctx) {
		if p == a.prefix || p.Addr().Is4() != a.prefix.Addr().Is4() {
			continue
		}
		if ip, err = a.allocateIn(ctx, p, svc, dryRun); !errors.Is(err, errRangeFull) {
			return ip, err
		}
	}
	return netip.Addr{}, errRangeFull
}

// allocateIn picks a free address of prefix. Like upstream, dynamic
// allocation prefers the upper part of a range, leaving the lower part for
// static ClusterIPs.
func (a *ipAllocator) allocateIn(ctx context.Context, prefix netip.Prefix, svc *corev1.Service, dryRun bool) (netip.Addr, error) {
	n := rangeSize(prefix)
	if n < 4 {
		return netip.Addr{}, errRangeFull
	}
	lowBand := min(max(uint64(16), n/16), 256)
	if lowBand > n/2 {
		lowBand = 1
	}
	start := lowBand + rand.Uint64N(n-lowBand-1)
	for i := uint64(0); i < n-2; i++ {
		off := 1 + (start+i-1)%(n-2) // skip network and broadcast addresses
		ip := nthAddr(prefix, off)
		if dryRun {
			if _, err := a.store.Get(ctx, ipKey(ip)); errors.Is(err, storage.ErrNotFound) {
				return ip, nil
			}
			continue
		}
		_, err := a.store.Create(ctx, ipKey(ip), ipAddressFor(ip, svc))
		if err == nil {
			return ip, nil
		}
		if !errors.Is(err, storage.ErrKeyExists) {
			return netip.Addr{}, err
		}
	}
	return netip.Addr{}, errRangeFull
}

// Reserve takes a specific address: one of the --service-cluster-ip-range
// or of a ready ServiceCIDR.
func (a *ipAllocator) Reserve(ctx context.Context, ip netip.Addr, svc *corev1.Service, dryRun bool) error {
	if !a.prefix.Contains(ip) && !slices.ContainsFunc(a.readyServiceCIDRs(ctx), func(p netip.Prefix) bool { return p.Contains(ip) }) {
		// upstream's ipallocator.ErrMismatchedNetwork: no ready range holds ip
		return errors.New("the provided network does not match the current range")
	}
	if dryRun {
		if _, err := a.store.Get(ctx, ipKey(ip)); err == nil {
			return errors.New("provided IP is already allocated")
		}
		return nil
	}
	_, err := a.store.Create(ctx, ipKey(ip), ipAddressFor(ip, svc))
	if errors.Is(err, storage.ErrKeyExists) {
		if kv, gerr := a.store.Get(ctx, ipKey(ip)); gerr == nil && ownsIP(kv.Value, svc.UID, ip) {
			return nil
		}
		return errors.New("provided IP is already allocated")
	}
	return err
}

// readyServiceCIDRs are the CIDRs of the ServiceCIDR objects addresses may
// be allocated from, sorted by object name: those not being deleted and
// Ready, where a ServiceCIDR without a Ready condition counts as ready
// (upstream's isReady: the ServiceCIDR controller of
// kube-controller-manager may not run).
func (a *ipAllocator) readyServiceCIDRs(ctx context.Context) []netip.Prefix {
	result, err := a.store.List(ctx, "/registry/servicecidrs/", storage.ListOptions{AllowStale: true})
	if err != nil {
		return nil
	}
	var out []netip.Prefix
	for _, kv := range result.KVs { // sorted by key, that is by name
		var sc networkingv1.ServiceCIDR
		if json.Unmarshal(kv.Value, &sc) != nil || sc.DeletionTimestamp != nil || !serviceCIDRReady(&sc) {
			continue
		}
		for _, c := range sc.Spec.CIDRs {
			if p, err := netip.ParsePrefix(c); err == nil {
				out = append(out, p.Masked())
			}
		}
	}
	return out
}

// serviceCIDRReady is upstream's isReady: the Ready condition's status, or
// true without one.
func serviceCIDRReady(sc *networkingv1.ServiceCIDR) bool {
	for _, c := range sc.Status.Conditions {
		if c.Type == networkingv1.ServiceCIDRConditionReady {
			return c.Status == "True"
		}
	}
	return true
}

// Release frees an address if svc still holds it.
func (a *ipAllocator) Release(ctx context.Context, ip netip.Addr, svc *corev1.Service) {
	kv, err := a.store.Get(ctx, ipKey(ip))
	if err != nil || !ownsIP(kv.Value, svc.UID, ip) {
		return
	}
	a.store.Delete(ctx, ipKey(ip), kv.ModRevision)
}

// upgradeIPAddresses rewrites the keys of ClusterIPs allocated before
// IPAddress objects were kept (bare owner uids) as IPAddress objects of
// their Services, and drops those whose Service is gone: upstream's
// repair loop for IPAddresses, run once at start.
func (s *Server) upgradeIPAddresses(ctx context.Context) error {
	result, err := s.cfg.Storage.List(ctx, "/registry/ipaddresses/", storage.ListOptions{})
	if err != nil {
		return err
	}
	var legacy []storage.KeyValue
	for _, kv := range result.KVs {
		if len(kv.Value) > 0 && kv.Value[0] != '{' {
			legacy = append(legacy, kv)
		}
	}
	if len(legacy) == 0 {
		return nil
	}
	services, _, err := s.list(ctx, scheme.Lookup("", "v1", "services"), "", listOptions{})
	if err != nil {
		return err
	}
	byUID := map[string]*corev1.Service{}
	for _, o := range services {
		svc := o.(*corev1.Service)
		byUID[svc.UID] = svc
	}
	for _, kv := range legacy {
		ip, err := netip.ParseAddr(strings.TrimPrefix(kv.Key, "/registry/ipaddresses/"))
		if err != nil {
			continue
		}
		svc, ok := byUID[string(kv.Value)]
		if !ok || !slices.Contains(svc.Spec.ClusterIPs, ip.String()) {
			s.cfg.Storage.Delete(ctx, kv.Key, kv.ModRevision)
			continue
		}
		if _, err := s.cfg.Storage.Update(ctx, kv.Key, ipAddressFor(ip, svc), kv.ModRevision); err != nil && !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	s.log.Info("stored allocated ClusterIPs as IPAddress objects", "count", len(legacy))
	return nil
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
	if old == nil || oldSvc.Spec.ClusterIP != svc.Spec.ClusterIP || svc.Spec.ClusterIP == "" {
		switch svc.Spec.ClusterIP {
		case corev1.ClusterIPNone:
		case "":
			ip, err := s.ipAlloc.Allocate(ctx, svc, dryRun)
			if errors.Is(err, errRangeFull) { // upstream's 500: nothing the client can change
				return ErrInternal(fmt.Errorf("failed to allocate a serviceIP: %w", err))
			}
			if err != nil {
				return invalid("spec.clusterIPs", []string{}, "failed to allocate IP: "+err.Error())
			}
			svc.Spec.ClusterIP = ip.String()
		default:
			ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
			if err != nil {
				return invalid("spec.clusterIPs[0]", svc.Spec.ClusterIP, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")
			}
			if err := s.ipAlloc.Reserve(ctx, ip, svc, dryRun); err != nil {
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

	// The health check node port of a LoadBalancer with
	// externalTrafficPolicy Local: kept across updates that leave it out,
	// allocated when missing.
	if needsHealthCheckNodePort(svc) {
		hc := svc.Spec.HealthCheckNodePort
		switch {
		case hc == 0 && oldSvc != nil && oldSvc.Spec.HealthCheckNodePort != 0:
			svc.Spec.HealthCheckNodePort = oldSvc.Spec.HealthCheckNodePort
		case hc == 0:
			np, err := s.portAlloc.Allocate(ctx, owner, dryRun)
			if err != nil {
				return invalid("spec.healthCheckNodePort", hc, "failed to allocate a nodePort: "+err.Error())
			}
			svc.Spec.HealthCheckNodePort = int32(np)
		case oldSvc == nil || oldSvc.Spec.HealthCheckNodePort != hc:
			if err := s.portAlloc.Reserve(ctx, int(hc), owner, dryRun); err != nil {
				return invalid("spec.healthCheckNodePort", hc, err.Error())
			}
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
		keepPorts[n.Spec.HealthCheckNodePort] = true
	}
	ctx = context.WithoutCancel(ctx)
	if ip, err := netip.ParseAddr(svc.Spec.ClusterIP); err == nil && svc.Spec.ClusterIP != keepIP {
		s.ipAlloc.Release(ctx, ip, svc)
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 && !keepPorts[p.NodePort] {
			s.portAlloc.Release(ctx, int(p.NodePort), svc.UID)
		}
	}
	if hc := svc.Spec.HealthCheckNodePort; hc != 0 && !keepPorts[hc] {
		s.portAlloc.Release(ctx, int(hc), svc.UID)
	}
}

// formatValue prints a bad value the way upstream's field errors do.
func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []string:
		b, _ := json.Marshal(x) // ["10.96.0.50"], as upstream's field errors print lists
		return string(b)
	default:
		return fmt.Sprint(v)
	}
}
