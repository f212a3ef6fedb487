package defaults

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/networkingv1"
)

// setDefaultsNetworkPolicy is SetDefaults_NetworkPolicy with
// SetDefaults_NetworkPolicyPort of networking/v1: a policy that names no
// policyTypes is an Ingress policy (and an Egress one too when it has egress
// rules), and a port without a protocol is TCP.
func setDefaultsNetworkPolicy(np *networkingv1.NetworkPolicy) {
	for i := range np.Spec.Ingress {
		defaultNetworkPolicyPorts(np.Spec.Ingress[i].Ports)
	}
	for i := range np.Spec.Egress {
		defaultNetworkPolicyPorts(np.Spec.Egress[i].Ports)
	}
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) != 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
}

func defaultNetworkPolicyPorts(ports []networkingv1.NetworkPolicyPort) {
	for i := range ports {
		if ports[i].Protocol == nil {
			ports[i].Protocol = ptrTo(corev1.ProtocolTCP)
		}
	}
}

// setDefaultsIngressClass is SetDefaults_IngressClass: parameters without a
// scope refer to a cluster-scoped object.
func setDefaultsIngressClass(ic *networkingv1.IngressClass) {
	if p := ic.Spec.Parameters; p != nil && p.Scope == nil {
		p.Scope = ptrTo(networkingv1.IngressClassParametersReferenceScopeCluster)
	}
}
