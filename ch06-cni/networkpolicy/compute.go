package networkpolicy

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/apiserver/selection"
)

// Input is what one sync computes the node's rules from: the informers'
// contents and the node's own addresses.
type Input struct {
	NodeName   string
	NodeIPs    []netip.Addr
	Pods       []*corev1.Pod
	Namespaces []*corev1.Namespace
	Policies   []*networkingv1.NetworkPolicy
}

// Ruleset is the node's rules, what Render writes as one nft table.
type Ruleset struct {
	NodeIPs  []netip.Addr // always reach the node's pods
	Sets     []*PeerSet   // by name
	PortSets []*PortSet   // by name
	Ingress  []*PodChain  // the node's pods an ingress policy selects, by namespace/name
	Egress   []*PodChain  // the node's pods an egress policy selects
	Policies int          // the policies that select a pod of this node

	peerSets map[string]*PeerSet // by their elements
	portSets map[string]*PortSet
}

// PeerSet is the addresses one policy rule's peers name (its from or to):
// the selected pods' IPs and the ipBlocks without their excepts. Rules
// whose peers are the same addresses share one.
type PeerSet struct {
	Name, Comment string    // named after the first rule that uses it
	Ranges        []ipRange // sorted, disjoint
	Shared        int       // how many later rules use it too
}

// PortSet is, for an egress rule's named port, every (destination pod IP,
// protocol, port number) the name resolves to on the rule's peer pods.
type PortSet struct {
	Name, Comment string
	Elements      []IPPort
	Shared        int
}

// IPPort is one element of a PortSet.
type IPPort struct {
	IP       netip.Addr
	Protocol string // tcp, udp, sctp
	Port     int32
}

// PodChain is the rules of one isolated pod in one direction: a packet
// one of them accepts passes, every other is dropped.
type PodChain struct {
	Name  string // ingress/<namespace>/<pod> or egress/...
	Pod   string // namespace/name
	IPs   []netip.Addr
	Rules []Rule
}

// Rule accepts packets whose other end is in Peers and whose destination
// port matches: one NetworkPolicyPort of one rule of one policy.
type Rule struct {
	Policy   string // namespace/name of the policy
	Peers    string // the PeerSet of the other end; "" for any address
	Protocol string // tcp, udp, sctp; "" for any protocol
	Port     int32  // 0 for any port
	EndPort  int32  // 0 when Port is a single port
	PortSet  string // egress named port: the PortSet the (destination, protocol, port) must be in
}

// Direction is the direction of a policy's rules and of a pod's chain.
type Direction string

// The two directions, as upstream's policyTypes.
const (
	Ingress Direction = "ingress"
	Egress  Direction = "egress"
)

// maxNameLen bounds the names of chains and sets (the kernel's limit is
// 256 bytes); a longer name keeps its start and ends in a hash of the
// whole.
const maxNameLen = 200

func nftName(parts ...string) string {
	n := strings.Join(parts, "/")
	if len(n) > maxNameLen {
		sum := sha256.Sum256([]byte(n))
		n = n[:maxNameLen-17] + "_" + hex.EncodeToString(sum[:8])
	}
	return n
}

// cluster is the Input indexed for selection.
type cluster struct {
	nsLabels   map[string]map[string]string
	namespaces []string                 // sorted
	pods       []*corev1.Pod            // pods that can be peers, by namespace/name
	podsByNS   map[string][]*corev1.Pod // the same, by namespace
	ips        map[*corev1.Pod][]netip.Addr
}

// podIPv4s returns the IPv4 addresses of a pod that is on the pod
// network and not finished; nil otherwise.
func podIPv4s(p *corev1.Pod) []netip.Addr {
	if p.Spec.HostNetwork || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return nil
	}
	var out []netip.Addr
	add := func(s string) {
		if a, err := netip.ParseAddr(s); err == nil && a.Is4() && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	add(p.Status.PodIP)
	for _, ip := range p.Status.PodIPs {
		add(ip.IP)
	}
	return out
}

