package proxy

import (
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
)

// EndpointsMap maps a service port to its endpoints, sorted by "ip:port".
type EndpointsMap map[ServicePortName][]Endpoint

// MakeEndpointFunc lets a proxier wrap the base info with its own fields.
type MakeEndpointFunc func(info *BaseEndpointInfo, svcPortName *ServicePortName) Endpoint

// EndpointsChangeTracker carries the not yet synced EndpointSlice changes.
// The slices live in an EndpointSliceCache; the tracker hands out the
// changed Services' endpoints when the proxier syncs.
type EndpointsChangeTracker struct {
	lock               sync.Mutex
	addressType        discoveryv1.AddressType
	endpointSliceCache *EndpointSliceCache
}

// NewEndpointsChangeTracker tracks the slices of ipFamily's address type;
// endpoints whose nodeName is nodeName are local.
func NewEndpointsChangeTracker(ipFamily corev1.IPFamily, nodeName string, makeEndpointInfo MakeEndpointFunc) *EndpointsChangeTracker {
	addressType := discoveryv1.AddressTypeIPv4
	if ipFamily == corev1.IPv6Protocol {
		addressType = discoveryv1.AddressTypeIPv6
	}
	return &EndpointsChangeTracker{addressType: addressType, endpointSliceCache: NewEndpointSliceCache(nodeName, makeEndpointInfo)}
}

// EndpointSliceUpdate records an added/updated slice, or a removed one
// (removeSlice). It reports whether this call changed anything to sync.
func (ect *EndpointsChangeTracker) EndpointSliceUpdate(endpointSlice *discoveryv1.EndpointSlice, removeSlice bool) bool {
	if endpointSlice.AddressType != ect.addressType {
		return false
	}
	if _, _, err := endpointSliceCacheKeys(endpointSlice); err != nil {
		return false
	}
	ect.lock.Lock()
	defer ect.lock.Unlock()
	return ect.endpointSliceCache.updatePending(endpointSlice, removeSlice)
}

// checkoutChanges returns the pending changes and marks them applied.
func (ect *EndpointsChangeTracker) checkoutChanges() map[NamespacedName]*endpointsChange {
	ect.lock.Lock()
	defer ect.lock.Unlock()
	return ect.endpointSliceCache.checkoutChanges()
}

type endpointsChange struct {
	previous EndpointsMap
	current  EndpointsMap
}

// UpdateEndpointsMapResult says what EndpointsMap.Update changed.
type UpdateEndpointsMapResult struct {
	// UpdatedServices are the Services whose endpoints changed.
	UpdatedServices map[NamespacedName]bool
	// ConntrackCleanupRequired: a Service with a UDP port changed endpoints.
	ConntrackCleanupRequired bool
}

// Update applies the tracker's changes to em and clears them.
func (em EndpointsMap) Update(ect *EndpointsChangeTracker) UpdateEndpointsMapResult {
	result := UpdateEndpointsMapResult{UpdatedServices: map[NamespacedName]bool{}}
	if ect == nil {
		return result
	}
	changes := ect.checkoutChanges()
	for nn, change := range changes {
		result.UpdatedServices[nn] = true
		for name := range change.previous {
			delete(em, name)
		}
		for name, eps := range change.current {
			em[name] = eps
		}
		// A UDP service port whose endpoints changed may have conntrack
		// entries pointing at endpoints that are gone.
		for name := range change.previous {
			if name.Protocol == corev1.ProtocolUDP {
				result.ConntrackCleanupRequired = true
			}
		}
		for name := range change.current {
			if name.Protocol == corev1.ProtocolUDP {
				result.ConntrackCleanupRequired = true
			}
		}
	}
	return result
}

// getLocalReadyEndpointIPs maps Services to the IPs of their local, ready
// endpoints (terminating endpoints may still serve, but the health check
// fails when a node has only terminating endpoints).
func (em EndpointsMap) getLocalReadyEndpointIPs() map[NamespacedName]map[string]bool {
	ips := map[NamespacedName]map[string]bool{}
	for name, eps := range em {
		for _, ep := range eps {
			if !ep.IsReady() || !ep.IsLocal() {
				continue
			}
			if ips[name.NamespacedName] == nil {
				ips[name.NamespacedName] = map[string]bool{}
			}
			ips[name.NamespacedName][ep.IP()] = true
		}
	}
	return ips
}

// LocalReadyEndpoints maps Services to their number of local, ready
// endpoint IPs (an IP serving two ports counts once): what a health-check
// node port reports.
func (em EndpointsMap) LocalReadyEndpoints() map[NamespacedName]int {
	counts := map[NamespacedName]int{}
	for nn, set := range em.getLocalReadyEndpointIPs() {
		counts[nn] = len(set)
	}
	return counts
}
