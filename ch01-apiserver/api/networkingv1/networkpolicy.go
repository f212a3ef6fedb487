package networkingv1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
)

// NetworkPolicy describes what network traffic is allowed for a set of pods.
// The apiserver stores it; a network plugin enforces it.
type NetworkPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behavior of the policy.
	Spec NetworkPolicySpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// PolicyType is "Ingress" or "Egress".
type PolicyType string

// The policy types.
const (
	PolicyTypeIngress PolicyType = "Ingress"
	PolicyTypeEgress  PolicyType = "Egress"
)

// NetworkPolicySpec provides the specification of a NetworkPolicy.
type NetworkPolicySpec struct {
	// PodSelector selects the pods the policy applies to; empty selects all pods of the namespace.
	PodSelector metav1.LabelSelector `json:"podSelector" protobuf:"bytes,1,opt,name=podSelector"`
	// Ingress lists the allowed ingress rules.
	Ingress []NetworkPolicyIngressRule `json:"ingress,omitempty" protobuf:"bytes,2,rep,name=ingress"`
	// Egress lists the allowed egress rules.
	Egress []NetworkPolicyEgressRule `json:"egress,omitempty" protobuf:"bytes,3,rep,name=egress"`
	// PolicyTypes lists the rule types the policy relates to: "Ingress", "Egress" or both.
	PolicyTypes []PolicyType `json:"policyTypes,omitempty" protobuf:"bytes,4,rep,name=policyTypes,casttype=PolicyType"`
}

// NetworkPolicyIngressRule allows traffic to the selected pods that matches both ports and from.
type NetworkPolicyIngressRule struct {
	// Ports lists the ports traffic may come to; empty means all ports.
	Ports []NetworkPolicyPort `json:"ports,omitempty" protobuf:"bytes,1,rep,name=ports"`
	// From lists the sources traffic may come from; empty means all sources.
	From []NetworkPolicyPeer `json:"from,omitempty" protobuf:"bytes,2,rep,name=from"`
}

// NetworkPolicyEgressRule allows traffic from the selected pods that matches both ports and to.
type NetworkPolicyEgressRule struct {
	// Ports lists the destination ports of outgoing traffic; empty means all ports.
	Ports []NetworkPolicyPort `json:"ports,omitempty" protobuf:"bytes,1,rep,name=ports"`
	// To lists the destinations of outgoing traffic; empty means all destinations.
	To []NetworkPolicyPeer `json:"to,omitempty" protobuf:"bytes,2,rep,name=to"`
}

// NetworkPolicyPort describes a port (or range) to allow traffic on.
type NetworkPolicyPort struct {
	// Protocol is TCP (the default), UDP or SCTP.
	Protocol *corev1.Protocol `json:"protocol,omitempty" protobuf:"bytes,1,opt,name=protocol,casttype=k8s.io/api/core/v1.Protocol"`
	// Port is a numerical or named port; unset matches all ports.
	Port *intstr.IntOrString `json:"port,omitempty" protobuf:"bytes,2,opt,name=port"`
	// EndPort, with a numerical port, makes the range port..endPort.
	EndPort *int32 `json:"endPort,omitempty" protobuf:"bytes,3,opt,name=endPort"`
}

// IPBlock is a CIDR range, minus the ranges in except.
type IPBlock struct {
	// CIDR is the range, "192.168.1.0/24" or "2001:db8::/64".
	CIDR string `json:"cidr" protobuf:"bytes,1,name=cidr"`
	// Except lists ranges inside the CIDR that are not included.
	Except []string `json:"except,omitempty" protobuf:"bytes,2,rep,name=except"`
}

// NetworkPolicyPeer is a peer to allow traffic to or from: pods, namespaces or an IP block.
type NetworkPolicyPeer struct {
	// PodSelector selects pods (in the policy's namespace, or those namespaceSelector selects).
	PodSelector *metav1.LabelSelector `json:"podSelector,omitempty" protobuf:"bytes,1,opt,name=podSelector"`
	// NamespaceSelector selects namespaces.
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,2,opt,name=namespaceSelector"`
	// IPBlock is a range of IP addresses.
	IPBlock *IPBlock `json:"ipBlock,omitempty" protobuf:"bytes,3,rep,name=ipBlock"`
}

// NetworkPolicyList is a list of NetworkPolicies.
type NetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of NetworkPolicies.
	Items []NetworkPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}
