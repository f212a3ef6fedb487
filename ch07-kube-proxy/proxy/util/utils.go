package util

import (
	"net"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
)

const (
	// IPv4ZeroCIDR is the CIDR block for the whole IPv4 address space.
	IPv4ZeroCIDR = "0.0.0.0/0"
	// IPv6ZeroCIDR is the CIDR block for the whole IPv6 address space.
	IPv6ZeroCIDR = "::/0"

	// FullSyncPeriod is the longest a proxier goes without a full resync,
	// whatever --iptables-sync-period says.
	FullSyncPeriod = 1 * time.Hour
)

// IsZeroCIDR reports whether cidr is 0.0.0.0/0 or ::/0.
func IsZeroCIDR(cidr *net.IPNet) bool {
	if cidr == nil {
		return false
	}
	prefixLen, _ := cidr.Mask.Size()
	return prefixLen == 0
}

// ShouldSkipService reports whether a Service gets no proxy rules at all:
// headless (clusterIP None or empty) and ExternalName Services.
func ShouldSkipService(service *corev1.Service) bool {
	if service.Spec.ClusterIP == corev1.ClusterIPNone || service.Spec.ClusterIP == "" {
		return true
	}
	return service.Spec.Type == corev1.ServiceTypeExternalName
}

// ParseIPSloppy parses an IP, accepting leading zeros in IPv4 octets as the
// apiserver's legacy validation did ("010.000.000.001"), as k8s.io/utils/net.
func ParseIPSloppy(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	// Legacy form: strip leading zeros of each IPv4 octet.
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return nil
	}
	for i, p := range parts {
		t := strings.TrimLeft(p, "0")
		if t == "" && p != "" {
			t = "0"
		}
		parts[i] = t
	}
	return net.ParseIP(strings.Join(parts, "."))
}

// ParseCIDRSloppy parses a CIDR, accepting leading zeros as ParseIPSloppy.
func ParseCIDRSloppy(s string) (*net.IPNet, error) {
	if _, n, err := net.ParseCIDR(s); err == nil {
		return n, nil
	}
	i := strings.IndexByte(s, '/')
	if i < 0 {
		_, _, err := net.ParseCIDR(s)
		return nil, err
	}
	ip := ParseIPSloppy(s[:i])
	if ip == nil {
		_, _, err := net.ParseCIDR(s)
		return nil, err
	}
	_, n, err := net.ParseCIDR(ip.String() + s[i:])
	return n, err
}

// GetIPFamilyFromIP is IPv4Protocol or IPv6Protocol.
func GetIPFamilyFromIP(ip net.IP) corev1.IPFamily {
	switch {
	case ip == nil:
		return corev1.IPFamilyUnknown
	case ip.To4() != nil:
		return corev1.IPv4Protocol
	default:
		return corev1.IPv6Protocol
	}
}

// IsIPv4CIDRString reports whether s is an IPv4 CIDR.
func IsIPv4CIDRString(s string) bool {
	n, err := ParseCIDRSloppy(s)
	return err == nil && n.IP.To4() != nil
}

// IsIPv6String reports whether s is an IPv6 address.
func IsIPv6String(s string) bool {
	ip := ParseIPSloppy(s)
	return ip != nil && ip.To4() == nil
}

// MapIPsByIPFamily sorts IP strings by family; invalid ones are skipped.
func MapIPsByIPFamily(ipStrings []string) map[corev1.IPFamily][]net.IP {
	m := map[corev1.IPFamily][]net.IP{}
	for _, s := range ipStrings {
		if ip := ParseIPSloppy(s); ip != nil {
			f := GetIPFamilyFromIP(ip)
			m[f] = append(m[f], ip)
		}
	}
	return m
}

// MapCIDRsByIPFamily sorts CIDR strings (surrounding space allowed) by
// family; invalid ones are skipped.
func MapCIDRsByIPFamily(cidrStrings []string) map[corev1.IPFamily][]*net.IPNet {
	m := map[corev1.IPFamily][]*net.IPNet{}
	for _, s := range cidrStrings {
		cidr, err := ParseCIDRSloppy(strings.TrimSpace(s))
		if err != nil {
			continue
		}
		f := GetIPFamilyFromIP(cidr.IP)
		m[f] = append(m[f], cidr)
	}
	return m
}

// GetClusterIPByFamily returns the Service's cluster IP of ipFamily, or "".
func GetClusterIPByFamily(ipFamily corev1.IPFamily, service *corev1.Service) string {
	if len(service.Spec.IPFamilies) == 0 {
		if service.Spec.ClusterIP == "" || service.Spec.ClusterIP == corev1.ClusterIPNone {
			return ""
		}
		if (ipFamily == corev1.IPv6Protocol) == IsIPv6String(service.Spec.ClusterIP) {
			return service.Spec.ClusterIP
		}
		return ""
	}
	for i, family := range service.Spec.IPFamilies {
		if family == ipFamily && i < len(service.Spec.ClusterIPs) {
			return service.Spec.ClusterIPs[i]
		}
	}
	return ""
}

// IsVIPMode reports whether a load-balancer ingress IP is a VIP that
// kube-proxy captures (ipMode unset or VIP), not a proxy in front of the nodes.
func IsVIPMode(ing corev1.LoadBalancerIngress) bool {
	return ing.IPMode == nil || *ing.IPMode == corev1.LoadBalancerIPModeVIP
}
