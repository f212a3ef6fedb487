// Package conntrack deletes stale UDP conntrack entries. UDP has no
// connection teardown, so after a Service's endpoints change the kernel
// keeps sending a client's datagrams to the endpoint its conntrack entry
// remembers, even if that endpoint is gone; and while a Service had no
// endpoints, entries may remember the rejection. After each sync in which
// a UDP Service's endpoints changed, the proxier lists the UDP entries and
// deletes those whose service IP:port (or node port) now points elsewhere.
//
// Upstream: k8s.io/kubernetes/pkg/proxy/conntrack.
package conntrack

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch07-kube-proxy/proxy"
)

// Interface lists and deletes conntrack entries (a fake in tests).
type Interface interface {
	ListEntries(ipFamily uint8) ([]*netlink.ConntrackFlow, error)
	ClearEntries(ipFamily uint8, filters ...netlink.CustomConntrackFilter) (int, error)
}

type conntracker struct{}

// New talks netlink to the conntrack table of the caller's network namespace.
func New() Interface { return conntracker{} }

// maxAttemptsEINTR bounds the retries of a dump the kernel interrupted.
const maxAttemptsEINTR = 5

func (conntracker) ListEntries(ipFamily uint8) (entries []*netlink.ConntrackFlow, err error) {
	for range maxAttemptsEINTR {
		entries, err = netlink.ConntrackTableList(netlink.ConntrackTable, netlink.InetFamily(ipFamily))
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	return entries, err
}

func (conntracker) ClearEntries(ipFamily uint8, filters ...netlink.CustomConntrackFilter) (int, error) {
	if len(filters) == 0 {
		return 0, nil
	}
	var total uint
	var err error
	for range maxAttemptsEINTR {
		var n uint
		n, err = netlink.ConntrackDeleteFilters(netlink.ConntrackTable, netlink.InetFamily(ipFamily), filters...)
		total += n
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return int(total), fmt.Errorf("error deleting conntrack entries, error: %w", err)
	}
	return int(total), nil
}

var ipFamilyMap = map[corev1.IPFamily]uint8{corev1.IPv4Protocol: unix.AF_INET, corev1.IPv6Protocol: unix.AF_INET6}

// CleanStaleEntries deletes the UDP entries whose original destination is
// a Service IP:port (cluster IP, external IP, load-balancer IP) or node
// port of a UDP Service that has serving endpoints, and whose reply source
// is not one of them.
func CleanStaleEntries(ct Interface, ipFamily corev1.IPFamily, svcPortMap proxy.ServicePortMap, endpointsMap proxy.EndpointsMap, log *slog.Logger) {
	entries, err := ct.ListEntries(ipFamilyMap[ipFamily])
	if err != nil && !errors.Is(err, unix.EINTR) {
		log.Error("Failed to list conntrack entries", "err", err)
		return
	}

	serviceIPEndpoints := map[string]map[string]bool{}
	serviceNodePortEndpoints := map[int]map[string]bool{}
	for svcName, svc := range svcPortMap {
		if svc.Protocol() != corev1.ProtocolUDP {
			continue
		}
		endpoints := map[string]bool{}
		for _, ep := range endpointsMap[svcName] {
			if ep.IsServing() {
				endpoints[net.JoinHostPort(ep.IP(), strconv.Itoa(ep.Port()))] = true
			}
		}
		// A Service without endpoints has no rule that could have sent an
		// entry anywhere: nothing is stale.
		if len(endpoints) == 0 {
			continue
		}
		port := strconv.Itoa(svc.Port())
		serviceIPEndpoints[net.JoinHostPort(svc.ClusterIP().String(), port)] = endpoints
		for _, ip := range svc.LoadBalancerVIPs() {
			serviceIPEndpoints[net.JoinHostPort(ip.String(), port)] = endpoints
		}
		for _, ip := range svc.ExternalIPs() {
			serviceIPEndpoints[net.JoinHostPort(ip.String(), port)] = endpoints
		}
		if svc.NodePort() != 0 {
			serviceNodePortEndpoints[svc.NodePort()] = endpoints
		}
	}

	var filters []netlink.CustomConntrackFilter
	for _, e := range entries {
		if e.Forward.Protocol != unix.IPPROTO_UDP {
			continue
		}
		replySrc := net.JoinHostPort(e.Reverse.SrcIP.String(), strconv.Itoa(int(e.Reverse.SrcPort)))
		if eps, ok := serviceIPEndpoints[net.JoinHostPort(e.Forward.DstIP.String(), strconv.Itoa(int(e.Forward.DstPort)))]; ok && !eps[replySrc] {
			filters = append(filters, &conntrackFilter{protocol: unix.IPPROTO_UDP,
				origDstIP: e.Forward.DstIP, origDstPort: e.Forward.DstPort, replySrcIP: e.Reverse.SrcIP, replySrcPort: e.Reverse.SrcPort})
		}
		if eps, ok := serviceNodePortEndpoints[int(e.Forward.DstPort)]; ok && !eps[replySrc] {
			filters = append(filters, &conntrackFilter{protocol: unix.IPPROTO_UDP,
				origDstPort: e.Forward.DstPort, replySrcIP: e.Reverse.SrcIP, replySrcPort: e.Reverse.SrcPort})
		}
	}
	n, err := ct.ClearEntries(ipFamilyMap[ipFamily], filters...)
	if err != nil {
		log.Error("Failed to clear all conntrack entries", "ipFamily", ipFamily, "entriesDeleted", n, "err", err)
	} else if n > 0 {
		log.Info("Deleted stale conntrack entries", "ipFamily", ipFamily, "entriesDeleted", n)
	}
}

// conntrackFilter matches a flow by protocol, original destination (IP
// optional) and reply source. Upstream: conntrack/filter.go.
type conntrackFilter struct {
	protocol     uint8
	origDstIP    net.IP // nil: any
	origDstPort  uint16
	replySrcIP   net.IP
	replySrcPort uint16
}

// MatchConntrackFlow implements netlink.CustomConntrackFilter.
func (f *conntrackFilter) MatchConntrackFlow(flow *netlink.ConntrackFlow) bool {
	if flow.Forward.Protocol != f.protocol {
		return false
	}
	if f.origDstIP != nil && !f.origDstIP.Equal(flow.Forward.DstIP) {
		return false
	}
	if f.origDstPort != 0 && f.origDstPort != flow.Forward.DstPort {
		return false
	}
	if f.replySrcIP != nil && !f.replySrcIP.Equal(flow.Reverse.SrcIP) {
		return false
	}
	return f.replySrcPort == 0 || f.replySrcPort == flow.Reverse.SrcPort
}
