package iptables

import (
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
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

var errSyncFailed = errors.New("sync failed")

// SyncProxyRules writes the rules for the current state in one
// iptables-restore. A full sync (the first one, after a failure, after a
// topology change or iptables flush, and at least every FullSyncPeriod)
// rewrites every chain; a partial sync rewrites the top-level chains and
// only the per-service chains of Services that changed since the last
// sync. This is where all of the iptables-save/restore calls happen.
func (p *Proxier) SyncProxyRules() (retryError error) {
	p.mu.Lock()
	defer p.mu.Unlock()

	// Don't sync until both informers have delivered their initial lists.
	if !p.isInitialized() {
		p.log.Debug("Not syncing iptables until Services and Endpoints have been received from master")
		return nil
	}

	start := time.Now()
	doFullSync := p.needFullSync || time.Since(p.lastFullSync) > proxyutil.FullSyncPeriod
	defer func() {
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
			// The changes have been consumed: only a full sync can catch up.
			p.needFullSync = true
		} else if doFullSync {
			p.lastFullSync = time.Now()
		}
	}()

	if doFullSync {
		// The jump rules from the built-in chains (PREROUTING → KUBE-SERVICES,
		// ...) can't be part of the restore: we don't own those chains. They are
		// ensured on full syncs only (start-up, after a flush), which saves
		// 20 iptables runs per partial sync.
		for _, jump := range append(append([]iptablesJumpChain{}, iptablesJumpChains...), iptablesKubeletJumpChains...) {
			if _, err := p.iptables.EnsureChain(jump.table, jump.dstChain); err != nil {
				p.log.Error("Failed to ensure chain exists", "table", string(jump.table), "chain", string(jump.dstChain), "err", err)
				return
			}
			args := append([]string{}, jump.extraArgs...)
			if jump.comment != "" {
				args = append(args, "-m", "comment", "--comment", jump.comment)
			}
			args = append(args, "-j", string(jump.dstChain))
			if _, err := p.iptables.EnsureRule(jump.table, jump.srcChain, args...); err != nil {
				p.log.Error("Failed to ensure chain jumps", "table", string(jump.table), "srcChain", string(jump.srcChain), "dstChain", string(jump.dstChain), "err", err)
				return
			}
		}
		// The nfacct counters some rules count with.
		if p.nfacct != nil {
			for name := range p.nfAcctCounters {
				if err := p.nfacct.Ensure(name); err != nil {
					p.nfAcctCounters[name] = false
					p.log.Error("Failed to create nfacct counter; the corresponding metric will not be updated", "counter", name, "err", err)
				} else {
					p.nfAcctCounters[name] = true
				}
			}
		}
	}

	// Below this point we will not return until we try to write the rules.

	p.filterChains.Reset()
	p.filterRules.Reset()
	p.natChains.Reset()
	p.natRules.Reset()

	skippedNatChains := proxyutil.NewDiscardLineBuffer()
	skippedNatRules := proxyutil.NewDiscardLineBuffer()

	// The top-level chains are always rewritten.
	for _, c := range []Chain{kubeServicesChain, kubeExternalServicesChain, kubeForwardChain, kubeNodePortsChain, kubeProxyFirewallChain} {
		p.filterChains.Write(MakeChainLine(c))
	}
	for _, c := range []Chain{kubeServicesChain, kubeNodePortsChain, kubePostroutingChain, kubeMarkMasqChain} {
		p.natChains.Write(MakeChainLine(c))
	}

	// KUBE-POSTROUTING: masquerade only packets carrying the mark; clear the
	// mark first so a packet that traverses the stack again is not
	// masqueraded twice.
	p.natRules.Write("-A", string(kubePostroutingChain),
		"-m", "mark", "!", "--mark", fmt.Sprintf("%s/%s", p.masqueradeMark, p.masqueradeMark),
		"-j", "RETURN")
	p.natRules.Write("-A", string(kubePostroutingChain),
		"-j", "MARK", "--xor-mark", p.masqueradeMark)
	masqRule := []string{"-A", string(kubePostroutingChain),
		"-m", "comment", "--comment", `"kubernetes service traffic requiring SNAT"`,
		"-j", "MASQUERADE"}
	if p.iptables.HasRandomFully() {
		masqRule = append(masqRule, "--random-fully")
	}
	p.natRules.Write(masqRule)

	// KUBE-MARK-MASQ: set the masquerade mark.
	p.natRules.Write("-A", string(kubeMarkMasqChain),
		"-j", "MARK", "--or-mark", p.masqueradeMark)

	isIPv6 := p.iptables.IsIPv6()
	if !isIPv6 && p.localhostNodePorts {
		// route_localnet lets martian packets to 127.0.0.0/8 in
		// (https://issue.k8s.io/90259); this rule (a copy of the kubelet's)
		// drops them unless they belong to a (DNATed) connection.
		p.filterChains.Write(MakeChainLine(kubeletFirewallChain))
		p.filterRules.Write("-A", string(kubeletFirewallChain),
			"-m", "comment", "--comment", `"block incoming localnet connections"`,
			"-d", "127.0.0.0/8",
			"!", "-s", "127.0.0.0/8",
			"-m", "conntrack",
			"!", "--ctstate", "RELATED,ESTABLISHED,DNAT",
			"-j", "DROP")
	}

	// The nat chains this sync uses; other service chains are stale.
	activeNATChains := map[Chain]bool{}

	args := make([]string, 64)

	totalEndpoints := 0
	for svcName := range p.svcPortMap {
		totalEndpoints += len(p.endpointsMap[svcName])
	}
	p.largeClusterMode = totalEndpoints > largeClusterEndpointsThreshold

	for _, svcName := range p.svcPortMap.SortedNames() {
		svcInfo, ok := p.svcPortMap[svcName].(*servicePortInfo)
		if !ok {
			continue
		}
		protocol := strings.ToLower(string(svcInfo.Protocol()))
		svcPortNameString := svcInfo.nameString

		// The endpoints for Cluster and Local policy; allLocallyReachable is
		// their union; hasEndpoints: usable endpoints anywhere in the cluster.
		allEndpoints := p.endpointsMap[svcName]
		clusterEndpoints, localEndpoints, allLocallyReachableEndpoints, hasEndpoints := proxy.CategorizeEndpoints(allEndpoints, svcInfo, p.nodeName, p.topologyLabels)

		clusterPolicyChain := svcInfo.clusterPolicyChainName
		usesClusterPolicyChain := len(clusterEndpoints) > 0 && svcInfo.UsesClusterEndpoints()

		localPolicyChain := svcInfo.localPolicyChainName
		usesLocalPolicyChain := len(localEndpoints) > 0 && svcInfo.UsesLocalEndpoints()

		// Internal (ClusterIP) traffic goes to the policy chain of
		// internalTrafficPolicy.
		internalPolicyChain := clusterPolicyChain
		hasInternalEndpoints := hasEndpoints
		if svcInfo.InternalPolicyLocal() {
			internalPolicyChain = localPolicyChain
			if len(localEndpoints) == 0 {
				hasInternalEndpoints = false
			}
		}
		internalTrafficChain := internalPolicyChain

		// External traffic (NodePort, LB, external IP) goes to KUBE-EXT, which
		// jumps to the policy chain of externalTrafficPolicy.
		externalPolicyChain := clusterPolicyChain
		hasExternalEndpoints := hasEndpoints
		if svcInfo.ExternalPolicyLocal() {
			externalPolicyChain = localPolicyChain
			if len(localEndpoints) == 0 {
				hasExternalEndpoints = false
			}
		}
		externalTrafficChain := svcInfo.externalChainName

		// KUBE-EXT is needed even without external endpoints: it holds the
		// short-circuit rules for traffic from inside the cluster.
		usesExternalTrafficChain := hasEndpoints && svcInfo.ExternallyAccessible()

		// LB traffic goes through KUBE-FW when loadBalancerSourceRanges are set.
		loadBalancerTrafficChain := externalTrafficChain
		fwChain := svcInfo.firewallChainName
		usesFWChain := hasEndpoints && len(svcInfo.LoadBalancerVIPs()) > 0 && len(svcInfo.LoadBalancerSourceRanges()) > 0
		if usesFWChain {
			loadBalancerTrafficChain = fwChain
		}

		var internalTrafficFilterTarget, internalTrafficFilterComment string
		var externalTrafficFilterTarget, externalTrafficFilterComment string
		if !hasEndpoints {
			// No endpoints at all: no nat chains, only REJECT rules in filter.
			internalTrafficFilterTarget = "REJECT"
			internalTrafficFilterComment = fmt.Sprintf(`"%s has no endpoints"`, svcPortNameString)
			externalTrafficFilterTarget = "REJECT"
			externalTrafficFilterComment = internalTrafficFilterComment
		} else {
			if !hasInternalEndpoints {
				// internalTrafficPolicy Local without local endpoints: drop
				// ClusterIP traffic (external traffic may still work).
				internalTrafficFilterTarget = "DROP"
				internalTrafficFilterComment = fmt.Sprintf(`"%s has no local endpoints"`, svcPortNameString)
			}
			if !hasExternalEndpoints {
				// externalTrafficPolicy Local without local endpoints: drop
				// external traffic that was not short-circuited.
				externalTrafficFilterTarget = "DROP"
				externalTrafficFilterComment = fmt.Sprintf(`"%s has no local endpoints"`, svcPortNameString)
			}
		}

		filterRules := p.filterRules
		natChains := p.natChains
		natRules := p.natRules

		// Capture the clusterIP.
		if hasInternalEndpoints {
			natRules.Write("-A", string(kubeServicesChain),
				"-m", "comment", "--comment", fmt.Sprintf(`"%s cluster IP"`, svcPortNameString),
				"-m", protocol, "-p", protocol,
				"-d", svcInfo.ClusterIP().String(),
				"--dport", strconv.Itoa(svcInfo.Port()),
				"-j", string(internalTrafficChain))
		} else {
			filterRules.Write("-A", string(kubeServicesChain),
				"-m", "comment", "--comment", internalTrafficFilterComment,
				"-m", protocol, "-p", protocol,
				"-d", svcInfo.ClusterIP().String(),
				"--dport", strconv.Itoa(svcInfo.Port()),
				"-j", internalTrafficFilterTarget)
		}

		// Capture externalIPs.
		for _, externalIP := range svcInfo.ExternalIPs() {
			if hasEndpoints {
				natRules.Write("-A", string(kubeServicesChain),
					"-m", "comment", "--comment", fmt.Sprintf(`"%s external IP"`, svcPortNameString),
					"-m", protocol, "-p", protocol,
					"-d", externalIP.String(),
					"--dport", strconv.Itoa(svcInfo.Port()),
					"-j", string(externalTrafficChain))
			}
			if !hasExternalEndpoints {
				filterRules.Write("-A", string(kubeExternalServicesChain),
					"-m", "comment", "--comment", externalTrafficFilterComment,
					"-m", protocol, "-p", protocol,
					"-d", externalIP.String(),
					"--dport", strconv.Itoa(svcInfo.Port()),
					"-j", externalTrafficFilterTarget)
			}
		}

		// Capture load-balancer ingress.
		for _, lbip := range svcInfo.LoadBalancerVIPs() {
			if hasEndpoints {
				natRules.Write("-A", string(kubeServicesChain),
					"-m", "comment", "--comment", fmt.Sprintf(`"%s loadbalancer IP"`, svcPortNameString),
					"-m", protocol, "-p", protocol,
					"-d", lbip.String(),
					"--dport", strconv.Itoa(svcInfo.Port()),
					"-j", string(loadBalancerTrafficChain))
			}
			if usesFWChain {
				filterRules.Write("-A", string(kubeProxyFirewallChain),
					"-m", "comment", "--comment", fmt.Sprintf(`"%s traffic not accepted by %s"`, svcPortNameString, svcInfo.firewallChainName),
					"-m", protocol, "-p", protocol,
					"-d", lbip.String(),
					"--dport", strconv.Itoa(svcInfo.Port()),
					"-j", "DROP")
			}
		}
		if !hasExternalEndpoints {
			for _, lbip := range svcInfo.LoadBalancerVIPs() {
				filterRules.Write("-A", string(kubeExternalServicesChain),
					"-m", "comment", "--comment", externalTrafficFilterComment,
					"-m", protocol, "-p", protocol,
					"-d", lbip.String(),
					"--dport", strconv.Itoa(svcInfo.Port()),
					"-j", externalTrafficFilterTarget)
			}
		}

		// Capture nodeports (not subject to loadBalancerSourceRanges).
		if svcInfo.NodePort() != 0 {
			if hasEndpoints {
				if p.localhostNodePorts && p.ipFamily == corev1.IPv4Protocol && p.nfAcctCounters[localhostNodePortAcceptedCounter] {
					natRules.Write("-A", string(kubeNodePortsChain),
						"-m", "comment", "--comment", svcPortNameString,
						"-m", protocol, "-p", protocol,
						"-d", "127.0.0.0/8",
						"--dport", strconv.Itoa(svcInfo.NodePort()),
						"-m", "nfacct", "--nfacct-name", localhostNodePortAcceptedCounter,
						"-j", string(externalTrafficChain))
				}
				natRules.Write("-A", string(kubeNodePortsChain),
					"-m", "comment", "--comment", svcPortNameString,
					"-m", protocol, "-p", protocol,
					"--dport", strconv.Itoa(svcInfo.NodePort()),
					"-j", string(externalTrafficChain))
			}
			if !hasExternalEndpoints {
				filterRules.Write("-A", string(kubeExternalServicesChain),
					"-m", "comment", "--comment", externalTrafficFilterComment,
					"-m", "addrtype", "--dst-type", "LOCAL",
					"-m", protocol, "-p", protocol,
					"--dport", strconv.Itoa(svcInfo.NodePort()),
					"-j", externalTrafficFilterTarget)
			}
		}

		// Accept the health-check node port, with or without local endpoints.
		if svcInfo.HealthCheckNodePort() != 0 {
			filterRules.Write("-A", string(kubeNodePortsChain),
				"-m", "comment", "--comment", fmt.Sprintf(`"%s health check node port"`, svcPortNameString),
				"-m", "tcp", "-p", "tcp",
				"--dport", strconv.Itoa(svcInfo.HealthCheckNodePort()),
				"-j", "ACCEPT")
		}

		// A partial sync leaves the SVC/SVL/EXT/FW/SEP chains of unchanged
		// Services alone: they are "written" to a discarding buffer.
		if !doFullSync && !serviceUpdateResult.UpdatedServices[svcName.NamespacedName] && !endpointUpdateResult.UpdatedServices[svcName.NamespacedName] {
			natChains = skippedNatChains
			natRules = skippedNatRules
		}

		// Internal traffic: masquerade what does not come from a pod (or
		// everything with --masquerade-all), so replies come back here.
		if hasInternalEndpoints {
			args = append(args[:0],
				"-m", "comment", "--comment", fmt.Sprintf(`"%s cluster IP"`, svcPortNameString),
				"-m", protocol, "-p", protocol,
				"-d", svcInfo.ClusterIP().String(),
				"--dport", strconv.Itoa(svcInfo.Port()))
			if p.masqueradeAll {
				natRules.Write("-A", string(internalTrafficChain), args, "-j", string(kubeMarkMasqChain))
			} else if p.localDetector.IsImplemented() {
				// Off-cluster traffic routed to a node for a service VIP may
				// bounce off-node: masquerade it.
				natRules.Write("-A", string(internalTrafficChain), args, p.localDetector.IfNotLocal(), "-j", string(kubeMarkMasqChain))
			}
		}

		// KUBE-EXT: every external destination jumps here.
		if usesExternalTrafficChain {
			natChains.Write(MakeChainLine(externalTrafficChain))
			activeNATChains[externalTrafficChain] = true

			if !svcInfo.ExternalPolicyLocal() {
				// Remote endpoints: masquerade, the reply must come back here.
				natRules.Write("-A", string(externalTrafficChain),
					"-m", "comment", "--comment", fmt.Sprintf(`"masquerade traffic for %s external destinations"`, svcPortNameString),
					"-j", string(kubeMarkMasqChain))
			} else {
				// Local endpoints only: keep the source IP, except for
				// traffic from inside the cluster.
				if p.localDetector.IsImplemented() {
					// Pod → external IP is treated as if it went out to the
					// load balancer and came back: Cluster policy.
					natRules.Write("-A", string(externalTrafficChain),
						"-m", "comment", "--comment", fmt.Sprintf(`"pod traffic for %s external destinations"`, svcPortNameString),
						p.localDetector.IfLocal(),
						"-j", string(clusterPolicyChain))
				}
				// Node → external IP: the source is a local address, which
				// must be masqueraded; and it uses Cluster policy.
				natRules.Write("-A", string(externalTrafficChain),
					"-m", "comment", "--comment", fmt.Sprintf(`"masquerade LOCAL traffic for %s external destinations"`, svcPortNameString),
					"-m", "addrtype", "--src-type", "LOCAL",
					"-j", string(kubeMarkMasqChain))
				natRules.Write("-A", string(externalTrafficChain),
					"-m", "comment", "--comment", fmt.Sprintf(`"route LOCAL traffic for %s external destinations"`, svcPortNameString),
					"-m", "addrtype", "--src-type", "LOCAL",
					"-j", string(clusterPolicyChain))
			}
			// Anything else goes to the external policy chain.
			if hasExternalEndpoints {
				natRules.Write("-A", string(externalTrafficChain), "-j", string(externalPolicyChain))
			}
		}

		// KUBE-FW: loadBalancerSourceRanges. Accepted sources go on to KUBE-EXT;
		// the rest falls through un-DNATed and KUBE-PROXY-FIREWALL drops it.
		if usesFWChain {
			natChains.Write(MakeChainLine(fwChain))
			activeNATChains[fwChain] = true
			args = append(args[:0],
				"-A", string(fwChain),
				"-m", "comment", "--comment", fmt.Sprintf(`"%s loadbalancer IP"`, svcPortNameString))
			allowFromNode := false
			for _, cidr := range svcInfo.LoadBalancerSourceRanges() {
				natRules.Write(args, "-s", cidr.String(), "-j", string(externalTrafficChain))
				if cidr.Contains(p.nodeIP) {
					allowFromNode = true
				}
			}
			// A node's request to a VIP it holds locally loops back with the
			// VIP as source: allow it when the node itself is allowed.
			if allowFromNode {
				for _, lbip := range svcInfo.LoadBalancerVIPs() {
					natRules.Write(args, "-s", lbip.String(), "-j", string(externalTrafficChain))
				}
			}
			natRules.Write("-A", string(fwChain),
				"-m", "comment", "--comment", fmt.Sprintf(`"other traffic to %s will be dropped by KUBE-PROXY-FIREWALL"`, svcPortNameString))
		}

		// KUBE-SVC: pick one of the cluster endpoints.
		if usesClusterPolicyChain {
			natChains.Write(MakeChainLine(clusterPolicyChain))
			activeNATChains[clusterPolicyChain] = true
			p.writeServiceToEndpointRules(natRules, svcPortNameString, svcInfo, clusterPolicyChain, clusterEndpoints, args)
		}

		// KUBE-SVL: pick one of the local endpoints.
		if usesLocalPolicyChain {
			natChains.Write(MakeChainLine(localPolicyChain))
			activeNATChains[localPolicyChain] = true
			p.writeServiceToEndpointRules(natRules, svcPortNameString, svcInfo, localPolicyChain, localEndpoints, args)
		}

		// KUBE-SEP: one chain per endpoint.
		for _, ep := range allLocallyReachableEndpoints {
			epInfo, ok := ep.(*endpointInfo)
			if !ok {
				continue
			}
			endpointChain := epInfo.ChainName
			natChains.Write(MakeChainLine(endpointChain))
			activeNATChains[endpointChain] = true

			args = append(args[:0], "-A", string(endpointChain))
			args = p.appendServiceCommentLocked(args, svcPortNameString)
			// Hairpin: an endpoint reaching itself through the service must be
			// masqueraded, or it would answer itself directly.
			natRules.Write(args, "-s", epInfo.IP(), "-j", string(kubeMarkMasqChain))
			// Session affinity: remember the client in the "recent" list
			// named after this chain.
			if svcInfo.SessionAffinityType() == corev1.ServiceAffinityClientIP {
				args = append(args, "-m", "recent", "--name", string(endpointChain), "--set")
			}
			// DNAT to the endpoint.
			args = append(args, "-m", protocol, "-p", protocol, "-j", "DNAT", "--to-destination", epInfo.String())
			natRules.Write(args)
		}
	}

	// Delete service chains no longer in use (in large clusters at most
	// once per sync period: iptables-save is slow there; stale chains are
	// unreferenced and harmless meanwhile).
	deletedChains := 0
	if !p.largeClusterMode || time.Since(p.lastIPTablesCleanup) > p.syncPeriod {
		p.iptablesData.Reset()
		if err := p.iptables.SaveInto(TableNAT, p.iptablesData); err == nil {
			existing := GetChainsFromTable(p.iptablesData.Bytes())
			for _, chain := range sortedChains(existing) {
				if activeNATChains[chain] || !isServiceChainName(string(chain)) {
					continue
				}
				// A chain line flushes it; then it can be deleted.
				p.natChains.Write(MakeChainLine(chain))
				p.natRules.Write("-X", string(chain))
				deletedChains++
			}
			p.lastIPTablesCleanup = time.Now()
		} else {
			p.log.Error("Failed to execute iptables-save: stale chains will not be deleted", "err", err)
		}
	}

	// Last rule of KUBE-SERVICES: packets to a local address go on to
	// KUBE-NODEPORTS.
	if p.nodePortAddresses.MatchAll() {
		destinations := []string{"-m", "addrtype", "--dst-type", "LOCAL"}
		// Localhost NodePorts only work with route_localnet (IPv4).
		if isIPv6 {
			destinations = append(destinations, "!", "-d", "::1/128")
		} else if !p.localhostNodePorts {
			destinations = append(destinations, "!", "-d", "127.0.0.0/8")
		}
		p.natRules.Write("-A", string(kubeServicesChain),
			"-m", "comment", "--comment", `"kubernetes service nodeports; NOTE: this must be the last rule in this chain"`,
			destinations,
			"-j", string(kubeNodePortsChain))
	} else {
		nodeIPs, err := p.nodePortAddresses.GetNodeIPs(p.networkInterfacer)
		if err != nil {
			p.log.Error("Failed to get node ip address matching nodeport cidrs, services with nodeport may not work as intended", "CIDRs", p.nodePortAddresses.String(), "err", err)
		}
		for _, ip := range nodeIPs {
			if ip.IsLoopback() {
				if isIPv6 {
					p.log.Error("--nodeport-addresses includes localhost but localhost NodePorts are not supported on IPv6", "address", ip.String())
					continue
				} else if !p.localhostNodePorts {
					p.log.Error("--nodeport-addresses includes localhost but --iptables-localhost-nodeports=false was passed", "address", ip.String())
					continue
				}
			}
			p.natRules.Write("-A", string(kubeServicesChain),
				"-m", "comment", "--comment", `"kubernetes service nodeports; NOTE: this must be the last rule in this chain"`,
				"-d", ip.String(),
				"-j", string(kubeNodePortsChain))
		}
	}

	// Drop INVALID packets, which could otherwise reset connections
	// (https://github.com/kubernetes/kubernetes/issues/74839).
	if !p.conntrackTCPLiberal {
		rule := []string{"-A", string(kubeForwardChain), "-m", "conntrack", "--ctstate", "INVALID"}
		if p.nfAcctCounters[ctStateInvalidDroppedNFAcctCounter] {
			rule = append(rule, "-m", "nfacct", "--nfacct-name", ctStateInvalidDroppedNFAcctCounter)
		}
		rule = append(rule, "-j", "DROP")
		p.filterRules.Write(rule)
	}

	// Forward what KUBE-MARK-MASQ marked (NodePort traffic) even if the
	// FORWARD policy is DROP, and the rest of those connections.
	p.filterRules.Write("-A", string(kubeForwardChain),
		"-m", "comment", "--comment", `"kubernetes forwarding rules"`,
		"-m", "mark", "--mark", fmt.Sprintf("%s/%s", p.masqueradeMark, p.masqueradeMark),
		"-j", "ACCEPT")
	p.filterRules.Write("-A", string(kubeForwardChain),
		"-m", "comment", "--comment", `"kubernetes forwarding conntrack rule"`,
		"-m", "conntrack",
		"--ctstate", "RELATED,ESTABLISHED",
		"-j", "ACCEPT")

	metrics.Set("kubeproxy_sync_proxy_rules_iptables_total", float64(p.filterRules.Lines()+p.natRules.Lines()+skippedNatRules.Lines()-deletedChains))

	// One transaction: filter, then nat.
	p.iptablesData.Reset()
	p.iptablesData.WriteString("*filter\n")
	p.iptablesData.Write(p.filterChains.Bytes())
	p.iptablesData.Write(p.filterRules.Bytes())
	p.iptablesData.WriteString("COMMIT\n")
	p.iptablesData.WriteString("*nat\n")
	p.iptablesData.Write(p.natChains.Bytes())
	p.iptablesData.Write(p.natRules.Bytes())
	p.iptablesData.WriteString("COMMIT\n")

	p.log.Debug("Reloading service iptables data", "numServices", len(p.svcPortMap), "numEndpoints", totalEndpoints,
		"numFilterChains", p.filterChains.Lines(), "numFilterRules", p.filterRules.Lines(),
		"numNATChains", p.natChains.Lines(), "numNATRules", p.natRules.Lines(), "fullSync", doFullSync)

	// --noflush: chains we do not name are left alone.
	if err := p.iptables.RestoreAll(p.iptablesData.Bytes()); err != nil {
		p.log.Error("Failed to execute iptables-restore", "err", err)
		metrics.Add("kubeproxy_sync_proxy_rules_iptables_restore_failures_total", 1)
		return
	}
	success = true
	p.needFullSync = false

	if p.healthzServer != nil {
		p.healthzServer.Updated(p.ipFamily)
	}
	metrics.Set("kubeproxy_sync_proxy_rules_last_timestamp_seconds", float64(time.Now().UnixNano())/1e9)

	// Health-check node ports follow the Services and their local endpoints.
	if err := p.serviceHealthServer.SyncServices(p.svcPortMap.HealthCheckNodePorts()); err != nil {
		p.log.Error("Error syncing healthcheck services", "err", err)
	}
	if err := p.serviceHealthServer.SyncEndpoints(p.endpointsMap.LocalReadyEndpoints()); err != nil {
		p.log.Error("Error syncing healthcheck endpoints", "err", err)
	}

	// UDP has no connection end: delete conntrack entries that still point
	// at endpoints that are gone.
	if endpointUpdateResult.ConntrackCleanupRequired {
		conntrack.CleanStaleEntries(p.conntrack, p.ipFamily, p.svcPortMap, p.endpointsMap, p.log)
	}
	return nil
}

