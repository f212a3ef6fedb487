package apiserver

import (
	"slices"

	"kubik/ch01-apiserver/api/corev1"
)

// A Service is a union whose discriminator is spec.type: some fields make
// sense only for some types, and several of them were filled in by the
// apiserver (allocated ClusterIPs and node ports, defaulted policies).
// When an update changes the type, dropTypeDependentFields clears what the
// new type does not use and the client did not touch itself, so that
// `kubectl patch svc x -p '{"spec":{"type":"ClusterIP"}}'` on a
// LoadBalancer works and frees its node ports, as upstream's
// dropTypeDependentFields (pkg/registry/core/service/storage) does. What
// was cleared is released after the write (release in allocators.go).
func dropTypeDependentFields(svc, old *corev1.Service) {
	spec, oldSpec := &svc.Spec, &old.Spec
	if needsClusterIP(old) && !needsClusterIP(svc) {
		if spec.ClusterIP == oldSpec.ClusterIP && slices.Equal(spec.ClusterIPs, oldSpec.ClusterIPs) {
			spec.ClusterIP, spec.ClusterIPs = "", nil
		}
		if slices.Equal(spec.IPFamilies, oldSpec.IPFamilies) {
			spec.IPFamilies = nil
		}
		if ptrEqual(spec.IPFamilyPolicy, oldSpec.IPFamilyPolicy) {
			spec.IPFamilyPolicy = nil
		}
		if ptrEqual(spec.InternalTrafficPolicy, oldSpec.InternalTrafficPolicy) {
			spec.InternalTrafficPolicy = nil
		}
	}
	// Node ports go when the new type has none, unless the client asked for
	// a node port the Service did not have (then validation refuses it).
	if needsNodePorts(old) && !needsNodePorts(svc) && nodePortsSubset(svc, old) {
		for i := range spec.Ports {
			spec.Ports[i].NodePort = 0
		}
	}
	if needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(svc) && spec.HealthCheckNodePort == oldSpec.HealthCheckNodePort {
		spec.HealthCheckNodePort = 0
	}
	if oldSpec.Type == corev1.ServiceTypeLoadBalancer && spec.Type != corev1.ServiceTypeLoadBalancer {
		if spec.AllocateLoadBalancerNodePorts != nil && ptrEqual(spec.AllocateLoadBalancerNodePorts, oldSpec.AllocateLoadBalancerNodePorts) {
			spec.AllocateLoadBalancerNodePorts = nil
		}
		if ptrEqual(spec.LoadBalancerClass, oldSpec.LoadBalancerClass) {
			spec.LoadBalancerClass = nil
		}
	}
	if externallyAccessible(old) && !externallyAccessible(svc) && spec.ExternalTrafficPolicy == oldSpec.ExternalTrafficPolicy {
		spec.ExternalTrafficPolicy = ""
	}
	if spec.Type != corev1.ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
}

func needsClusterIP(svc *corev1.Service) bool { return svc.Spec.Type != corev1.ServiceTypeExternalName }

func needsNodePorts(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer
}

// needsHealthCheckNodePort: a LoadBalancer that keeps the client's source
// address gets a node port where kube-proxy answers whether the node has
// local endpoints (upstream's NeedsHealthCheck).
func needsHealthCheckNodePort(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// externallyAccessible: reachable from outside the cluster by node ports or
// external IPs (upstream's ExternallyAccessible).
func externallyAccessible(svc *corev1.Service) bool {
	return needsNodePorts(svc) || (svc.Spec.Type == corev1.ServiceTypeClusterIP && len(svc.Spec.ExternalIPs) > 0)
}

// nodePortsSubset: svc asks for no node port that old did not have.
func nodePortsSubset(svc, old *corev1.Service) bool {
	had := map[int32]bool{}
	for _, p := range old.Spec.Ports {
		had[p.NodePort] = true
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 && !had[p.NodePort] {
			return false
		}
	}
	return true
}

func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
