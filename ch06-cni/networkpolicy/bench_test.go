package networkpolicy

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"testing"

	"github.com/containernetworking/plugins/pkg/ns"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
)

// benchInput is a cluster of 10 namespaces (label team=<n>) with 100 pods
// on this node and 400 on others, each pod labelled app=app-<k>, and
// policies spread over the namespaces: policy i selects app-<i/10 % 10>
// of namespace i%10 (one local pod; every local pod is in policies/100
// policies), allows TCP 80 and the named port "metrics" from the pods of
// two teams and egress to an ipBlock with an except and to UDP 53 of one
// team.
func benchInput(policies int) Input {
	in := Input{NodeName: "node-1", NodeIPs: []netip.Addr{netip.MustParseAddr("10.244.1.1")}}
	for n := range 10 {
		in.Namespaces = append(in.Namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("team-%d", n), Labels: map[string]string{"team": fmt.Sprint(n)}}})
	}
	for i := range 500 {
		node, ip := "node-1", netip.AddrFrom4([4]byte{10, 244, 1, byte(10 + i)})
		if i >= 100 {
			node, ip = fmt.Sprintf("node-%d", 2+i/100), netip.AddrFrom4([4]byte{10, 244, byte(1 + i/100), byte(i % 100)})
		}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("team-%d", i%10), Name: fmt.Sprintf("pod-%d", i),
			Labels: map[string]string{"app": fmt.Sprintf("app-%d", i/10%10)}}}
		p.Spec.NodeName = node
		p.Spec.Containers = []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9090}}}}
		p.Status.Phase, p.Status.PodIP = corev1.PodRunning, ip.String()
		in.Pods = append(in.Pods, p)
	}
	for i := range policies {
		p := policy(fmt.Sprintf("team-%d", i%10), fmt.Sprintf("policy-%d", i), map[string]string{"app": fmt.Sprintf("app-%d", i/10%10)}, ingress, egress)
		p.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{ingressRule(ports(tcp(80), namedTCP("metrics")),
			networkingv1.NetworkPolicyPeer{NamespaceSelector: labels("team", fmt.Sprint(i%7))},
			networkingv1.NetworkPolicyPeer{NamespaceSelector: labels("team", fmt.Sprint(i%3)), PodSelector: labels("app", "app-1")})}
		udp := corev1.ProtocolUDP
		dns := tcp(53)
		dns.Protocol = &udp
		p.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{
			egressRule(nil, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{
				CIDR: fmt.Sprintf("10.%d.0.0/16", i%200), Except: []string{fmt.Sprintf("10.%d.1.0/24", i%200)}}}),
			egressRule(ports(dns), nsPeer(fmt.Sprint(i%10))),
		}
		in.Policies = append(in.Policies, p)
	}
	return in
}

// BenchmarkCompute is Compute and Render of the node's table.
func BenchmarkCompute(b *testing.B) {
	for _, n := range []int{100, 1000} {
		in := benchInput(n)
		b.Run(fmt.Sprintf("policies=%d", n), func(b *testing.B) {
			var rs *Ruleset
			for b.Loop() {
				rs = Compute(in)
				_ = Render(rs)
			}
			b.ReportMetric(float64(rs.RuleCount()), "rules")
		})
	}
}

// BenchmarkSync is one whole sync: Compute, Render and the nft
// transaction that replaces the table, in a network namespace of its own.
func BenchmarkSync(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root: a network namespace and nft")
	}
	node := newTestNS(b)
	for _, n := range []int{100, 1000} {
		in := benchInput(n)
		b.Run(fmt.Sprintf("policies=%d", n), func(b *testing.B) {
			var rs *Ruleset
			var script string
			for b.Loop() {
				rs = Compute(in)
				script = Render(rs)
				if err := node.Do(func(ns.NetNS) error { return Apply(context.Background(), script) }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rs.RuleCount()), "rules")
			b.ReportMetric(float64(len(rs.Sets)+len(rs.PortSets)), "sets")
			b.ReportMetric(float64(len(script)), "script-bytes")
		})
	}
}