// Compute returns the rules for the pods of in.NodeName.
func Compute(in Input) *Ruleset {
	c := &cluster{nsLabels: map[string]map[string]string{}, podsByNS: map[string][]*corev1.Pod{}, ips: map[*corev1.Pod][]netip.Addr{}}
	for _, ns := range in.Namespaces {
		c.nsLabels[ns.Name] = ns.Labels
		c.namespaces = append(c.namespaces, ns.Name)
	}
	slices.Sort(c.namespaces)
	for _, p := range in.Pods {
		if ips := podIPv4s(p); len(ips) > 0 {
			c.pods = append(c.pods, p)
			c.ips[p] = ips
		}
	}
	slices.SortFunc(c.pods, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	for _, p := range c.pods {
		c.podsByNS[p.Namespace] = append(c.podsByNS[p.Namespace], p)
	}
	policies := slices.Clone(in.Policies)
	slices.SortFunc(policies, func(a, b *networkingv1.NetworkPolicy) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})

	rs := &Ruleset{}
	for _, a := range in.NodeIPs {
		if a.Is4() && !slices.Contains(rs.NodeIPs, a) {
			rs.NodeIPs = append(rs.NodeIPs, a)
		}
	}
	slices.SortFunc(rs.NodeIPs, netip.Addr.Compare)
	chains := map[Direction]map[string]*PodChain{Ingress: {}, Egress: {}}
	for _, pol := range policies {
		targets := c.targets(pol, in.NodeName)
		if len(targets) == 0 {
			continue
		}
		rs.Policies++
		ingress, egress := policyTypes(&pol.Spec)
		if ingress {
			for i, r := range pol.Spec.Ingress {
				rs.addRules(c, chains[Ingress], pol, Ingress, i, r.From, r.Ports, targets)
			}
			rs.isolate(c, chains[Ingress], Ingress, targets)
		}
		if egress {
			for i, r := range pol.Spec.Egress {
				rs.addRules(c, chains[Egress], pol, Egress, i, r.To, r.Ports, targets)
			}
			rs.isolate(c, chains[Egress], Egress, targets)
		}
	}
	rs.Ingress = sortedChains(chains[Ingress])
	rs.Egress = sortedChains(chains[Egress])
	return rs
}

// policyTypes is upstream's defaulting of spec.policyTypes: Ingress
// always, Egress when the policy has egress rules.
func policyTypes(spec *networkingv1.NetworkPolicySpec) (ingress, egress bool) {
	if len(spec.PolicyTypes) == 0 {
		return true, len(spec.Egress) > 0
	}
	return slices.Contains(spec.PolicyTypes, networkingv1.PolicyTypeIngress),
		slices.Contains(spec.PolicyTypes, networkingv1.PolicyTypeEgress)
}

// targets returns the pods of node in the policy's namespace that its
// podSelector selects (an empty selector selects them all).
func (c *cluster) targets(pol *networkingv1.NetworkPolicy, node string) []*corev1.Pod {
	sel, err := selection.FromLabelSelector(&pol.Spec.PodSelector)
	if err != nil {
		return nil
	}
	var out []*corev1.Pod
	for _, p := range c.pods {
		if p.Spec.NodeName == node && p.Namespace == pol.Namespace && sel.Matches(p.Labels) {
			out = append(out, p)
		}
	}
	return out
}

// isolate makes sure every target has a chain in the direction, so that
// a policy without rules still isolates it (default deny).
func (rs *Ruleset) isolate(c *cluster, chains map[string]*PodChain, dir Direction, targets []*corev1.Pod) {
	for _, t := range targets {
		key := t.Namespace + "/" + t.Name
		if chains[key] == nil {
			chains[key] = &PodChain{Name: nftName(string(dir), t.Namespace, t.Name), Pod: key, IPs: c.ips[t]}
		}
	}
}

