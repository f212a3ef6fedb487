package networkpolicy

// The model of upstream's e2e "netpol" suite: namespaces x, y, z (label
// ns=<name>), each with pods a, b, c (label pod=<name>) serving TCP 80 and
// 81 on the container ports named serve-80-tcp and serve-81-tcp; a truth
// table says for every pod × pod × port whether a connection opens.

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
)

var (
	modelNamespaceNames = []string{"x", "y", "z"}
	modelPodNames       = []string{"a", "b", "c"}
	modelPorts          = []int32{80, 81}
)

// modelPod is a pod of the model: x/a is 10.244.1.10, x/b .11, ..., z/c .18.
type modelPod struct {
	NS, Name string
	IP       netip.Addr
}

func (p modelPod) key() string { return p.NS + "/" + p.Name }

func modelPodList() []modelPod {
	var out []modelPod
	for i, ns := range modelNamespaceNames {
		for j, name := range modelPodNames {
			out = append(out, modelPod{ns, name, netip.AddrFrom4([4]byte{10, 244, 1, byte(10 + 3*i + j)})})
		}
	}
	return out
}

func (p modelPod) pod(node string) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.NS, Name: p.Name, Labels: map[string]string{"pod": p.Name}}}
	pod.Spec.NodeName = node
	pod.Spec.Containers = []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{
		{Name: "serve-80-tcp", ContainerPort: 80, Protocol: corev1.ProtocolTCP},
		{Name: "serve-81-tcp", ContainerPort: 81, Protocol: corev1.ProtocolTCP},
	}}}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.PodIP = p.IP.String()
	pod.Status.PodIPs = []corev1.PodIP{{IP: p.IP.String()}}
	return pod
}

// modelInput is the model with every pod on node-1 and the policies.
func modelInput(policies ...*networkingv1.NetworkPolicy) Input {
	in := Input{NodeName: "node-1", NodeIPs: []netip.Addr{netip.MustParseAddr("10.244.1.1")}, Policies: policies}
	for _, ns := range modelNamespaceNames {
		in.Namespaces = append(in.Namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
			Labels: map[string]string{"ns": ns, "kubernetes.io/metadata.name": ns}}})
	}
	for _, p := range modelPodList() {
		in.Pods = append(in.Pods, p.pod("node-1"))
	}
	return in
}

// Policy builders.

func policy(ns, name string, sel map[string]string, types ...networkingv1.PolicyType) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: sel}, PolicyTypes: types}}
}

func labels(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

func tcp(port int32) networkingv1.NetworkPolicyPort {
	proto := corev1.ProtocolTCP
	p := intstr.FromInt(int(port))
	return networkingv1.NetworkPolicyPort{Protocol: &proto, Port: &p}
}

func tcpRange(port, end int32) networkingv1.NetworkPolicyPort {
	p := tcp(port)
	p.EndPort = &end
	return p
}

func namedTCP(name string) networkingv1.NetworkPolicyPort {
	p := intstr.FromString(name)
	return networkingv1.NetworkPolicyPort{Port: &p} // protocol defaults to TCP
}

// allows interprets rs the way the kernel runs Render's table: a
// connection from src to dst:port over proto passes the egress chain of
// src (if src is isolated) and the ingress chain of dst (if isolated).
func allows(rs *Ruleset, src, dst netip.Addr, proto string, port int32) bool {
	if src == dst {
		return true // a pod's connection to itself never leaves it
	}
	chainOf := func(chains []*PodChain, ip netip.Addr) *PodChain {
		for _, ch := range chains {
			if slices.Contains(ch.IPs, ip) {
				return ch
			}
		}
		return nil
	}
	sets := map[string]*PeerSet{}
	for _, s := range rs.Sets {
		sets[s.Name] = s
	}
	portSets := map[string]*PortSet{}
	for _, s := range rs.PortSets {
		portSets[s.Name] = s
	}
	accepts := func(ch *PodChain, peer netip.Addr) bool {
		for _, r := range ch.Rules {
			if r.Peers != "" && !containsAddr(sets[r.Peers].Ranges, peer) {
				continue
			}
			if r.PortSet != "" && !slices.Contains(portSets[r.PortSet].Elements, IPPort{dst, proto, port}) {
				continue
			}
			if r.Protocol != "" && r.Protocol != proto {
				continue
			}
			if r.Port != 0 && (port < r.Port || port > max(r.Port, r.EndPort)) {
				continue
			}
			return true
		}
		return false
	}
	if ch := chainOf(rs.Egress, src); ch != nil && !accepts(ch, dst) {
		return false
	}
	if ch := chainOf(rs.Ingress, dst); ch != nil && !slices.Contains(rs.NodeIPs, src) && !accepts(ch, src) {
		return false
	}
	return true
}

// truthTable is the outcome of every probe, by "from to port".
type truthTable map[string]bool

func probeKey(from, to modelPod, port int32) string {
	return fmt.Sprintf("%s %s %d", from.key(), to.key(), port)
}

// expectTable builds the table want says for every combination.
func expectTable(want func(from, to modelPod, port int32) bool) truthTable {
	tt := truthTable{}
	for _, from := range modelPodList() {
		for _, to := range modelPodList() {
			for _, port := range modelPorts {
				tt[probeKey(from, to, port)] = from == to || want(from, to, port)
			}
		}
	}
	return tt
}

// diff prints both tables as upstream's e2e does, one per port: rows are
// sources, columns destinations, "." allowed, "X" denied, "*" where the
// observed outcome is not the expected one. "" when they agree.
func (want truthTable) diff(got truthTable) string {
	var b strings.Builder
	wrong := 0
	for _, port := range modelPorts {
		fmt.Fprintf(&b, "port %d: expected | observed\n     ", port)
		pods := modelPodList()
		for _, to := range pods {
			fmt.Fprintf(&b, " %-3s", to.key())
		}
		b.WriteString(" |")
		for _, to := range pods {
			fmt.Fprintf(&b, " %-3s", to.key())
		}
		b.WriteString("\n")
		for _, from := range pods {
			fmt.Fprintf(&b, "%-5s", from.key())
			var obs strings.Builder
			for _, to := range pods {
				k := probeKey(from, to, port)
				fmt.Fprintf(&b, " %-3s", mark(want[k]))
				o := mark(got[k])
				if got[k] != want[k] {
					o, wrong = "*", wrong+1
				}
				fmt.Fprintf(&obs, " %-3s", o)
			}
			fmt.Fprintf(&b, " |%s\n", obs.String())
		}
	}
	if wrong == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d probes differ (*)\n%s", wrong, len(want), b.String())
}

func mark(ok bool) string {
	if ok {
		return "."
	}
	return "X"
}
