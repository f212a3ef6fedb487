package proxy

import (
	"kubik/ch01-apiserver/api/corev1"
)

// preferSameTrafficDistribution is the PreferSameTrafficDistribution
// feature gate (on by default in 1.35): node hints are used.
var preferSameTrafficDistribution = true

// Traffic distribution modes a Service's hints select.
const (
	topologyPreferSameZone = "PreferSameZone"
	topologyPreferSameNode = "PreferSameNode"
)

// CategorizeEndpoints picks the endpoints a Service port's traffic
// policies use from this node:
//
//   - clusterEndpoints: for Cluster traffic policy (with topology hints
//     taken into account), nil if the port never uses Cluster policy;
//   - localEndpoints: for Local traffic policy, nil if never used;
//   - allReachableEndpoints: the union of the two;
//   - hasAnyEndpoints: whether the Service has usable endpoints anywhere
//     in the cluster (even if none is reachable from here).
//
// "Usable" means Ready; if there are none, serving-terminating endpoints
// are used instead (independently for Cluster and Local).
func CategorizeEndpoints(endpoints []Endpoint, svcInfo ServicePort, nodeName string, topologyLabels map[string]string) (clusterEndpoints, localEndpoints, allReachableEndpoints []Endpoint, hasAnyEndpoints bool) {
	if len(endpoints) == 0 {
		return
	}
	var topologyMode string
	var useServingTerminatingEndpoints bool

	if svcInfo.UsesClusterEndpoints() {
		zone := topologyLabels[corev1.LabelTopologyZone]
		topologyMode = topologyModeFromHints(endpoints, nodeName, zone)
		clusterEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool {
			return ep.IsReady() && availableForTopology(ep, topologyMode, nodeName, zone)
		})
		// No ready endpoints anywhere (topology was already ignored if it
		// left none): fall back to serving-terminating ones.
		if len(clusterEndpoints) == 0 {
			clusterEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool {
				return ep.IsServing() && ep.IsTerminating()
			})
		}
		if len(clusterEndpoints) > 0 {
			hasAnyEndpoints = true
		}
	}

	if !svcInfo.UsesLocalEndpoints() {
		allReachableEndpoints = clusterEndpoints
		return
	}

	var hasLocalReadyEndpoints, hasLocalServingTerminatingEndpoints bool
	for _, ep := range endpoints {
		if ep.IsReady() {
			hasAnyEndpoints = true
			if ep.IsLocal() {
				hasLocalReadyEndpoints = true
			}
		} else if ep.IsServing() && ep.IsTerminating() {
			hasAnyEndpoints = true
			if ep.IsLocal() {
				hasLocalServingTerminatingEndpoints = true
			}
		}
	}

	if hasLocalReadyEndpoints {
		localEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool { return ep.IsLocal() && ep.IsReady() })
	} else if hasLocalServingTerminatingEndpoints {
		useServingTerminatingEndpoints = true
		localEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool {
			return ep.IsLocal() && ep.IsServing() && ep.IsTerminating()
		})
	}

	if !svcInfo.UsesClusterEndpoints() {
		allReachableEndpoints = localEndpoints
		return
	}

	if topologyMode == "" && !useServingTerminatingEndpoints {
		// clusterEndpoints holds every ready endpoint, a superset of
		// localEndpoints.
		allReachableEndpoints = clusterEndpoints
		return
	}

	// Merge: clusterEndpoints may hold remote endpoints localEndpoints lacks,
	// localEndpoints may hold terminating or topologically excluded local
	// ones. (Upstream builds this union from a map, in no particular order;
	// we keep the order of endpoints so that the rules are deterministic.)
	in := map[string]bool{}
	for _, ep := range clusterEndpoints {
		in[ep.String()] = true
	}
	for _, ep := range localEndpoints {
		in[ep.String()] = true
	}
	allReachableEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool { return in[ep.String()] })
	return
}

// topologyModeFromHints is PreferSameNode if every ready endpoint has a
// node hint and one is for this node; else PreferSameZone if every ready
// endpoint has a zone hint and one is for this node's zone; else "".
func topologyModeFromHints(endpoints []Endpoint, nodeName, zone string) string {
	hasEndpointForNode, allEndpointsHaveNodeHints := false, true
	hasEndpointForZone, allEndpointsHaveZoneHints := false, true
	for _, ep := range endpoints {
		if !ep.IsReady() {
			continue
		}
		if len(ep.NodeHints()) == 0 {
			allEndpointsHaveNodeHints = false
		} else if ep.NodeHints()[nodeName] {
			hasEndpointForNode = true
		}
		if len(ep.ZoneHints()) == 0 {
			allEndpointsHaveZoneHints = false
		} else if ep.ZoneHints()[zone] {
			hasEndpointForZone = true
		}
	}
	if preferSameTrafficDistribution && allEndpointsHaveNodeHints && hasEndpointForNode {
		return topologyPreferSameNode
	}
	if allEndpointsHaveZoneHints && hasEndpointForZone {
		return topologyPreferSameZone
	}
	return ""
}

func availableForTopology(ep Endpoint, topologyMode, nodeName, zone string) bool {
	switch topologyMode {
	case "":
		return true
	case topologyPreferSameNode:
		return ep.NodeHints()[nodeName]
	case topologyPreferSameZone:
		return ep.ZoneHints()[zone]
	}
	return false
}

func filterEndpoints(endpoints []Endpoint, predicate func(Endpoint) bool) []Endpoint {
	out := make([]Endpoint, 0, len(endpoints))
	for _, ep := range endpoints {
		if predicate(ep) {
			out = append(out, ep)
		}
	}
	return out
}
