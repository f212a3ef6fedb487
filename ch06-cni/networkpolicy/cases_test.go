package networkpolicy

import (
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
)

// modelCase is a set of policies and the truth table they must give on
// the model; the unit test computes it from the rules, the root test
// probes it through the kernel.
type modelCase struct {
	name     string
	policies []*networkingv1.NetworkPolicy
	want     func(from, to modelPod, port int32) bool
}

func ingressRule(ports []networkingv1.NetworkPolicyPort, from ...networkingv1.NetworkPolicyPeer) networkingv1.NetworkPolicyIngressRule {
	return networkingv1.NetworkPolicyIngressRule{Ports: ports, From: from}
}

func egressRule(ports []networkingv1.NetworkPolicyPort, to ...networkingv1.NetworkPolicyPeer) networkingv1.NetworkPolicyEgressRule {
	return networkingv1.NetworkPolicyEgressRule{Ports: ports, To: to}
}

func ports(p ...networkingv1.NetworkPolicyPort) []networkingv1.NetworkPolicyPort { return p }

func withIngress(p *networkingv1.NetworkPolicy, rules ...networkingv1.NetworkPolicyIngressRule) *networkingv1.NetworkPolicy {
	p.Spec.Ingress = rules
	return p
}

func withEgress(p *networkingv1.NetworkPolicy, rules ...networkingv1.NetworkPolicyEgressRule) *networkingv1.NetworkPolicy {
	p.Spec.Egress = rules
	return p
}

var (
	all     = map[string]string{}
	podA    = map[string]string{"pod": "a"}
	ingress = networkingv1.PolicyTypeIngress
	egress  = networkingv1.PolicyTypeEgress
)

func nsPeer(ns string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{NamespaceSelector: labels("ns", ns)}
}

func isXA(p modelPod) bool { return p.NS == "x" && p.Name == "a" }

func modelCases() []modelCase {
	return []modelCase{
		{name: "no policy: everything allowed",
			want: func(_, _ modelPod, _ int32) bool { return true }},
		{name: "deny all ingress in x",
			policies: []*networkingv1.NetworkPolicy{policy("x", "deny-all", all, ingress)},
			want:     func(_, to modelPod, _ int32) bool { return to.NS != "x" }},
		{name: "allow from namespace y to x/a on port 80 only",
			policies: []*networkingv1.NetworkPolicy{withIngress(policy("x", "allow-y-80", podA, ingress),
				ingressRule(ports(tcp(80)), nsPeer("y")))},
			want: func(from, to modelPod, port int32) bool { return !isXA(to) || from.NS == "y" && port == 80 }},
		{name: "allow pod b of every namespace to x/a (podSelector and {} namespaceSelector in one peer)",
			policies: []*networkingv1.NetworkPolicy{withIngress(policy("x", "allow-b", podA, ingress),
				ingressRule(nil, networkingv1.NetworkPolicyPeer{PodSelector: labels("pod", "b"), NamespaceSelector: labels()}))},
			want: func(from, to modelPod, _ int32) bool { return !isXA(to) || from.Name == "b" }},
		{name: "a podSelector alone selects in the policy's namespace",
			policies: []*networkingv1.NetworkPolicy{withIngress(policy("x", "allow-x-b", podA, ingress),
				ingressRule(nil, networkingv1.NetworkPolicyPeer{PodSelector: labels("pod", "b")}))},
			want: func(from, to modelPod, _ int32) bool { return !isXA(to) || from.NS == "x" && from.Name == "b" }},
		{name: "two peers: namespace y or every pod of x ({} podSelector)",
			policies: []*networkingv1.NetworkPolicy{withIngress(policy("x", "allow-x-and-y", all, ingress),
				ingressRule(nil, nsPeer("y"), networkingv1.NetworkPolicyPeer{PodSelector: labels()}))},
			want: func(from, to modelPod, _ int32) bool { return to.NS != "x" || from.NS != "z" }},
		{name: "union of two policies selecting x/a",
			policies: []*networkingv1.NetworkPolicy{
				withIngress(policy("x", "allow-y-80", podA, ingress), ingressRule(ports(tcp(80)), nsPeer("y"))),
				withIngress(policy("x", "allow-z-81", podA, ingress), ingressRule(ports(tcp(81)), nsPeer("z"))),
			},
			want: func(from, to modelPod, port int32) bool {
				return !isXA(to) || from.NS == "y" && port == 80 || from.NS == "z" && port == 81
			}},
		{name: "named port serve-81-tcp from everywhere to x/a",
			policies: []*networkingv1.NetworkPolicy{withIngress(policy("x", "allow-named", podA, ingress),
				ingressRule(ports(namedTCP("serve-81-tcp"))))},
			want: func(_, to modelPod, port int32) bool { return !isXA(to) || port == 81 }},
		{name: "endPort: namespace z to x/a on 80-81, y on 79-80",
			policies: []*networkingv1.NetworkPolicy{withIngress(policy("x", "allow-ranges", podA, ingress),
				ingressRule(ports(tcpRange(80, 81)), nsPeer("z")), ingressRule(ports(tcpRange(79, 80)), nsPeer("y")))},
			want: func(from, to modelPod, port int32) bool {
				return !isXA(to) || from.NS == "z" || from.NS == "y" && port == 80
			}},
		{name: "deny all egress from x; replies to x's pods still pass",
			policies: []*networkingv1.NetworkPolicy{policy("x", "deny-egress", all, egress)},
			want:     func(from, _ modelPod, _ int32) bool { return from.NS != "x" }},
		{name: "egress from x/a only to an ipBlock with except",
			policies: []*networkingv1.NetworkPolicy{withEgress(policy("x", "egress-ipblock", podA, egress),
				egressRule(nil, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "10.244.1.0/24",
					Except: []string{"10.244.1.14/32", "10.244.1.16/31"}}}))}, // y/b; z/a and z/b
			want: func(from, to modelPod, _ int32) bool {
				return !isXA(from) || !(to.key() == "y/b" || to.key() == "z/a" || to.key() == "z/b")
			}},
		{name: "egress from x/a to the named port serve-80-tcp of every pod",
			policies: []*networkingv1.NetworkPolicy{withEgress(policy("x", "egress-named", podA, egress),
				egressRule(ports(namedTCP("serve-80-tcp")), networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{}}))},
			want: func(from, _ modelPod, port int32) bool { return !isXA(from) || port == 80 }},
		{name: "no policyTypes with egress rules: isolated both ways",
			policies: []*networkingv1.NetworkPolicy{withEgress(policy("x", "default-types", podA), egressRule(nil, nsPeer("y")))},
			want:     func(from, to modelPod, _ int32) bool { return !isXA(to) && (!isXA(from) || to.NS == "y") }},
	}
}
