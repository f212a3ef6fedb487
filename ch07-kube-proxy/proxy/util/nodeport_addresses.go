package util

import (
	"fmt"
	"net"

	"kubik/ch01-apiserver/api/corev1"
)

// NodePortAddresses is --nodeport-addresses for one IP family: the CIDRs
// whose local addresses accept NodePort traffic. An empty list means every
// local address (MatchAll).
type NodePortAddresses struct {
	cidrStrings          []string
	cidrs                []*net.IPNet
	containsIPv4Loopback bool
	matchAll             bool
}

var ipv4LoopbackStart = net.IPv4(127, 0, 0, 0)

// NewNodePortAddresses keeps the CIDRs of family; with none it matches all.
func NewNodePortAddresses(family corev1.IPFamily, cidrStrings []string) *NodePortAddresses {
	npa := &NodePortAddresses{}
	for _, s := range cidrStrings {
		if (family == corev1.IPv4Protocol) == IsIPv4CIDRString(s) {
			npa.cidrStrings = append(npa.cidrStrings, s)
		}
	}
	if len(npa.cidrStrings) == 0 {
		if family == corev1.IPv4Protocol {
			npa.cidrStrings = []string{IPv4ZeroCIDR}
		} else {
			npa.cidrStrings = []string{IPv6ZeroCIDR}
		}
	}
	for _, s := range npa.cidrStrings {
		cidr, err := ParseCIDRSloppy(s)
		if err != nil {
			continue
		}
		if cidr.IP.To4() != nil && (cidr.IP.IsLoopback() || cidr.Contains(ipv4LoopbackStart)) {
			npa.containsIPv4Loopback = true
		}
		if IsZeroCIDR(cidr) {
			npa.cidrs = []*net.IPNet{cidr}
			npa.matchAll = true
			break
		}
		npa.cidrs = append(npa.cidrs, cidr)
	}
	return npa
}

func (npa *NodePortAddresses) String() string { return fmt.Sprintf("%v", npa.cidrStrings) }

// MatchAll: every local address accepts NodePorts.
func (npa *NodePortAddresses) MatchAll() bool { return npa.matchAll }

// ContainsIPv4Loopback: 127.0.0.1 would accept NodePorts.
func (npa *NodePortAddresses) ContainsIPv4Loopback() bool { return npa.containsIPv4Loopback }

// GetNodeIPs returns the local addresses inside the CIDRs.
func (npa *NodePortAddresses) GetNodeIPs(nw NetworkInterfacer) ([]net.IP, error) {
	addrs, err := nw.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("error listing all interfaceAddrs from host, error: %v", err)
	}
	seen := map[string]bool{}
	var ips []net.IP
	for _, cidr := range npa.cidrs {
		for _, addr := range addrs {
			var ip net.IP
			switch v := addr.(type) {
			case *net.IPAddr:
				ip = v.IP
			case *net.IPNet:
				ip = v.IP
			default:
				continue
			}
			if cidr.Contains(ip) && !seen[ip.String()] {
				seen[ip.String()] = true
				ips = append(ips, ip)
			}
		}
	}
	return ips, nil
}

// NetworkInterfacer lists the local addresses (a fake in tests).
type NetworkInterfacer interface {
	InterfaceAddrs() ([]net.Addr, error)
}

// RealNetwork asks the kernel (of the caller's network namespace).
type RealNetwork struct{}

// InterfaceAddrs is net.InterfaceAddrs.
func (RealNetwork) InterfaceAddrs() ([]net.Addr, error) { return net.InterfaceAddrs() }
