package networkpolicy

import (
	"fmt"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/apiserver/selection"
)

// peerRanges returns the addresses of a rule's peers: the pods they
// select and their ipBlocks.
func (c *cluster) peerRanges(namespace string, peers []networkingv1.NetworkPolicyPeer) []ipRange {
	var rs []ipRange
	for _, peer := range peers {
		if peer.IPBlock != nil {
			rs = append(rs, ipBlockRanges(peer.IPBlock.CIDR, peer.IPBlock.Except)...)
		}
	}
	for _, p := range c.peerPods(namespace, peers) {
		for _, ip := range c.ips[p] {
			rs = append(rs, ipRange{ip, ip})
		}
	}
	return mergeRanges(rs)
}

// peerPods returns the pods that the peers' selectors select; no peers
// means every pod (a rule without from or to allows every address).
//
// A peer with only a podSelector selects pods of the policy's namespace;
// with only a namespaceSelector every pod of the namespaces it selects;
// with both the pods the podSelector selects in those namespaces. An
// empty selector ({}) selects everything.
func (c *cluster) peerPods(namespace string, peers []networkingv1.NetworkPolicyPeer) []*corev1.Pod {
	if len(peers) == 0 {
		return c.pods
	}
	var out []*corev1.Pod
	seen := map[*corev1.Pod]bool{}
	for _, peer := range peers {
		if peer.PodSelector == nil && peer.NamespaceSelector == nil {
			continue // an ipBlock
		}
		podSel := selection.Everything()
		if peer.PodSelector != nil {
			var err error
			if podSel, err = selection.FromLabelSelector(peer.PodSelector); err != nil {
				continue
			}
		}
		var nsSel selection.LabelSelector
		if peer.NamespaceSelector != nil {
			var err error
			if nsSel, err = selection.FromLabelSelector(peer.NamespaceSelector); err != nil {
				continue
			}
		}
		namespaces := []string{namespace}
		if peer.NamespaceSelector != nil {
			namespaces = namespaces[:0]
			for _, ns := range c.namespaces {
				if nsSel.Matches(c.nsLabels[ns]) {
					namespaces = append(namespaces, ns)
				}
			}
		}
		for _, ns := range namespaces {
			for _, p := range c.podsByNS[ns] {
				if !seen[p] && podSel.Matches(p.Labels) {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// peerSet returns the name of the PeerSet holding ranges: an earlier
// rule's set with the same addresses, or a new one named name. Rules with
// the same peers (the same selectors, often) share one set, as Calico
// shares one IP set per selector: fewer sets make a cheaper transaction.
func (rs *Ruleset) peerSet(name, comment string, ranges []ipRange) string {
	var b strings.Builder
	for _, r := range ranges {
		f, t := r.From.As4(), r.To.As4()
		b.Write(f[:])
		b.Write(t[:])
	}
	key := b.String()
	if s := rs.peerSets[key]; s != nil {
		s.Shared++
		return s.Name
	}
	s := &PeerSet{Name: name, Comment: comment, Ranges: ranges}
	if rs.peerSets == nil {
		rs.peerSets = map[string]*PeerSet{}
	}
	rs.peerSets[key] = s
	rs.Sets = append(rs.Sets, s)
	return name
}

// portSet is peerSet for the PortSets of egress named ports.
func (rs *Ruleset) portSet(name, comment string, elements []IPPort) string {
	key := fmt.Sprint(elements)
	if s := rs.portSets[key]; s != nil {
		s.Shared++
		return s.Name
	}
	s := &PortSet{Name: name, Comment: comment, Elements: elements}
	if rs.portSets == nil {
		rs.portSets = map[string]*PortSet{}
	}
	rs.portSets[key] = s
	rs.PortSets = append(rs.PortSets, s)
	return name
}
