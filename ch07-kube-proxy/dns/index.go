package dns

import (
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
)

// Index is the in-memory state the answers are made from: the namespaces,
// the Services and, per Service, its endpoints gathered from its
// EndpointSlices. Each change of a Service or an EndpointSlice rebuilds
// that one Service's records (and its entries in the reverse maps);
// queries are map lookups under a read lock. Upstream: CoreDNS's
// dnsController (plugin/kubernetes/controller.go) with its service,
// endpoint and reverse indexes.
type Index struct {
	mu            sync.RWMutex
	namespaces    map[string]struct{}
	objects       map[string]*corev1.Service     // "ns/name": the Service as last seen
	services      map[string]*service            // "ns/name": its records
	slices        map[string]*endpointSlice      // "ns/slice-name"
	serviceSlices map[string]map[string]bool     // "ns/name" → keys of its slices
	clusterIPs    map[netip.Addr]map[string]bool // ClusterIP → Services that have it
	endpointIPs   map[netip.Addr]map[string]bool // endpoint IP → Services it is an endpoint of
	serial        uint32                         // the SOA serial: Unix time of the last change
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		namespaces:    map[string]struct{}{},
		objects:       map[string]*corev1.Service{},
		services:      map[string]*service{},
		slices:        map[string]*endpointSlice{},
		serviceSlices: map[string]map[string]bool{},
		clusterIPs:    map[netip.Addr]map[string]bool{},
		endpointIPs:   map[netip.Addr]map[string]bool{},
		serial:        uint32(time.Now().Unix()),
	}
}

// service is what DNS knows of one Service.
type service struct {
	name, namespace string
	headless        bool
	externalName    string       // fully qualified, lower case; set for type ExternalName
	clusterIPs      []netip.Addr // IPv4 only (this is an IPv4 cluster)
	ports           []port
	endpoints       []endpoint
	// byHostname: an endpoint's DNS label (its hostname, or its address
	// with dashes) → indexes into endpoints.
	byHostname map[string][]int
}

// port is a Service or EndpointSlice port; number -1 stands for an
// EndpointSlice without ports (CoreDNS's sentinel), which has no SRV.
type port struct {
	name     string // lower case
	protocol string // lower case: "tcp", "udp", "sctp"
	number   int32
}

// endpoint is one ready address of a Service.
type endpoint struct {
	addr     netip.Addr
	hostname string // DNS label: the endpoint's hostname or the address dashed (10-244-1-5)
	ports    []port
}

// endpointSlice is what DNS keeps of an EndpointSlice.
type endpointSlice struct {
	service   string // "ns/name" from the kubernetes.io/service-name label; "" when absent
	ports     []port
	endpoints []sliceEndpoint
}

type sliceEndpoint struct {
	addrs    []netip.Addr
	hostname string
	ready    bool
}

func key(namespace, name string) string {
	return strings.ToLower(namespace) + "/" + strings.ToLower(name)
}

// SetNamespace records that a namespace exists.
func (ix *Index) SetNamespace(name string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.namespaces[strings.ToLower(name)] = struct{}{}
	ix.touch()
}

// DeleteNamespace forgets a namespace.
func (ix *Index) DeleteNamespace(name string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	delete(ix.namespaces, strings.ToLower(name))
	ix.touch()
}

// SetService adds or replaces a Service.
func (ix *Index) SetService(svc *corev1.Service) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	k := key(svc.Namespace, svc.Name)
	ix.objects[k] = svc
	ix.rebuild(k)
}

// DeleteService removes a Service and its records.
func (ix *Index) DeleteService(namespace, name string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	k := key(namespace, name)
	delete(ix.objects, k)
	ix.rebuild(k)
}

// SetEndpointSlice adds or replaces an EndpointSlice. Only IPv4 slices
// count; the others are treated as deleted.
func (ix *Index) SetEndpointSlice(es *discoveryv1.EndpointSlice) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	k := key(es.Namespace, es.Name)
	old := ix.slices[k]
	s := parseEndpointSlice(es)
	if s == nil {
		ix.removeSlice(k)
		return
	}
	ix.slices[k] = s
	if old != nil && old.service != s.service {
		ix.unlinkSlice(old.service, k)
		ix.rebuild(old.service)
	}
	if s.service != "" {
		if ix.serviceSlices[s.service] == nil {
			ix.serviceSlices[s.service] = map[string]bool{}
		}
		ix.serviceSlices[s.service][k] = true
		ix.rebuild(s.service)
	}
}

// DeleteEndpointSlice removes an EndpointSlice.
func (ix *Index) DeleteEndpointSlice(namespace, name string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeSlice(key(namespace, name))
}

func (ix *Index) removeSlice(k string) {
	old := ix.slices[k]
	if old == nil {
		return
	}
	delete(ix.slices, k)
	ix.unlinkSlice(old.service, k)
	ix.rebuild(old.service)
}

func (ix *Index) unlinkSlice(svcKey, sliceKey string) {
	if m := ix.serviceSlices[svcKey]; m != nil {
		delete(m, sliceKey)
		if len(m) == 0 {
			delete(ix.serviceSlices, svcKey)
		}
	}
}

