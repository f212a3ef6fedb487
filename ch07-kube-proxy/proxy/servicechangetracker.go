package proxy

import (
	"reflect"
	"sort"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

// ServicePortMap maps a service port to what the proxier knows about it.
type ServicePortMap map[ServicePortName]ServicePort

// MakeServicePortFunc lets a proxier wrap the base info with its own fields
// (chain names).
type MakeServicePortFunc func(port *corev1.ServicePort, service *corev1.Service, base *BaseServicePortInfo) ServicePort

// ServiceChangeTracker carries the not yet synced changes of any number of
// Services, keyed by namespace and name. For each Service it remembers the
// state before the first unsynced change (previous) and after the last one
// (current); a change that ends where it started is forgotten.
type ServiceChangeTracker struct {
	lock            sync.Mutex
	items           map[NamespacedName]*serviceChange
	makeServiceInfo MakeServicePortFunc
	ipFamily        corev1.IPFamily
}

type serviceChange struct {
	previous ServicePortMap
	current  ServicePortMap
}

// NewServiceChangeTracker returns a tracker for Services of ipFamily.
func NewServiceChangeTracker(ipFamily corev1.IPFamily, makeServiceInfo MakeServicePortFunc) *ServiceChangeTracker {
	return &ServiceChangeTracker{items: map[NamespacedName]*serviceChange{}, makeServiceInfo: makeServiceInfo, ipFamily: ipFamily}
}

// Update records the change from previous to current (either may be nil,
// not both). It reports whether there are changes to sync (from this call
// or earlier ones).
func (sct *ServiceChangeTracker) Update(previous, current *corev1.Service) bool {
	if previous == nil && current == nil {
		return false
	}
	svc := current
	if svc == nil {
		svc = previous
	}
	nn := NamespacedName{Namespace: svc.Namespace, Name: svc.Name}

	sct.lock.Lock()
	defer sct.lock.Unlock()
	change, exists := sct.items[nn]
	if !exists {
		change = &serviceChange{previous: sct.serviceToServiceMap(previous)}
		sct.items[nn] = change
	}
	change.current = sct.serviceToServiceMap(current)
	if reflect.DeepEqual(change.previous, change.current) {
		delete(sct.items, nn)
	}
	return len(sct.items) > 0
}

// serviceToServiceMap translates one Service into its ports; Services
// without a cluster IP of our family (headless, ExternalName) have none.
func (sct *ServiceChangeTracker) serviceToServiceMap(service *corev1.Service) ServicePortMap {
	if service == nil || proxyutil.ShouldSkipService(service) {
		return nil
	}
	// (An unparsable cluster IP would make the whole sync fail; the
	// apiserver's validation does not let one through.)
	if clusterIP := proxyutil.GetClusterIPByFamily(sct.ipFamily, service); clusterIP == "" || proxyutil.ParseIPSloppy(clusterIP) == nil {
		return nil
	}
	m := make(ServicePortMap)
	svcName := NamespacedName{Namespace: service.Namespace, Name: service.Name}
	for i := range service.Spec.Ports {
		sp := &service.Spec.Ports[i]
		name := ServicePortName{NamespacedName: svcName, Port: sp.Name, Protocol: sp.Protocol}
		base := newBaseServiceInfo(service, sct.ipFamily, sp)
		if sct.makeServiceInfo != nil {
			m[name] = sct.makeServiceInfo(sp, service, base)
		} else {
			m[name] = base
		}
	}
	return m
}

// UpdateServiceMapResult says what ServicePortMap.Update changed.
type UpdateServiceMapResult struct {
	// UpdatedServices are the Services added, updated or deleted.
	UpdatedServices map[NamespacedName]bool
}

// Update applies the tracker's changes to sm and clears them.
func (sm ServicePortMap) Update(sct *ServiceChangeTracker) UpdateServiceMapResult {
	sct.lock.Lock()
	defer sct.lock.Unlock()
	result := UpdateServiceMapResult{UpdatedServices: map[NamespacedName]bool{}}
	for nn, change := range sct.items {
		result.UpdatedServices[nn] = true
		for name, info := range change.current {
			sm[name] = info
		}
		// Ports in both previous and current were updated, not deleted.
		for name := range change.previous {
			if _, ok := change.current[name]; ok {
				continue
			}
			delete(sm, name)
		}
	}
	sct.items = map[NamespacedName]*serviceChange{}
	return result
}

// HealthCheckNodePorts maps Services to their non-zero healthCheckNodePort.
func (sm ServicePortMap) HealthCheckNodePorts() map[NamespacedName]uint16 {
	ports := map[NamespacedName]uint16{}
	for name, info := range sm {
		if info.HealthCheckNodePort() != 0 {
			ports[name.NamespacedName] = uint16(info.HealthCheckNodePort())
		}
	}
	return ports
}

// SortedNames lists the map's service ports in a fixed order (namespace,
// name, port name, protocol), so that a proxier writes its rules in the
// same order every time. (Upstream walks the map in Go's random order.)
func (sm ServicePortMap) SortedNames() []ServicePortName {
	type keyed struct {
		key  string
		name ServicePortName
	}
	ks := make([]keyed, 0, len(sm))
	for name := range sm {
		ks = append(ks, keyed{name.Namespace + "\x00" + name.Name + "\x00" + name.Port + "\x00" + string(name.Protocol), name})
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].key < ks[j].key })
	names := make([]ServicePortName, len(ks))
	for i, k := range ks {
		names[i] = k.name
	}
	return names
}
