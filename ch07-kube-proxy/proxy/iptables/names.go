package iptables

import (
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// The chains of the proxier.
const (
	// kubeServicesChain captures service IPs (nat) and rejects services
	// without endpoints (filter).
	kubeServicesChain Chain = "KUBE-SERVICES"
	// kubeExternalServicesChain rejects/drops external traffic to services
	// without (local) endpoints.
	kubeExternalServicesChain Chain = "KUBE-EXTERNAL-SERVICES"
	// kubeNodePortsChain captures node ports (nat), accepts health-check
	// node ports (filter).
	kubeNodePortsChain Chain = "KUBE-NODEPORTS"
	// kubePostroutingChain masquerades marked packets.
	kubePostroutingChain Chain = "KUBE-POSTROUTING"
	// kubeMarkMasqChain marks a packet for masquerade.
	kubeMarkMasqChain Chain = "KUBE-MARK-MASQ"
	// kubeForwardChain accepts forwarded service traffic, drops INVALID.
	kubeForwardChain Chain = "KUBE-FORWARD"
	// kubeProxyFirewallChain drops load-balancer traffic the source
	// ranges did not accept.
	kubeProxyFirewallChain Chain = "KUBE-PROXY-FIREWALL"
	// kubeProxyCanaryChain is an empty chain in mangle, nat and filter
	// whose disappearance means someone flushed iptables.
	kubeProxyCanaryChain Chain = "KUBE-PROXY-CANARY"
	// kubeletFirewallChain duplicates the kubelet's chain with the
	// anti-martian rule for route_localnet.
	kubeletFirewallChain Chain = "KUBE-FIREWALL"

	// largeClusterEndpointsThreshold: with more endpoints than this the
	// proxier drops the per-endpoint comments and deletes stale chains at
	// most once per sync period, to keep iptables-restore fast.
	largeClusterEndpointsThreshold = 1000
)

const (
	servicePortPolicyClusterChainNamePrefix = "KUBE-SVC-"
	servicePortPolicyLocalChainNamePrefix   = "KUBE-SVL-"
	serviceFirewallChainNamePrefix          = "KUBE-FW-"
	serviceExternalChainNamePrefix          = "KUBE-EXT-"
	servicePortEndpointChainNamePrefix      = "KUBE-SEP-"
)

// portProtoHash is the first 16 characters of the base32 SHA-256 of
// "ns/svc:port" + protocol: iptables chain names are limited to 28
// characters.
func portProtoHash(servicePortName, protocol string) string {
	hash := sha256.Sum256([]byte(servicePortName + protocol))
	return base32.StdEncoding.EncodeToString(hash[:])[:16]
}

// servicePortPolicyClusterChain is KUBE-SVC-XXXX: the endpoints for
// Cluster traffic policy.
func servicePortPolicyClusterChain(servicePortName, protocol string) Chain {
	return Chain(servicePortPolicyClusterChainNamePrefix + portProtoHash(servicePortName, protocol))
}

// servicePortPolicyLocalChainName is KUBE-SVL-XXXX: the local endpoints
// for Local traffic policy.
func servicePortPolicyLocalChainName(servicePortName, protocol string) Chain {
	return Chain(servicePortPolicyLocalChainNamePrefix + portProtoHash(servicePortName, protocol))
}

// serviceFirewallChainName is KUBE-FW-XXXX: loadBalancerSourceRanges.
func serviceFirewallChainName(servicePortName, protocol string) Chain {
	return Chain(serviceFirewallChainNamePrefix + portProtoHash(servicePortName, protocol))
}

// serviceExternalChainName is KUBE-EXT-XXXX: external traffic (node ports,
// external IPs, load-balancer IPs).
func serviceExternalChainName(servicePortName, protocol string) Chain {
	return Chain(serviceExternalChainNamePrefix + portProtoHash(servicePortName, protocol))
}

// servicePortEndpointChainName is KUBE-SEP-XXXX for one endpoint.
func servicePortEndpointChainName(servicePortName, protocol, endpoint string) Chain {
	hash := sha256.Sum256([]byte(servicePortName + protocol + endpoint))
	return Chain(servicePortEndpointChainNamePrefix + base32.StdEncoding.EncodeToString(hash[:])[:16])
}

// isServiceChainName: a per-service or per-endpoint chain of ours.
func isServiceChainName(chain string) bool {
	for _, p := range []string{servicePortPolicyClusterChainNamePrefix, servicePortPolicyLocalChainNamePrefix,
		servicePortEndpointChainNamePrefix, serviceFirewallChainNamePrefix, serviceExternalChainNamePrefix} {
		if strings.HasPrefix(chain, p) {
			return true
		}
	}
	return false
}
