package nftables

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch07-kube-proxy/proxy"
	"kubik/ch07-kube-proxy/proxy/conntrack"
	"kubik/ch07-kube-proxy/proxy/metrics"
	"kubik/ch07-kube-proxy/proxy/nftables/nft"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

func ptrTo[T any](v T) *T { return &v }

var errSyncFailed = errors.New("sync failed")

// SyncProxyRules writes the current state in one nft transaction. A full
// sync also rewrites the fixed chains and re-reads the maps; a partial one
// rewrites only the chains of Services that changed; map elements are
// always reconciled (only differences are sent).
func (p *Proxier) SyncProxyRules() (retryError error) {
	p.mu.Lock()
	defer p.mu.Unlock()

	if !p.isInitialized() {
		p.log.Debug("Not syncing nftables until Services and Endpoints have been received from master")
		return nil
	}

	start := time.Now()
	doFullSync := p.needFullSync || time.Since(p.lastFullSync) > proxyutil.FullSyncPeriod
	defer func() {
		p.syncedOnce = true
		metrics.ObserveSync(time.Since(start), doFullSync)
		p.log.Debug("SyncProxyRules complete", "elapsed", time.Since(start))
	}()

	serviceUpdateResult := p.svcPortMap.Update(p.serviceChanges)
	endpointUpdateResult := p.endpointsMap.Update(p.endpointsChanges)

	success := false
	defer func() {
		if !success {
			p.log.Info("Sync failed", "retryingTime", p.syncPeriod)
			retryError = errSyncFailed
			p.needFullSync = true
		} else if doFullSync {
			p.lastFullSync = time.Now()
		}
	}()

	// Delete the chains that have been stale (flushed, unreferenced) for
	// more than a second, in a transaction of their own.
	if len(p.staleChains) > 0 {
		oneSecondAgo := start.Add(-time.Second)
		var deleted []string
		for _, chain := range sortedKeys(p.staleChains) {
			if p.staleChains[chain].Before(oneSecondAgo) {
				deleted = append(deleted, chain)
				delete(p.staleChains, chain)
			}
		}
		if len(deleted) > 0 {
			p.log.Info("Deleting stale nftables chains", "numChains", len(deleted))
			if err := p.nftables.DeleteChains(context.TODO(), deleted); err != nil {
				// They are re-found as stale at the end of this sync.
				p.log.Error("Unable to delete stale chains; will retry later", "err", err)
				doFullSync = true
				p.forgetExistingObjects()
			} else if p.knownChains != nil {
				for _, chain := range deleted {
					delete(p.knownChains, chain)
				}
			}
		}
	}

	tx := p.nftables.NewTransaction()
	if doFullSync {
		p.setupNFTables(tx)
	}

	ipX, ipvXAddr := "ip", "ipv4_addr"
	if p.ipFamily == corev1.IPv6Protocol {
		ipX, ipvXAddr = "ip6", "ipv6_addr"
	}

	if doFullSync || p.knownChains == nil {
		p.listExistingObjects()
	}
	existingChains, existingAffinitySets := p.knownChains, p.knownAffinitySets

	// Sized for the chains already there: a partial sync of a large table
	// marks every one of them active.
	activeChains := make(map[string]bool, len(existingChains))
	activeAffinitySets := map[string]bool{}

	totalEndpoints := 0
	for svcName := range p.svcPortMap {
		totalEndpoints += len(p.endpointsMap[svcName])
	}

	for _, svcName := range p.svcPortMap.SortedNames() {
		svcInfo, ok := p.svcPortMap[svcName].(*servicePortInfo)
		if !ok {
			continue
		}
		protocol := strings.ToLower(string(svcInfo.Protocol()))
		svcPortNameString := svcInfo.nameString

		allEndpoints := p.endpointsMap[svcName]
		clusterEndpoints, localEndpoints, allLocallyReachableEndpoints, hasEndpoints := proxy.CategorizeEndpoints(allEndpoints, svcInfo, p.nodeName, p.topologyLabels)

		// The chains of a Service that did not change are left alone.
		skipServiceUpdate := !doFullSync &&
			!serviceUpdateResult.UpdatedServices[svcName.NamespacedName] &&
			!endpointUpdateResult.UpdatedServices[svcName.NamespacedName]

		for _, ep := range allLocallyReachableEndpoints {
			if epInfo, ok := ep.(*endpointInfo); ok {
				ensureChain(epInfo.chainName, tx, activeChains, skipServiceUpdate ||
					p.epChainSkipUpdate(existingChains, existingAffinitySets, svcInfo, epInfo))
				if svcInfo.SessionAffinityType() == corev1.ServiceAffinityClientIP {
					activeAffinitySets[epInfo.affinitySetName] = true
				}
			}
		}

		clusterPolicyChain := svcInfo.clusterPolicyChainName
		usesClusterPolicyChain := len(clusterEndpoints) > 0 && svcInfo.UsesClusterEndpoints()
		if usesClusterPolicyChain {
			ensureChain(clusterPolicyChain, tx, activeChains, skipServiceUpdate)
		}

		localPolicyChain := svcInfo.localPolicyChainName
		usesLocalPolicyChain := len(localEndpoints) > 0 && svcInfo.UsesLocalEndpoints()
		if usesLocalPolicyChain {
			ensureChain(localPolicyChain, tx, activeChains, skipServiceUpdate)
		}

		internalPolicyChain := clusterPolicyChain
		hasInternalEndpoints := hasEndpoints
		if svcInfo.InternalPolicyLocal() {
			internalPolicyChain = localPolicyChain
			if len(localEndpoints) == 0 {
				hasInternalEndpoints = false
			}
		}
		internalTrafficChain := internalPolicyChain

		externalPolicyChain := clusterPolicyChain
		hasExternalEndpoints := hasEndpoints
		if svcInfo.ExternalPolicyLocal() {
			externalPolicyChain = localPolicyChain
			if len(localEndpoints) == 0 {
				hasExternalEndpoints = false
			}
		}
		externalTrafficChain := svcInfo.externalChainName

		// The external chain holds the short-circuit rules even when no
		// endpoint takes external traffic.
		usesExternalTrafficChain := hasEndpoints && svcInfo.ExternallyAccessible()
		if usesExternalTrafficChain {
			ensureChain(externalTrafficChain, tx, activeChains, skipServiceUpdate)
		}

		var internalTrafficFilterVerdict, externalTrafficFilterVerdict string
		if !hasEndpoints {
			internalTrafficFilterVerdict = fmt.Sprintf("goto %s", rejectChain)
			externalTrafficFilterVerdict = fmt.Sprintf("goto %s", rejectChain)
		} else {
			if !hasInternalEndpoints {
				internalTrafficFilterVerdict = "drop"
			}
			if !hasExternalEndpoints {
				externalTrafficFilterVerdict = "drop"
			}
		}

		port := strconv.Itoa(svcInfo.Port())

		// Capture the clusterIP.
		p.clusterIPs.ensureElem(tx, &nft.Element{Set: clusterIPsSet, Key: []string{svcInfo.ClusterIP().String()}})
		if hasInternalEndpoints {
			p.serviceIPs.ensureElem(tx, &nft.Element{Map: serviceIPsMap,
				Key:   []string{svcInfo.ClusterIP().String(), protocol, port},
				Value: []string{fmt.Sprintf("goto %s", internalTrafficChain)}})
		} else {
			p.noEndpointServices.ensureElem(tx, &nft.Element{Map: noEndpointServicesMap,
				Key:     []string{svcInfo.ClusterIP().String(), protocol, port},
				Value:   []string{internalTrafficFilterVerdict},
				Comment: &svcPortNameString})
		}

		// Capture externalIPs.
		for _, externalIP := range svcInfo.ExternalIPs() {
			if hasEndpoints {
				p.serviceIPs.ensureElem(tx, &nft.Element{Map: serviceIPsMap,
					Key:   []string{externalIP.String(), protocol, port},
					Value: []string{fmt.Sprintf("goto %s", externalTrafficChain)}})
			}
			if !hasExternalEndpoints {
				p.noEndpointServices.ensureElem(tx, &nft.Element{Map: noEndpointServicesMap,
					Key:     []string{externalIP.String(), protocol, port},
					Value:   []string{externalTrafficFilterVerdict},
					Comment: &svcPortNameString})
			}
		}

		usesFWChain := len(svcInfo.LoadBalancerVIPs()) > 0 && len(svcInfo.LoadBalancerSourceRanges()) > 0
		fwChain := svcInfo.firewallChainName
		if usesFWChain {
			ensureChain(fwChain, tx, activeChains, skipServiceUpdate)
		}

		// Capture load-balancer ingress.
		for _, lbip := range svcInfo.LoadBalancerVIPs() {
			if hasEndpoints {
				p.serviceIPs.ensureElem(tx, &nft.Element{Map: serviceIPsMap,
					Key:   []string{lbip.String(), protocol, port},
					Value: []string{fmt.Sprintf("goto %s", externalTrafficChain)}})
			}
			if usesFWChain {
				p.firewallIPs.ensureElem(tx, &nft.Element{Map: firewallIPsMap,
					Key:   []string{lbip.String(), protocol, port},
					Value: []string{fmt.Sprintf("goto %s", fwChain)}})
			}
		}
		if !hasExternalEndpoints {
			for _, lbip := range svcInfo.LoadBalancerVIPs() {
				p.noEndpointServices.ensureElem(tx, &nft.Element{Map: noEndpointServicesMap,
					Key:     []string{lbip.String(), protocol, port},
					Value:   []string{externalTrafficFilterVerdict},
					Comment: &svcPortNameString})
			}
		}

		// Capture nodeports (not subject to loadBalancerSourceRanges).
		if svcInfo.NodePort() != 0 {
			nodePort := strconv.Itoa(svcInfo.NodePort())
			if hasEndpoints {
				p.serviceNodePorts.ensureElem(tx, &nft.Element{Map: serviceNodePortsMap,
					Key:   []string{protocol, nodePort},
					Value: []string{fmt.Sprintf("goto %s", externalTrafficChain)}})
			}
			if !hasExternalEndpoints {
				p.noEndpointNodePorts.ensureElem(tx, &nft.Element{Map: noEndpointNodePortsMap,
					Key:     []string{protocol, nodePort},
					Value:   []string{externalTrafficFilterVerdict},
					Comment: &svcPortNameString})
			}
		}

		// Everything below is the Service's own chains.
		if skipServiceUpdate {
			continue
		}

		// Internal traffic: masquerade what does not come from a pod (or all).
		if hasInternalEndpoints {
			if p.masqueradeAll {
				tx.Add(&nft.Rule{Chain: internalTrafficChain,
					Rule: nft.Concat(ipX, "daddr", svcInfo.ClusterIP().String(), "jump", markMasqChain)})
			} else if p.localDetector.IsImplemented() {
				tx.Add(&nft.Rule{Chain: internalTrafficChain,
					Rule: nft.Concat(ipX, "daddr", svcInfo.ClusterIP().String(), p.localDetector.IfNotLocalNFT(), "jump", markMasqChain)})
			}
		}

		// external-<hash>: all external destinations land here.
		if usesExternalTrafficChain {
			if !svcInfo.ExternalPolicyLocal() {
				// Endpoints may be remote: masquerade.
				tx.Add(&nft.Rule{Chain: externalTrafficChain, Rule: nft.Concat("jump", markMasqChain)})
			} else {
				// Local endpoints only: keep the client's address, except
				// for traffic from pods and from the node, which uses the
				// Cluster policy as if it had gone out to the LB and back.
				if p.localDetector.IsImplemented() {
					tx.Add(&nft.Rule{Chain: externalTrafficChain,
						Rule:    nft.Concat(p.localDetector.IfLocalNFT(), "goto", clusterPolicyChain),
						Comment: ptrTo("short-circuit pod traffic")})
				}
				tx.Add(&nft.Rule{Chain: externalTrafficChain,
					Rule:    nft.Concat("fib", "saddr", "type", "local", "jump", markMasqChain),
					Comment: ptrTo("masquerade local traffic")})
				tx.Add(&nft.Rule{Chain: externalTrafficChain,
					Rule:    nft.Concat("fib", "saddr", "type", "local", "goto", clusterPolicyChain),
					Comment: ptrTo("short-circuit local traffic")})
			}
			if hasExternalEndpoints {
				tx.Add(&nft.Rule{Chain: externalTrafficChain, Rule: nft.Concat("goto", externalPolicyChain)})
			}
		}

		// firewall-<hash>: drop sources outside loadBalancerSourceRanges.
		if usesFWChain {
			var sources []string
			allowFromNode := false
			for _, cidr := range svcInfo.LoadBalancerSourceRanges() {
				if len(sources) > 0 {
					sources = append(sources, ",")
				}
				sources = append(sources, cidr.String())
				if cidr.Contains(p.nodeIP) {
					allowFromNode = true
				}
			}
			// A node's request to a VIP it holds comes back from the VIP.
			if allowFromNode {
				for _, lbip := range svcInfo.LoadBalancerVIPs() {
					sources = append(sources, ",", lbip.String())
				}
			}
			tx.Add(&nft.Rule{Chain: fwChain, Rule: nft.Concat(ipX, "saddr", "!=", "{", sources, "}", "drop")})
		}

		// One set per endpoint remembers its clients for session affinity.
		if svcInfo.SessionAffinityType() == corev1.ServiceAffinityClientIP {
			for _, ep := range allLocallyReachableEndpoints {
				epInfo, ok := ep.(*endpointInfo)
				if !ok {
					continue
				}
				tx.Add(&nft.Set{Name: epInfo.affinitySetName, Type: ipvXAddr,
					// "dynamic" too: the kernel adds it anyway, and re-adding
					// the set without it would look like a flags change.
					Flags:   []string{"dynamic", "timeout"},
					Timeout: ptrTo(time.Duration(svcInfo.StickyMaxAgeSeconds()) * time.Second)})
			}
		}

		if usesClusterPolicyChain {
			p.writeServiceToEndpointRules(tx, svcInfo, clusterPolicyChain, clusterEndpoints)
		}
		if usesLocalPolicyChain {
			p.writeServiceToEndpointRules(tx, svcInfo, localPolicyChain, localEndpoints)
		}

		// endpoint-<hash>: hairpin masquerade, affinity, DNAT.
		for _, ep := range allLocallyReachableEndpoints {
			epInfo, ok := ep.(*endpointInfo)
			if !ok {
				continue
			}
			if p.epChainSkipUpdate(existingChains, existingAffinitySets, svcInfo, epInfo) {
				continue
			}
			endpointChain := epInfo.chainName
			tx.Add(&nft.Rule{Chain: endpointChain, Rule: nft.Concat(ipX, "saddr", epInfo.IP(), "jump", markMasqChain)})
			if svcInfo.SessionAffinityType() == corev1.ServiceAffinityClientIP {
				tx.Add(&nft.Rule{Chain: endpointChain, Rule: nft.Concat("update", "@", epInfo.affinitySetName, "{", ipX, "saddr", "}")})
			}
			tx.Add(&nft.Rule{Chain: endpointChain, Rule: nft.Concat("meta l4proto", protocol, "dnat to", epInfo.String())})
		}
	}

	// Service chains no longer used are flushed now and deleted by a later
	// sync (see staleChains).
	// (Only the stale ones are sorted: there are 15 000 chains at 5000
	// Services.)
	var newlyStale []string
	for chain := range existingChains {
		if !isServiceChainName(chain) {
			continue
		}
		if !activeChains[chain] {
			newlyStale = append(newlyStale, chain)
		} else {
			delete(p.staleChains, chain)
		}
	}
	sort.Strings(newlyStale)
	for _, chain := range newlyStale {
		tx.Flush(&nft.Chain{Name: chain})
		p.staleChains[chain] = start
	}

	// Stale affinity sets can go at once.
	for _, set := range sortedKeys(existingAffinitySets) {
		if !activeAffinitySets[set] {
			tx.Delete(&nft.Set{Name: set})
		}
	}

	for _, s := range p.elementStorages() {
		s.cleanupLeftoverKeys(tx)
	}

	p.log.Debug("Reloading service nftables data", "numServices", len(p.svcPortMap), "numEndpoints", totalEndpoints,
		"operations", tx.NumOperations(), "fullSync", doFullSync)

	// A full sync goes to `nft -f`; a partial one, when every operation has
	// a netlink encoding (nft/netlink.go), goes to the kernel as one netlink
	// batch: the same atomic transaction without nft's reading of the table.
	if err := p.nftables.Run(context.TODO(), tx); err != nil {
		p.log.Error("nftables sync failed", "err", err)
		metrics.Add("kubeproxy_sync_proxy_rules_nftables_sync_failures_total", 1)
		// The stale chains were not flushed after all.
		clear(p.staleChains)
		p.forgetExistingObjects()
		return
	}
	p.recordTransaction(tx)
	success = true
	p.needFullSync = false

	if p.healthzServer != nil {
		p.healthzServer.Updated(p.ipFamily)
	}
	metrics.Set("kubeproxy_sync_proxy_rules_last_timestamp_seconds", float64(time.Now().UnixNano())/1e9)

	if err := p.serviceHealthServer.SyncServices(p.svcPortMap.HealthCheckNodePorts()); err != nil {
		p.log.Error("Error syncing healthcheck services", "err", err)
	}
	if err := p.serviceHealthServer.SyncEndpoints(p.endpointsMap.LocalReadyEndpoints()); err != nil {
		p.log.Error("Error syncing healthcheck endpoints", "err", err)
	}
	if endpointUpdateResult.ConntrackCleanupRequired {
		conntrack.CleanStaleEntries(p.conntrack, p.ipFamily, p.svcPortMap, p.endpointsMap, p.log)
	}
	return nil
}

