package nodeagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
)

// This file turns the Nodes into what the kernel should hold: no netlink
// here, so it is tested without root. Compare flannel's kube subnet manager
// (nodeToLease) and the backends' handleSubnetEvents.

// peer is another node as the backend sees it: flannel's subnet.Lease.
type peer struct {
	Node    string
	Subnet  netip.Prefix     // the node's spec.podCIDR
	IP      netip.Addr       // where its pods' traffic is sent
	VtepMAC net.HardwareAddr // VXLAN only: the MAC of its kubik.1
}

// route is one entry of the main routing table: Dst via Gw, on the
// backend's device (the interface for host-gw, kubik.1 for VXLAN).
type route struct {
	Dst    netip.Prefix
	Gw     netip.Addr
	OnLink bool // the gateway is not on a subnet of the device (VXLAN)
}

func (r route) String() string {
	s := r.Dst.String() + " via " + r.Gw.String()
	if r.OnLink {
		s += " onlink"
	}
	return s
}

// neighbor is a permanent ARP entry on kubik.1: the peer's VTEP address
// (its subnet's network address) has the peer's VTEP MAC.
type neighbor struct {
	IP  netip.Addr
	MAC net.HardwareAddr
}

// fdbEntry is a forwarding database entry of kubik.1: frames to MAC are
// sent, in UDP, to Dst.
type fdbEntry struct {
	MAC net.HardwareAddr
	Dst netip.Addr
}

// plan is what the backend programs for all peers.
type plan struct {
	Routes    []route
	Neighbors []neighbor
	FDB       []fdbEntry
}

// planHostGW: host-gw routes every peer's subnet via the peer's node
// address on the interface the nodes share (ip route replace <podCIDR> via
// <InternalIP> dev eth0). It works only when all nodes are on one L2
// segment, as here on the bridge.
func planHostGW(peers []peer) plan {
	var p plan
	for _, pr := range peers {
		p.Routes = append(p.Routes, route{Dst: pr.Subnet, Gw: pr.IP})
	}
	return p
}

// planVXLAN is flannel's VXLAN scheme, three entries per peer, none learned:
//
//	route    <podCIDR> via <podCIDR network address> dev kubik.1 onlink
//	neighbor <podCIDR network address> lladdr <VtepMAC> dev kubik.1 nud permanent
//	fdb      <VtepMAC> dev kubik.1 dst <node IP>
//
// The route makes the peer's VTEP (its kubik.1, which carries the network
// address of its subnet as a /32) the next hop; the neighbour entry gives
// that hop's MAC without ARP; the FDB entry tells the VXLAN device which
// node to send frames for that MAC to.
func planVXLAN(peers []peer) plan {
	var p plan
	for _, pr := range peers {
		vtep := pr.Subnet.Masked().Addr()
		p.Neighbors = append(p.Neighbors, neighbor{IP: vtep, MAC: pr.VtepMAC})
		p.FDB = append(p.FDB, fdbEntry{MAC: pr.VtepMAC, Dst: pr.IP})
		p.Routes = append(p.Routes, route{Dst: pr.Subnet, Gw: vtep, OnLink: true})
	}
	return p
}

// skip is a Node that gets no routes, and why (logged when it changes).
type skip struct {
	Node   string
	Reason string
}

// peersFor finds the peers among nodes, sorted by name: every other Node
// with an IPv4 podCIDR inside the cluster CIDR that overlaps neither this
// node's subnet nor an earlier peer's. host-gw sends to the Node's
// InternalIP, as the kubelet reports it; VXLAN needs the annotations the
// peer's agent published (kubik.io/backend-type vxlan, backend-data with
// the VtepMAC, public-ip), as flannel does.
func peersFor(backend, self string, cluster, own netip.Prefix, nodes []*corev1.Node) ([]peer, []skip) {
	nodes = slices.Clone(nodes)
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	var peers []peer
	var skipped []skip
	for _, n := range nodes {
		if n.Name == self {
			continue
		}
		p, reason := peerOf(backend, cluster, n)
		if reason == "" {
			switch {
			case p.Subnet.Overlaps(own):
				reason = fmt.Sprintf("podCIDR %s overlaps this node's %s", p.Subnet, own)
			default:
				for _, q := range peers {
					if p.Subnet.Overlaps(q.Subnet) {
						reason = fmt.Sprintf("podCIDR %s overlaps node %s's %s", p.Subnet, q.Node, q.Subnet)
						break
					}
					if p.VtepMAC != nil && bytes.Equal(p.VtepMAC, q.VtepMAC) {
						reason = fmt.Sprintf("VtepMAC %s is node %s's too", p.VtepMAC, q.Node)
						break
					}
				}
			}
		}
		if reason != "" {
			skipped = append(skipped, skip{Node: n.Name, Reason: reason})
			continue
		}
		peers = append(peers, p)
	}
	return peers, skipped
}