func parseEndpointSlice(es *discoveryv1.EndpointSlice) *endpointSlice {
	if es.AddressType != discoveryv1.AddressTypeIPv4 {
		return nil
	}
	s := &endpointSlice{}
	if name := es.Labels[discoveryv1.LabelServiceName]; name != "" {
		s.service = key(es.Namespace, name)
	}
	for _, p := range es.Ports {
		pp := port{number: -1, protocol: "tcp"}
		if p.Name != nil {
			pp.name = strings.ToLower(*p.Name)
		}
		if p.Protocol != nil {
			pp.protocol = strings.ToLower(string(*p.Protocol))
		}
		if p.Port != nil {
			pp.number = *p.Port
		}
		s.ports = append(s.ports, pp)
	}
	if len(s.ports) == 0 {
		s.ports = []port{{number: -1}}
	}
	for _, e := range es.Endpoints {
		se := sliceEndpoint{ready: e.Conditions.Ready == nil || *e.Conditions.Ready}
		if e.Hostname != nil {
			se.hostname = strings.ToLower(*e.Hostname)
		}
		for _, a := range e.Addresses {
			if ip, err := netip.ParseAddr(a); err == nil && ip.Is4() {
				se.addrs = append(se.addrs, ip)
			}
		}
		s.endpoints = append(s.endpoints, se)
	}
	return s
}

// rebuild recomputes the records of Service k from its object and slices,
// and its entries in the reverse maps.
func (ix *Index) rebuild(k string) {
	if k == "" {
		return
	}
	ix.touch()
	if old := ix.services[k]; old != nil {
		for _, ip := range old.clusterIPs {
			unmap(ix.clusterIPs, ip, k)
		}
		for _, e := range old.endpoints {
			unmap(ix.endpointIPs, e.addr, k)
		}
		delete(ix.services, k)
	}
	obj := ix.objects[k]
	if obj == nil {
		return
	}
	s := ix.newService(obj)
	ix.services[k] = s
	for _, ip := range s.clusterIPs {
		addMap(ix.clusterIPs, ip, k)
	}
	for _, e := range s.endpoints {
		addMap(ix.endpointIPs, e.addr, k)
	}
}

func (ix *Index) newService(obj *corev1.Service) *service {
	s := &service{name: strings.ToLower(obj.Name), namespace: strings.ToLower(obj.Namespace)}
	if obj.Spec.Type == corev1.ServiceTypeExternalName {
		// An ExternalName that is an IP address is not answered
		// (CoreDNS: only a name makes a CNAME).
		if _, err := netip.ParseAddr(obj.Spec.ExternalName); err != nil && obj.Spec.ExternalName != "" {
			s.externalName = strings.ToLower(strings.TrimSuffix(obj.Spec.ExternalName, ".") + ".")
		}
		return s
	}
	s.headless = obj.Spec.ClusterIP == corev1.ClusterIPNone
	ips := obj.Spec.ClusterIPs
	if len(ips) == 0 && obj.Spec.ClusterIP != "" {
		ips = []string{obj.Spec.ClusterIP}
	}
	for _, ip := range ips {
		if a, err := netip.ParseAddr(ip); err == nil && a.Is4() {
			s.clusterIPs = append(s.clusterIPs, a)
		}
	}
	for _, p := range obj.Spec.Ports {
		proto := strings.ToLower(string(p.Protocol))
		if proto == "" {
			proto = "tcp"
		}
		s.ports = append(s.ports, port{name: strings.ToLower(p.Name), protocol: proto, number: p.Port})
	}

	// Endpoints from every slice of the Service, in a stable order (slice
	// name), each address once. A not-ready endpoint counts when the
	// Service publishes not-ready addresses.
	sliceKeys := make([]string, 0, len(ix.serviceSlices[key(obj.Namespace, obj.Name)]))
	for sk := range ix.serviceSlices[key(obj.Namespace, obj.Name)] {
		sliceKeys = append(sliceKeys, sk)
	}
	slices.Sort(sliceKeys)
	seen := map[netip.Addr]int{}
	for _, sk := range sliceKeys {
		sl := ix.slices[sk]
		for _, se := range sl.endpoints {
			if !se.ready && !obj.Spec.PublishNotReadyAddresses {
				continue
			}
			for _, a := range se.addrs {
				if i, dup := seen[a]; dup {
					s.endpoints[i].ports = mergePorts(s.endpoints[i].ports, sl.ports)
					continue
				}
				host := se.hostname
				if host == "" {
					host = strings.ReplaceAll(a.String(), ".", "-")
				}
				seen[a] = len(s.endpoints)
				s.endpoints = append(s.endpoints, endpoint{addr: a, hostname: host, ports: sl.ports})
			}
		}
	}
	s.byHostname = make(map[string][]int, len(s.endpoints))
	for i, e := range s.endpoints {
		s.byHostname[e.hostname] = append(s.byHostname[e.hostname], i)
	}
	return s
}

// mergePorts is a ∪ b (an address listed in two slices with different ports).
func mergePorts(a, b []port) []port {
	out := slices.Clone(a)
	for _, p := range b {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func addMap(m map[netip.Addr]map[string]bool, ip netip.Addr, k string) {
	if m[ip] == nil {
		m[ip] = map[string]bool{}
	}
	m[ip][k] = true
}

func unmap(m map[netip.Addr]map[string]bool, ip netip.Addr, k string) {
	if s := m[ip]; s != nil {
		delete(s, k)
		if len(s) == 0 {
			delete(m, ip)
		}
	}
}

// touch moves the SOA serial on: as CoreDNS's, it is the Unix time of
// the last change (and never goes back).
func (ix *Index) touch() {
	ix.serial = max(ix.serial, uint32(time.Now().Unix()))
}

// Serial is the SOA serial.
func (ix *Index) Serial() uint32 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.serial
}
