// Package nftables is kube-proxy's nftables proxier: everything lives in
// one table, "ip kube-proxy", rewritten by one nft transaction per sync.
// Instead of one rule per service (iptables), Services are elements of
// verdict maps, so a packet is dispatched with one map lookup.
//
// The packet path, in upstream's names:
//
//	nat-prerouting / nat-output (dstnat) ──► services
//	  ip daddr . meta l4proto . th dport vmap @service-ips
//	      ClusterIP          → goto service-<hash>-ns/svc/proto/port (Cluster)
//	                           or local-<hash>-... (internalTrafficPolicy Local)
//	      external / LB IP   → goto external-<hash>-... (or firewall-<hash>-...)
//	  (local daddr | @nodeport-ips) . meta l4proto . th dport vmap @service-nodeports
//	      node port          → goto external-<hash>-...
//	service-/local-<hash>: mark off-cluster sources for masquerade, then
//	  numgen random mod N vmap { 0 : goto endpoint-..., 1 : ... }
//	  (with ClientIP affinity, first: ip saddr @affinity-... goto endpoint-...)
//	endpoint-<hash>-ns/svc/proto/port__ip/port: masquerade hairpin traffic,
//	  remember the client in the affinity set, dnat to ip:port
//	nat-postrouting (srcnat) ──► masquerading: masquerade packets marked 0x4000
//	  by mark-for-masquerade
//
//	filter-input / -forward / -output (ct state new):
//	  service-endpoints-check: vmap @no-endpoint-services → reject / drop
//	  nodeport-endpoints-check: vmap @no-endpoint-nodeports
//	  cluster-ips-check: reject other ports of @cluster-ips, drop unallocated
//	    addresses of the ServiceCIDRs
//	filter-prerouting-pre-dnat / filter-output-pre-dnat (dstnat-10):
//	  firewall-check: vmap @firewall-ips → firewall-<hash>: drop sources
//	  outside loadBalancerSourceRanges
//
// Chain names carry a hash (first 8 characters of the base32 SHA-256 of
// the readable rest of the name), as upstream's, so the table compares
// equal with the one upstream kube-proxy writes for the same Services.
//
// Upstream: k8s.io/kubernetes/pkg/proxy/nftables.
package nftables