// addRules adds one policy rule (its peers and ports) to the chain of
// every target.
func (rs *Ruleset) addRules(c *cluster, chains map[string]*PodChain, pol *networkingv1.NetworkPolicy, dir Direction,
	index int, peers []networkingv1.NetworkPolicyPeer, ports []networkingv1.NetworkPolicyPort, targets []*corev1.Pod) {
	rs.isolate(c, chains, dir, targets)
	key := pol.Namespace + "/" + pol.Name
	peerSet := ""
	if len(peers) > 0 {
		peerSet = rs.peerSet(nftName("np", pol.Namespace, pol.Name, string(dir), fmt.Sprint(index)),
			fmt.Sprintf("%s %s[%d]", key, dir, index), c.peerRanges(pol.Namespace, peers))
	}
	for _, t := range targets {
		ch := chains[t.Namespace+"/"+t.Name]
		if len(ports) == 0 {
			ch.Rules = append(ch.Rules, Rule{Policy: key, Peers: peerSet})
		}
	}
	for j, port := range ports {
		proto := "tcp"
		if port.Protocol != nil {
			proto = strings.ToLower(string(*port.Protocol))
		}
		base := Rule{Policy: key, Peers: peerSet, Protocol: proto}
		switch {
		case port.Port == nil:
			for _, t := range targets {
				ch := chains[t.Namespace+"/"+t.Name]
				ch.Rules = append(ch.Rules, base)
			}
		case port.Port.Type == intstr.Int: // a number, with an optional endPort
			base.Port = port.Port.IntVal
			if port.EndPort != nil && *port.EndPort > base.Port {
				base.EndPort = *port.EndPort
			}
			for _, t := range targets {
				ch := chains[t.Namespace+"/"+t.Name]
				ch.Rules = append(ch.Rules, base)
			}
		case dir == Ingress: // a name, resolved on each target pod
			for _, t := range targets {
				for _, n := range namedPort(t, port.Port.StrVal, proto) {
					r := base
					r.Port = n
					ch := chains[t.Namespace+"/"+t.Name]
					ch.Rules = append(ch.Rules, r)
				}
			}
		default: // an egress name, resolved on each destination pod
			var elements []IPPort
			for _, p := range c.peerPods(pol.Namespace, peers) {
				for _, n := range namedPort(p, port.Port.StrVal, proto) {
					for _, ip := range c.ips[p] {
						elements = append(elements, IPPort{IP: ip, Protocol: proto, Port: n})
					}
				}
			}
			base.Peers = ""
			base.PortSet = rs.portSet(nftName("np", pol.Namespace, pol.Name, string(dir), fmt.Sprint(index), "port", fmt.Sprint(j)),
				fmt.Sprintf("%s %s[%d] port %s/%s", key, dir, index, proto, port.Port.StrVal), elements)
			for _, t := range targets {
				ch := chains[t.Namespace+"/"+t.Name]
				ch.Rules = append(ch.Rules, base)
			}
		}
	}
}

// namedPort returns the numbers the pod's containers give the port name
// for the protocol (lower case).
func namedPort(p *corev1.Pod, name, proto string) []int32 {
	var out []int32
	for _, ctr := range slices.Concat(p.Spec.InitContainers, p.Spec.Containers) {
		for _, cp := range ctr.Ports {
			pp := strings.ToLower(string(cp.Protocol))
			if pp == "" {
				pp = "tcp"
			}
			if cp.Name == name && pp == proto && !slices.Contains(out, cp.ContainerPort) {
				out = append(out, cp.ContainerPort)
			}
		}
	}
	return out
}

func sortedChains(m map[string]*PodChain) []*PodChain {
	out := make([]*PodChain, 0, len(m))
	for _, ch := range m {
		out = append(out, ch)
	}
	slices.SortFunc(out, func(a, b *PodChain) int { return cmp.Compare(a.Pod, b.Pod) })
	return out
}
