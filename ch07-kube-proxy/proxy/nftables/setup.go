package nftables

import (
	"sort"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch07-kube-proxy/proxy/nftables/nft"
)

// nftablesBaseChain is a chain on a netfilter hook, named "${type}-${hook}".
type nftablesBaseChain struct {
	name, chainType, hook, priority string
}

var nftablesBaseChains = []nftablesBaseChain{
	// Before DNAT, to filter on the original destination (LB source ranges).
	{filterPreroutingPreDNATChain, "filter", "prerouting", "dstnat-10"},
	{filterOutputPreDNATChain, "filter", "output", "dstnat-10"},
	{filterInputChain, "filter", "input", "filter"},
	{filterForwardChain, "filter", "forward", "filter"},
	{filterOutputChain, "filter", "output", "filter"},
	{natPreroutingChain, "nat", "prerouting", "dstnat"},
	{natOutputChain, "nat", "output", "dstnat"},
	{natPostroutingChain, "nat", "postrouting", "srcnat"},
}

// nftablesJumpChain is a rule in a base chain jumping to a regular chain.
type nftablesJumpChain struct {
	dstChain, srcChain, extraArgs string
}

var nftablesJumpChains = []nftablesJumpChain{
	// reject is only valid in input/forward/output before kernel 5.9, so the
	// endpoints checks hang off those hooks, not prerouting.
	{nodePortEndpointsCheckChain, filterInputChain, "ct state new"},
	{serviceEndpointsCheckChain, filterInputChain, "ct state new"},
	{serviceEndpointsCheckChain, filterForwardChain, "ct state new"},
	{serviceEndpointsCheckChain, filterOutputChain, "ct state new"},

	{firewallCheckChain, filterPreroutingPreDNATChain, "ct state new"},
	{firewallCheckChain, filterOutputPreDNATChain, "ct state new"},

	{servicesChain, natOutputChain, ""},
	{servicesChain, natPreroutingChain, ""},
	{masqueradingChain, natPostroutingChain, ""},

	{clusterIPsCheckChain, filterForwardChain, "ct state new"},
	{clusterIPsCheckChain, filterOutputChain, "ct state new"},
}

// ensureChain adds and flushes chain once per transaction (createdChains);
// with skipCreation it only records the chain as in use.
func ensureChain(chain string, tx *nft.Transaction, createdChains map[string]bool, skipCreation bool) {
	if createdChains[chain] {
		return
	}
	createdChains[chain] = true
	if skipCreation {
		return
	}
	tx.Add(&nft.Chain{Name: chain})
	tx.Flush(&nft.Chain{Name: chain})
}