// peerOf reads one Node; a non-empty reason says why it is no peer.
func peerOf(backend string, cluster netip.Prefix, n *corev1.Node) (peer, string) {
	p := peer{Node: n.Name}
	subnet, err := podCIDR(n)
	if err != nil {
		return p, err.Error()
	}
	if subnet.Bits() < cluster.Bits() || !cluster.Contains(subnet.Addr()) {
		return p, fmt.Sprintf("podCIDR %s is not inside the cluster CIDR %s", subnet, cluster)
	}
	p.Subnet = subnet
	switch backend {
	case BackendHostGW:
		ip, ok := internalIP(n)
		if !ok {
			return p, "no IPv4 InternalIP in status.addresses"
		}
		p.IP = ip
	case BackendVXLAN:
		a := n.Annotations
		if a[AnnotationBackendType] != BackendVXLAN {
			return p, fmt.Sprintf("annotation %s is %q, not %q (no VXLAN agent there yet)", AnnotationBackendType, a[AnnotationBackendType], BackendVXLAN)
		}
		data, err := parseVXLANBackendData(a[AnnotationBackendData])
		if err != nil {
			return p, fmt.Sprintf("annotation %s: %v", AnnotationBackendData, err)
		}
		if data.VNI != vxlanVNI {
			return p, fmt.Sprintf("annotation %s: VNI %d, this node's is %d", AnnotationBackendData, data.VNI, vxlanVNI)
		}
		p.VtepMAC = data.mac
		ip, err := netip.ParseAddr(a[AnnotationPublicIP])
		if err != nil || !ip.Is4() {
			return p, fmt.Sprintf("annotation %s %q is not an IPv4 address", AnnotationPublicIP, a[AnnotationPublicIP])
		}
		p.IP = ip
	}
	if !p.IP.IsGlobalUnicast() {
		return p, fmt.Sprintf("node address %s is not a unicast address", p.IP)
	}
	return p, ""
}

// podCIDR is the Node's IPv4 pod subnet: spec.podCIDR, or the IPv4 entry
// of spec.podCIDRs.
func podCIDR(n *corev1.Node) (netip.Prefix, error) {
	cidrs := n.Spec.PodCIDRs
	if len(cidrs) == 0 && n.Spec.PodCIDR != "" {
		cidrs = []string{n.Spec.PodCIDR}
	}
	if len(cidrs) == 0 {
		return netip.Prefix{}, fmt.Errorf("no spec.podCIDR yet")
	}
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("spec.podCIDR %q: %v", c, err)
		}
		if p.Addr().Is4() {
			if p.Masked() != p {
				return netip.Prefix{}, fmt.Errorf("spec.podCIDR %s has host bits set", p)
			}
			return p, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("no IPv4 entry in spec.podCIDRs %v", cidrs)
}

// internalIP is the Node's first IPv4 InternalIP.
func internalIP(n *corev1.Node) (netip.Addr, bool) {
	for _, a := range n.Status.Addresses {
		if a.Type != corev1.NodeInternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil && ip.Is4() {
			return ip, true
		}
	}
	return netip.Addr{}, false
}

// vxlanBackendData is the value of kubik.io/backend-data on a VXLAN node,
// flannel's vxlanLeaseAttrs: {"VNI":1,"VtepMAC":"aa:bb:cc:dd:ee:ff"}.
type vxlanBackendData struct {
	VNI     int
	VtepMAC string
	mac     net.HardwareAddr
}

// maxBackendData bounds the annotation parsed: the real one is 40 bytes.
const maxBackendData = 1024

func parseVXLANBackendData(s string) (vxlanBackendData, error) {
	var d vxlanBackendData
	if len(s) > maxBackendData {
		return d, fmt.Errorf("longer than %d bytes", maxBackendData)
	}
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return d, err
	}
	mac, err := net.ParseMAC(d.VtepMAC)
	if err != nil || len(mac) != 6 {
		return d, fmt.Errorf("VtepMAC %q is not an Ethernet address", d.VtepMAC)
	}
	if mac[0]&1 != 0 {
		return d, fmt.Errorf("VtepMAC %s is a multicast address", mac)
	}
	d.mac = mac
	return d, nil
}

func (d vxlanBackendData) marshal() string {
	b, _ := json.Marshal(struct {
		VNI     int
		VtepMAC string
	}{d.VNI, d.VtepMAC})
	return string(b)
}