// writeServiceToEndpointRules fills a KUBE-SVC/KUBE-SVL chain: first the
// session-affinity rules (a client seen within the timeout goes back to
// its endpoint), then one rule per endpoint with probability 1/n, 1/(n-1),
// ..., the last one unconditional: each endpoint is picked with 1/n.
func (p *Proxier) writeServiceToEndpointRules(natRules proxyutil.LineBuffer, svcPortNameString string, svcInfo proxy.ServicePort, svcChain Chain, endpoints []proxy.Endpoint, args []string) {
	if svcInfo.SessionAffinityType() == corev1.ServiceAffinityClientIP {
		for _, ep := range endpoints {
			epInfo, ok := ep.(*endpointInfo)
			if !ok {
				continue
			}
			comment := fmt.Sprintf(`"%s -> %s"`, svcPortNameString, epInfo.String())
			args = append(args[:0], "-A", string(svcChain))
			args = p.appendServiceCommentLocked(args, comment)
			args = append(args,
				"-m", "recent", "--name", string(epInfo.ChainName),
				"--rcheck", "--seconds", strconv.Itoa(svcInfo.StickyMaxAgeSeconds()), "--reap",
				"-j", string(epInfo.ChainName))
			natRules.Write(args)
		}
	}

	numEndpoints := len(endpoints)
	for i, ep := range endpoints {
		epInfo, ok := ep.(*endpointInfo)
		if !ok {
			continue
		}
		comment := fmt.Sprintf(`"%s -> %s"`, svcPortNameString, epInfo.String())
		args = append(args[:0], "-A", string(svcChain))
		args = p.appendServiceCommentLocked(args, comment)
		if i < numEndpoints-1 {
			args = append(args, "-m", "statistic", "--mode", "random", "--probability", p.probability(numEndpoints-i))
		}
		natRules.Write(args, "-j", string(epInfo.ChainName))
	}
}

func sortedChains(m map[Chain]bool) []Chain {
	out := make([]Chain, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