// setupNFTables writes the fixed part of the table (full syncs only).
func (p *Proxier) setupNFTables(tx *nft.Transaction) {
	ipX, ipvXAddr, noLocalhost := "ip", "ipv4_addr", "ip daddr != 127.0.0.0/8"
	if p.ipFamily == corev1.IPv6Protocol {
		ipX, ipvXAddr, noLocalhost = "ip6", "ipv6_addr", "ip6 daddr != ::1"
	}

	tx.Add(&nft.Table{Comment: ptrTo("rules for kube-proxy")})

	// Once per process: add+delete the base chains, so that they are
	// re-created with the current properties (a changed priority would
	// otherwise fail the transaction).
	if !p.flushed {
		for _, bc := range nftablesBaseChains {
			tx.Add(&nft.Chain{Name: bc.name})
			tx.Delete(&nft.Chain{Name: bc.name})
		}
		p.flushed = true
	}

	for _, bc := range nftablesBaseChains {
		chain := &nft.Chain{Name: bc.name, Type: ptrTo(bc.chainType), Hook: ptrTo(bc.hook), Priority: ptrTo(bc.priority)}
		tx.Add(chain)
		tx.Flush(chain)
	}

	createdChains := map[string]bool{}
	for _, c := range nftablesJumpChains {
		ensureChain(c.dstChain, tx, createdChains, false)
		tx.Add(&nft.Rule{Chain: c.srcChain, Rule: nft.Concat(c.extraArgs, "jump", c.dstChain)})
	}
	for _, chain := range []string{servicesChain, clusterIPsCheckChain, masqueradingChain, markMasqChain} {
		ensureChain(chain, tx, createdChains, false)
	}

	// mark-for-masquerade sets the bit; masquerading acts on it in srcnat.
	tx.Add(&nft.Rule{Chain: markMasqChain, Rule: nft.Concat("mark", "set", "mark", "or", p.masqueradeMark)})
	tx.Add(&nft.Rule{Chain: masqueradingChain, Rule: nft.Concat("mark", "and", p.masqueradeMark, "==", "0", "return")})
	tx.Add(&nft.Rule{Chain: masqueradingChain, Rule: nft.Concat("mark", "set", "mark", "xor", p.masqueradeMark)})
	tx.Add(&nft.Rule{Chain: masqueradingChain, Rule: "masquerade fully-random"})

	// cluster-ips: every ClusterIP; a port no Service has is rejected, an
	// address no Service has (inside the ServiceCIDRs) is dropped.
	tx.Add(&nft.Set{Name: clusterIPsSet, Type: ipvXAddr, Comment: ptrTo("Active ClusterIPs")})
	tx.Add(&nft.Rule{Chain: clusterIPsCheckChain, Rule: nft.Concat(ipX, "daddr", "@", clusterIPsSet, "reject"),
		Comment: ptrTo("Reject traffic to invalid ports of ClusterIPs")})
	if len(p.serviceCIDRs) > 0 {
		tx.Add(&nft.Rule{Chain: clusterIPsCheckChain, Rule: nft.Concat(ipX, "daddr", "{", p.serviceCIDRs, "}", "drop"),
			Comment: ptrTo("Drop traffic to unallocated ClusterIPs")})
	}

	// nodeport-ips: the addresses that accept NodePorts (unless all do; the
	// add+delete deletes it without failing when it does not exist).
	tx.Add(&nft.Set{Name: nodePortIPsSet, Type: ipvXAddr, Comment: ptrTo("IPs that accept NodePort traffic")})
	if p.nodePortAddresses.MatchAll() {
		tx.Delete(&nft.Set{Name: nodePortIPsSet})
	} else {
		tx.Flush(&nft.Set{Name: nodePortIPsSet})
		nodeIPs, err := p.nodePortAddresses.GetNodeIPs(p.networkInterfacer)
		if err != nil {
			p.log.Error("Failed to get node ip address matching nodeport cidrs, services with nodeport may not work as intended", "CIDRs", p.nodePortAddresses.String(), "err", err)
		}
		sort.Slice(nodeIPs, func(i, j int) bool { return nodeIPs[i].String() < nodeIPs[j].String() })
		for _, ip := range nodeIPs {
			if ip.IsLoopback() {
				p.log.Error("--nodeport-addresses includes localhost but localhost NodePorts are not supported", "address", ip.String())
				continue
			}
			tx.Add(&nft.Element{Set: nodePortIPsSet, Key: []string{ip.String()}})
		}
	}

	// "No endpoints": verdict maps consulted in the filter hooks.
	tx.Add(&nft.Map{Name: noEndpointServicesMap, Type: ipvXAddr + " . inet_proto . inet_service : verdict",
		Comment: ptrTo("vmap to drop or reject packets to services with no endpoints")})
	tx.Add(&nft.Map{Name: noEndpointNodePortsMap, Type: "inet_proto . inet_service : verdict",
		Comment: ptrTo("vmap to drop or reject packets to service nodeports with no endpoints")})
	tx.Add(&nft.Chain{Name: rejectChain, Comment: ptrTo("helper for @no-endpoint-services / @no-endpoint-nodeports")})
	tx.Flush(&nft.Chain{Name: rejectChain})
	tx.Add(&nft.Rule{Chain: rejectChain, Rule: "reject"})
	tx.Add(&nft.Rule{Chain: serviceEndpointsCheckChain,
		Rule: nft.Concat(ipX, "daddr", ".", "meta l4proto", ".", "th dport", "vmap", "@", noEndpointServicesMap)})
	if p.nodePortAddresses.MatchAll() {
		tx.Add(&nft.Rule{Chain: nodePortEndpointsCheckChain,
			Rule: nft.Concat(noLocalhost, "meta l4proto . th dport", "vmap", "@", noEndpointNodePortsMap)})
	} else {
		tx.Add(&nft.Rule{Chain: nodePortEndpointsCheckChain,
			Rule: nft.Concat(ipX, "daddr", "@", nodePortIPsSet, "meta l4proto . th dport", "vmap", "@", noEndpointNodePortsMap)})
	}

	// loadBalancerSourceRanges.
	tx.Add(&nft.Map{Name: firewallIPsMap, Type: ipvXAddr + " . inet_proto . inet_service : verdict",
		Comment: ptrTo("destinations that are subject to LoadBalancerSourceRanges")})
	ensureChain(firewallCheckChain, tx, createdChains, false)
	tx.Add(&nft.Rule{Chain: firewallCheckChain,
		Rule: nft.Concat(ipX, "daddr", ".", "meta l4proto", ".", "th dport", "vmap", "@", firewallIPsMap)})

	// Service dispatch.
	tx.Add(&nft.Map{Name: serviceIPsMap, Type: ipvXAddr + " . inet_proto . inet_service : verdict",
		Comment: ptrTo("ClusterIP, ExternalIP and LoadBalancer IP traffic")})
	tx.Add(&nft.Map{Name: serviceNodePortsMap, Type: "inet_proto . inet_service : verdict", Comment: ptrTo("NodePort traffic")})
	tx.Add(&nft.Rule{Chain: servicesChain,
		Rule: nft.Concat(ipX, "daddr", ".", "meta l4proto", ".", "th dport", "vmap", "@", serviceIPsMap)})
	if p.nodePortAddresses.MatchAll() {
		tx.Add(&nft.Rule{Chain: servicesChain,
			Rule: nft.Concat("fib daddr type local", noLocalhost, "meta l4proto . th dport", "vmap", "@", serviceNodePortsMap)})
	} else {
		tx.Add(&nft.Rule{Chain: servicesChain,
			Rule: nft.Concat(ipX, "daddr @nodeport-ips", "meta l4proto . th dport", "vmap", "@", serviceNodePortsMap)})
	}

	// Learn what the sets and maps hold (or flush them).
	for _, s := range p.elementStorages() {
		s.readOrReset(tx, p.nftables, p)
	}
}

func (p *Proxier) elementStorages() []*nftElementStorage {
	return []*nftElementStorage{p.clusterIPs, p.serviceIPs, p.firewallIPs, p.noEndpointServices, p.noEndpointNodePorts, p.serviceNodePorts}
}
