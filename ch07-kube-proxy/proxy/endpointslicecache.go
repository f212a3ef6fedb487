package proxy

import (
	"fmt"
	"reflect"
	"sort"

	"kubik/ch01-apiserver/api/discoveryv1"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

// EndpointSliceCache holds the EndpointSlices of every Service, grouped by
// Service and slice name: an endpoint can move from one slice to another,
// so the endpoints of a Service are always computed from all its slices.
// Each Service's slices are "applied" (what the rules were last built from)
// or "pending" (changed since).
type EndpointSliceCache struct {
	trackerByServiceMap map[NamespacedName]*endpointSliceTracker
	makeEndpointInfo    MakeEndpointFunc
	nodeName            string
}

type endpointSliceTracker struct {
	applied endpointSliceDataByName
	pending endpointSliceDataByName
}

// endpointSliceDataByName groups slice data by slice name.
type endpointSliceDataByName map[string]*endpointSliceData

// spToEndpointMap groups endpoints by service port and "ip:port".
type spToEndpointMap map[ServicePortName]map[string]Endpoint

// endpointSliceData is one slice update, or its removal.
type endpointSliceData struct {
	endpointSlice *discoveryv1.EndpointSlice
	remove        bool
}

// NewEndpointSliceCache returns an empty cache.
func NewEndpointSliceCache(nodeName string, makeEndpointInfo MakeEndpointFunc) *EndpointSliceCache {
	if makeEndpointInfo == nil {
		makeEndpointInfo = func(ep *BaseEndpointInfo, _ *ServicePortName) Endpoint { return ep }
	}
	return &EndpointSliceCache{trackerByServiceMap: map[NamespacedName]*endpointSliceTracker{}, nodeName: nodeName, makeEndpointInfo: makeEndpointInfo}
}

// updatePending records a slice change; it reports whether anything changed.
func (cache *EndpointSliceCache) updatePending(endpointSlice *discoveryv1.EndpointSlice, remove bool) bool {
	serviceKey, sliceKey, err := endpointSliceCacheKeys(endpointSlice)
	if err != nil {
		return false
	}
	esData := &endpointSliceData{endpointSlice, remove}
	if _, ok := cache.trackerByServiceMap[serviceKey]; !ok {
		cache.trackerByServiceMap[serviceKey] = &endpointSliceTracker{applied: endpointSliceDataByName{}, pending: endpointSliceDataByName{}}
	}
	changed := cache.esDataChanged(serviceKey, sliceKey, esData)
	if changed {
		cache.trackerByServiceMap[serviceKey].pending[sliceKey] = esData
	}
	return changed
}

// checkoutChanges returns the endpoints before and after the pending
// changes of every changed Service, and marks the changes applied.
func (cache *EndpointSliceCache) checkoutChanges() map[NamespacedName]*endpointsChange {
	changes := map[NamespacedName]*endpointsChange{}
	for serviceNN, esTracker := range cache.trackerByServiceMap {
		if len(esTracker.pending) == 0 {
			continue
		}
		change := &endpointsChange{previous: cache.getEndpointsMap(serviceNN, esTracker.applied)}
		for name, sliceData := range esTracker.pending {
			if sliceData.remove {
				delete(esTracker.applied, name)
			} else {
				esTracker.applied[name] = sliceData
			}
			delete(esTracker.pending, name)
		}
		if len(esTracker.applied) == 0 {
			delete(cache.trackerByServiceMap, serviceNN)
		}
		change.current = cache.getEndpointsMap(serviceNN, esTracker.applied)
		changes[serviceNN] = change
	}
	return changes
}

// getEndpointsMap computes the endpoints of each port of a Service from
// its slices.
func (cache *EndpointSliceCache) getEndpointsMap(serviceNN NamespacedName, slices endpointSliceDataByName) EndpointsMap {
	return endpointsMapFromEndpointInfo(cache.endpointInfoByServicePort(serviceNN, slices))
}

// endpointInfoByServicePort groups the endpoints of the slices by service
// port and "ip:port" (an endpoint in two slices counts once).
func (cache *EndpointSliceCache) endpointInfoByServicePort(serviceNN NamespacedName, slices endpointSliceDataByName) spToEndpointMap {
	bySP := spToEndpointMap{}
	for _, sliceData := range slices {
		for _, port := range sliceData.endpointSlice.Ports {
			if port.Name == nil || port.Port == nil || *port.Port == 0 || port.Protocol == nil {
				continue
			}
			name := ServicePortName{NamespacedName: serviceNN, Port: *port.Name, Protocol: *port.Protocol}
			bySP[name] = cache.addEndpoints(&name, int(*port.Port), bySP[name], sliceData.endpointSlice.Endpoints)
		}
	}
	return bySP
}

// endpointsMapFromEndpointInfo sorts each port's endpoints by "ip:port".
func endpointsMapFromEndpointInfo(bySP spToEndpointMap) EndpointsMap {
	m := EndpointsMap{}
	for name, set := range bySP {
		if len(set) == 0 {
			continue
		}
		eps := make([]Endpoint, 0, len(set))
		for _, ep := range set {
			eps = append(eps, ep)
		}
		// The same order every time, to simplify diffing.
		sort.Slice(eps, func(i, j int) bool { return eps[i].String() < eps[j].String() })
		m[name] = eps
	}
	return m
}

func (cache *EndpointSliceCache) addEndpoints(svcPortName *ServicePortName, portNum int, set map[string]Endpoint, endpoints []discoveryv1.Endpoint) map[string]Endpoint {
	if set == nil {
		set = map[string]Endpoint{}
	}
	for _, endpoint := range endpoints {
		if len(endpoint.Addresses) == 0 {
			continue
		}
		ip := proxyutil.ParseIPSloppy(endpoint.Addresses[0])
		if ip == nil {
			continue
		}
		isLocal := endpoint.NodeName != nil && cache.nodeName != "" && *endpoint.NodeName == cache.nodeName
		ready := endpoint.Conditions.Ready == nil || *endpoint.Conditions.Ready
		serving := endpoint.Conditions.Serving == nil || *endpoint.Conditions.Serving
		terminating := endpoint.Conditions.Terminating != nil && *endpoint.Conditions.Terminating

		var zoneHints, nodeHints map[string]bool
		if endpoint.Hints != nil {
			if len(endpoint.Hints.ForZones) > 0 {
				zoneHints = map[string]bool{}
				for _, z := range endpoint.Hints.ForZones {
					zoneHints[z.Name] = true
				}
			}
			if len(endpoint.Hints.ForNodes) > 0 && preferSameTrafficDistribution {
				nodeHints = map[string]bool{}
				for _, n := range endpoint.Hints.ForNodes {
					nodeHints[n.Name] = true
				}
			}
		}

		info := NewBaseEndpointInfo(ip.String(), portNum, isLocal, ready, serving, terminating, zoneHints, nodeHints)
		// Overlapping slices may list an endpoint twice; isLocal should
		// not differ, but if it does, a local copy wins.
		if _, exists := set[info.String()]; !exists || isLocal {
			set[info.String()] = cache.makeEndpointInfo(info, svcPortName)
		}
	}
	return set
}

// esDataChanged reports whether esData differs from what the cache has.
func (cache *EndpointSliceCache) esDataChanged(serviceKey NamespacedName, sliceKey string, esData *endpointSliceData) bool {
	if t, ok := cache.trackerByServiceMap[serviceKey]; ok {
		if pending, ok := t.pending[sliceKey]; ok {
			return !reflect.DeepEqual(esData, pending)
		}
		if applied, ok := t.applied[sliceKey]; ok {
			return !reflect.DeepEqual(esData, applied)
		}
	}
	// Removing a slice the cache never had changes nothing.
	return !esData.remove
}

// endpointSliceCacheKeys are the Service (from the kubernetes.io/service-name
// label) and the slice name.
func endpointSliceCacheKeys(endpointSlice *discoveryv1.EndpointSlice) (NamespacedName, string, error) {
	serviceName, ok := endpointSlice.Labels[discoveryv1.LabelServiceName]
	var err error
	if !ok || serviceName == "" {
		err = fmt.Errorf("no %s label set on endpoint slice: %s", discoveryv1.LabelServiceName, endpointSlice.Name)
	} else if endpointSlice.Namespace == "" || endpointSlice.Name == "" {
		err = fmt.Errorf("expected EndpointSlice name and namespace to be set: %s/%s", endpointSlice.Namespace, endpointSlice.Name)
	}
	return NamespacedName{Namespace: endpointSlice.Namespace, Name: serviceName}, endpointSlice.Name, err
}