// listExistingObjects lists the table's chains and affinity sets (nil
// maps if that fails: nothing is then taken as existing).
func (p *Proxier) listExistingObjects() {
	p.knownChains, p.knownAffinitySets = nil, nil
	all, err := p.nftables.ListAll(context.TODO())
	if err != nil {
		p.log.Error("Failed to list existing nftables objects", "err", err)
		return
	}
	p.knownChains, p.knownAffinitySets = map[string]bool{}, map[string]bool{}
	for _, c := range all["chain"] {
		p.knownChains[c] = true
	}
	for _, s := range all["set"] {
		if isAffinitySetName(s) {
			p.knownAffinitySets[s] = true
		}
	}
}

// forgetExistingObjects makes the next sync list the table again.
func (p *Proxier) forgetExistingObjects() { p.knownChains, p.knownAffinitySets = nil, nil }

// recordTransaction updates the known chains and affinity sets with what
// a successful transaction created and deleted.
func (p *Proxier) recordTransaction(tx *nft.Transaction) {
	if p.knownChains == nil || p.knownAffinitySets == nil {
		return
	}
	tx.ForEach(func(verb string, obj nft.Object) {
		switch o := obj.(type) {
		case *nft.Chain:
			if verb == "add" {
				p.knownChains[o.Name] = true
			} else if verb == "delete" {
				delete(p.knownChains, o.Name)
			}
		case *nft.Set:
			if !isAffinitySetName(o.Name) {
				return
			}
			if verb == "add" {
				p.knownAffinitySets[o.Name] = true
			} else if verb == "delete" {
				delete(p.knownAffinitySets, o.Name)
			}
		}
	})
}

