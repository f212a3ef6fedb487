package service

import (
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch08-full-cluster/cloudprovider"
)

// Which Services want a balancer, which changes matter to it, and which
// nodes it may use. Upstream: the same functions in controller.go.

// wantsLoadBalancer: type LoadBalancer without a loadBalancerClass (a
// class is another controller's balancer).
func wantsLoadBalancer(service *corev1.Service) bool {
	return service.Spec.Type == corev1.ServiceTypeLoadBalancer && service.Spec.LoadBalancerClass == nil
}

// needsCleanup: the finalizer is on and the Service is being deleted or
// no longer of type LoadBalancer.
func needsCleanup(service *corev1.Service) bool {
	if !cloudprovider.HasLBFinalizer(service) {
		return false
	}
	return service.DeletionTimestamp != nil || service.Spec.Type != corev1.ServiceTypeLoadBalancer
}

// needsUpdate: a change between old and cur the balancer must follow.
func needsUpdate(old, cur *corev1.Service, log *slog.Logger) bool {
	if !wantsLoadBalancer(old) && !wantsLoadBalancer(cur) {
		return false
	}
	key := cur.Namespace + "/" + cur.Name
	if wantsLoadBalancer(old) != wantsLoadBalancer(cur) {
		log.Debug("Service wants load balancer changed", "service", key, "from", old.Spec.Type, "to", cur.Spec.Type)
		return true
	}
	if wantsLoadBalancer(cur) && !slices.Equal(old.Spec.LoadBalancerSourceRanges, cur.Spec.LoadBalancerSourceRanges) {
		log.Debug("Service LoadBalancerSourceRanges changed", "service", key)
		return true
	}
	if !portsEqualForLB(old, cur) || old.Spec.SessionAffinity != cur.Spec.SessionAffinity {
		return true
	}
	if !reflect.DeepEqual(old.Spec.SessionAffinityConfig, cur.Spec.SessionAffinityConfig) {
		return true
	}
	if old.Spec.LoadBalancerIP != cur.Spec.LoadBalancerIP {
		log.Debug("Service LoadBalancerIP changed", "service", key, "from", old.Spec.LoadBalancerIP, "to", cur.Spec.LoadBalancerIP)
		return true
	}
	if !slices.Equal(old.Spec.ExternalIPs, cur.Spec.ExternalIPs) {
		log.Debug("Service ExternalIPs changed", "service", key)
		return true
	}
	if !maps.Equal(old.Annotations, cur.Annotations) {
		return true
	}
	if old.UID != cur.UID {
		log.Debug("Service UID changed", "service", key)
		return true
	}
	if old.Spec.ExternalTrafficPolicy != cur.Spec.ExternalTrafficPolicy {
		log.Debug("Service ExternalTrafficPolicy changed", "service", key)
		return true
	}
	if old.Spec.HealthCheckNodePort != cur.Spec.HealthCheckNodePort {
		log.Debug("Service HealthCheckNodePort changed", "service", key)
		return true
	}
	// Families can be added or removed, not swapped: the count says it.
	if len(old.Spec.IPFamilies) != len(cur.Spec.IPFamilies) {
		log.Debug("Service IPFamilies' count changed", "service", key)
		return true
	}
	return false
}

func portsEqualForLB(x, y *corev1.Service) bool {
	return slices.EqualFunc(x.Spec.Ports, y.Spec.Ports, func(a, b corev1.ServicePort) bool {
		return a.Name == b.Name && a.Protocol == b.Protocol && a.Port == b.Port && a.NodePort == b.NodePort &&
			a.TargetPort == b.TargetPort && reflect.DeepEqual(a.AppProtocol, b.AppProtocol)
	})
}

// NodeConditionPredicate tells whether a node may carry balancer traffic.
type NodeConditionPredicate func(node *corev1.Node) bool

// stableNodeSetPredicates choose the nodes of a balancer: not being
// deleted, not excluded by label, not about to be removed by the cluster
// autoscaler. Readiness is left to the cloud's health checks.
var stableNodeSetPredicates = []NodeConditionPredicate{
	nodeNotDeletedPredicate,
	nodeIncludedPredicate,
	nodeUnTaintedPredicate,
}

// nodeIncludedPredicate: no node.kubernetes.io/exclude-from-external-load-balancers
// label, or one that parses as false.
func nodeIncludedPredicate(node *corev1.Node) bool {
	v, ok := node.Labels[corev1.LabelNodeExcludeBalancers]
	if !ok {
		return true
	}
	exclude, err := strconv.ParseBool(v)
	return err == nil && !exclude
}

func nodeUnTaintedPredicate(node *corev1.Node) bool {
	return !slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == ToBeDeletedTaint })
}

func nodeNotDeletedPredicate(node *corev1.Node) bool { return node.DeletionTimestamp == nil }

func filterWithPredicates(nodes []*corev1.Node, predicates ...NodeConditionPredicate) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range nodes {
		if respectsPredicates(n, predicates...) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Node) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

func respectsPredicates(node *corev1.Node, predicates ...NodeConditionPredicate) bool {
	for _, p := range predicates {
		if !p(node) {
			return false
		}
	}
	return true
}

// shouldSyncUpdatedNode: a Node update that may change some balancer's
// node set (the label predicate flipped, or the provider ID changed).
func shouldSyncUpdatedNode(old, cur *corev1.Node) bool {
	if respectsPredicates(old, nodeIncludedPredicate) != respectsPredicates(cur, nodeIncludedPredicate) {
		return true
	}
	return old.Spec.ProviderID != cur.Spec.ProviderID
}

// nodesSufficientlyEqual: the same node names with the same provider IDs.
func nodesSufficientlyEqual(oldNodes, newNodes []*corev1.Node) bool {
	if len(oldNodes) != len(newNodes) {
		return false
	}
	distill := func(nodes []*corev1.Node) map[string]string {
		m := map[string]string{}
		for _, n := range nodes {
			m[n.Name] = n.Spec.ProviderID
		}
		return m
	}
	return maps.Equal(distill(oldNodes), distill(newNodes))
}

// loggableNodeNames are the sorted names, the first 20 and "<N more>".
func loggableNodeNames(nodes []*corev1.Node) []string {
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) > maxNodeNamesToLog {
		return append(names[:maxNodeNamesToLog], fmt.Sprintf("<%d more>", len(names)-maxNodeNamesToLog))
	}
	return names
}
