// Package iptables is kube-proxy's iptables proxier: it turns Services and
// EndpointSlices into netfilter rules in the nat and filter tables, written
// in one iptables-restore --noflush transaction per sync.
//
// The packet path, in upstream's chain names:
//
//	nat PREROUTING / OUTPUT ──► KUBE-SERVICES
//	  one rule per service IP:port ("ns/svc:port cluster IP", "external IP",
//	  "loadbalancer IP"), and last a jump to KUBE-NODEPORTS for packets to a
//	  local address (NodePorts)
//	     │ cluster IP                       │ external IP / LB IP / NodePort
//	     ▼                                  ▼
//	  KUBE-SVC-<hash> (Cluster policy)    KUBE-EXT-<hash>: masquerade, then the
//	  or KUBE-SVL-<hash> (Local policy)   policy chain (for Local: short-circuit
//	  marks off-cluster sources for       pod and node traffic to KUBE-SVC)
//	  masquerade, then picks an endpoint  (KUBE-FW-<hash> first when the LB has
//	  with -m statistic (1/n, 1/(n-1)...)  loadBalancerSourceRanges)
//	     │
//	     ▼
//	  KUBE-SEP-<hash>: masquerade hairpin traffic (the endpoint talking to
//	  itself), then DNAT to the endpoint's ip:port
//	nat POSTROUTING ──► KUBE-POSTROUTING: MASQUERADE packets marked 0x4000
//	                    by KUBE-MARK-MASQ
//
//	filter INPUT/FORWARD/OUTPUT ──► KUBE-SERVICES / KUBE-EXTERNAL-SERVICES /
//	  KUBE-NODEPORTS / KUBE-PROXY-FIREWALL / KUBE-FORWARD: REJECT for services
//	  without endpoints, DROP for Local policy without local endpoints and for
//	  traffic the LB firewall refused, ACCEPT for health-check node ports and
//	  for marked forwarded traffic; DROP conntrack-INVALID packets.
//
// Chain names are upstream's: a prefix and 16 characters of the base32
// SHA-256 of the service port name and protocol (and the endpoint for
// KUBE-SEP), so they match what upstream kube-proxy writes for the same
// Services.
//
// Upstream: k8s.io/kubernetes/pkg/proxy/iptables.
package iptables