// epChainSkipUpdate: on the first sync after a restart, an endpoint chain
// that already exists is left as it is (its name fixes its rules), which
// makes restarts of kube-proxy with many Services fast.
func (p *Proxier) epChainSkipUpdate(existingChains, existingAffinitySets map[string]bool, svcInfo *servicePortInfo, epInfo *endpointInfo) bool {
	if p.syncedOnce || existingChains == nil || existingAffinitySets == nil {
		return false
	}
	wantAffinitySet := svcInfo.SessionAffinityType() == corev1.ServiceAffinityClientIP
	return existingChains[epInfo.chainName] && wantAffinitySet == existingAffinitySets[epInfo.affinitySetName]
}

// writeServiceToEndpointRules fills a service-/local- chain: the affinity
// rules first, then one numgen vmap picking an endpoint uniformly.
func (p *Proxier) writeServiceToEndpointRules(tx *nft.Transaction, svcInfo *servicePortInfo, svcChain string, endpoints []proxy.Endpoint) {
	if svcInfo.SessionAffinityType() == corev1.ServiceAffinityClientIP {
		ipX := "ip"
		if p.ipFamily == corev1.IPv6Protocol {
			ipX = "ip6"
		}
		for _, ep := range endpoints {
			if epInfo, ok := ep.(*endpointInfo); ok {
				tx.Add(&nft.Rule{Chain: svcChain, Rule: nft.Concat(ipX, "saddr", "@", epInfo.affinitySetName, "goto", epInfo.chainName)})
			}
		}
	}
	var elements []string
	for i, ep := range endpoints {
		epInfo, ok := ep.(*endpointInfo)
		if !ok {
			continue
		}
		elements = append(elements, strconv.Itoa(i), ":", "goto", epInfo.chainName)
		if i != len(endpoints)-1 {
			elements = append(elements, ",")
		}
	}
	tx.Add(&nft.Rule{Chain: svcChain, Rule: nft.Concat("numgen random mod", len(endpoints), "vmap", "{", elements, "}")})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
