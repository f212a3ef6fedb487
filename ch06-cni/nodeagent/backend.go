package nodeagent

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// backend is what differs between host-gw and VXLAN (flannel's
// backend.Backend and backend.Network).
type backend interface {
	// Type is the backend's name, the value of kubik.io/backend-type.
	Type() string
	// MTU is the pods' MTU: the interface's, less the encapsulation.
	MTU() int
	// SetUp creates or repairs the backend's devices for this node's
	// subnet and returns the value of kubik.io/backend-data.
	SetUp(subnet netip.Prefix) (backendData string, err error)
	// Sync makes the kernel hold exactly the entries for peers.
	Sync(peers []peer, cluster, own netip.Prefix) error
}

// hostGW is flannel's host-gw backend: nothing to set up, a route per peer
// via its node address.
type hostGW struct {
	iface netlink.Link
	log   *slog.Logger
}

func (b *hostGW) Type() string { return BackendHostGW }
func (b *hostGW) MTU() int     { return b.iface.Attrs().MTU }

func (b *hostGW) SetUp(netip.Prefix) (string, error) { return "null", nil }

func (b *hostGW) Sync(peers []peer, cluster, own netip.Prefix) error {
	return syncRoutes(b.iface, planHostGW(peers).Routes, cluster, own, b.log)
}

// VXLAN parameters, flannel's defaults: VNI 1, the Linux kernel's VXLAN
// port 8472 (not IANA's 4789), 50 bytes of encapsulation (outer Ethernet
// 14, IPv4 20, UDP 8, VXLAN 8).
const (
	vxlanVNI      = 1
	vxlanPort     = 8472
	vxlanOverhead = 50
)

// vxlanDevice is the device's name, flannel.<VNI> in flannel.
var vxlanDevice = fmt.Sprintf("kubik.%d", vxlanVNI)

// vxlan is flannel's VXLAN backend with static entries (no L2/L3 miss
// handling, no learning): see planVXLAN.
type vxlan struct {
	iface    netlink.Link
	publicIP netip.Addr
	log      *slog.Logger
	dev      netlink.Link
}

func (b *vxlan) Type() string { return BackendVXLAN }
func (b *vxlan) MTU() int     { return b.iface.Attrs().MTU - vxlanOverhead }

// SetUp makes sure kubik.1 exists as configured, keeping an existing
// compatible device (and so its MAC, which the peers know), as flannel's
// ensureLink does; it carries this node's subnet's network address as a
// /32, the source address of the node's own traffic to remote pods.
func (b *vxlan) SetUp(subnet netip.Prefix) (string, error) {
	want := &netlink.Vxlan{
		LinkAttrs:    netlink.LinkAttrs{Name: vxlanDevice, MTU: b.MTU()},
		VxlanId:      vxlanVNI,
		VtepDevIndex: b.iface.Attrs().Index,
		SrcAddr:      net.IP(b.publicIP.AsSlice()),
		Port:         vxlanPort,
		Learning:     false,
	}
	link, err := netlink.LinkByName(vxlanDevice)
	var notFound netlink.LinkNotFoundError
	switch {
	case errors.As(err, &notFound):
		link = nil
	case err != nil:
		return "", err
	}
	if link != nil {
		if why := vxlanIncompatible(want, link); why != "" {
			if err := netlink.LinkDel(link); err != nil {
				return "", fmt.Errorf("deleting %s: %w", vxlanDevice, err)
			}
			b.log.Info("VXLAN device deleted", "device", vxlanDevice, "reason", why)
			link = nil
		}
	}
	if link == nil {
		if err := netlink.LinkAdd(want); err != nil {
			return "", fmt.Errorf("creating %s: %w", vxlanDevice, err)
		}
		if link, err = netlink.LinkByName(vxlanDevice); err != nil {
			return "", err
		}
		b.log.Info("VXLAN device created", "device", vxlanDevice, "vni", vxlanVNI, "port", vxlanPort,
			"local", b.publicIP, "dev", b.iface.Attrs().Name, "mtu", want.MTU, "mac", link.Attrs().HardwareAddr.String())
	}
	if link.Attrs().MTU != want.MTU {
		if err := netlink.LinkSetMTU(link, want.MTU); err != nil {
			return "", err
		}
		b.log.Info("VXLAN device MTU set", "device", vxlanDevice, "mtu", want.MTU)
	}
	if err := ensureOnlyAddress(link, netip.PrefixFrom(subnet.Masked().Addr(), 32), b.log); err != nil {
		return "", err
	}
	if link.Attrs().Flags&net.FlagUp == 0 {
		if err := netlink.LinkSetUp(link); err != nil {
			return "", err
		}
		b.log.Info("VXLAN device up", "device", vxlanDevice)
	}
	b.dev = link
	return vxlanBackendData{VNI: vxlanVNI, VtepMAC: link.Attrs().HardwareAddr.String()}.marshal(), nil
}

// vxlanIncompatible says why an existing link cannot serve as kubik.1.
func vxlanIncompatible(want *netlink.Vxlan, link netlink.Link) string {
	have, ok := link.(*netlink.Vxlan)
	switch {
	case !ok:
		return fmt.Sprintf("link type %s, not vxlan", link.Type())
	case have.VxlanId != want.VxlanId:
		return fmt.Sprintf("VNI %d, not %d", have.VxlanId, want.VxlanId)
	case have.VtepDevIndex != want.VtepDevIndex:
		return fmt.Sprintf("device index %d, not %d", have.VtepDevIndex, want.VtepDevIndex)
	case !have.SrcAddr.Equal(want.SrcAddr):
		return fmt.Sprintf("local address %v, not %v", have.SrcAddr, want.SrcAddr)
	case have.Port != want.Port:
		return fmt.Sprintf("port %d, not %d", have.Port, want.Port)
	case have.Learning:
		return "learning is on"
	case len(have.Group) > 0 && !have.Group.IsUnspecified():
		return fmt.Sprintf("group %v set", have.Group)
	}
	return ""
}

// ensureOnlyAddress leaves exactly addr as link's IPv4 address.
func ensureOnlyAddress(link netlink.Link, addr netip.Prefix, log *slog.Logger) error {
	addrs, err := retryInterrupted(func() ([]netlink.Addr, error) { return netlink.AddrList(link, netlink.FAMILY_V4) })
	if err != nil {
		return err
	}
	found := false
	for _, a := range addrs {
		p, _ := prefixOf(a.IPNet)
		if p == addr {
			found = true
			continue
		}
		if err := netlink.AddrDel(link, &a); err != nil {
			return fmt.Errorf("removing %s from %s: %w", p, link.Attrs().Name, err)
		}
		log.Info("address removed", "device", link.Attrs().Name, "address", p)
	}
	if !found {
		if err := netlink.AddrAdd(link, &netlink.Addr{IPNet: ipNet(addr)}); err != nil {
			return fmt.Errorf("adding %s to %s: %w", addr, link.Attrs().Name, err)
		}
		log.Info("address added", "device", link.Attrs().Name, "address", addr)
	}
	return nil
}

// Sync programs, per peer, the neighbour and FDB entries and then the
// route (the order flannel uses, so the kernel never has to ARP for the
// gateway), and removes the entries of peers that are gone.
func (b *vxlan) Sync(peers []peer, cluster, own netip.Prefix) error {
	if b.dev == nil {
		return errors.New("the VXLAN device is not set up")
	}
	p := planVXLAN(peers)
	return errors.Join(
		syncNeighbors(b.dev, p.Neighbors, b.log),
		syncFDB(b.dev, p.FDB, b.log),
		syncRoutes(b.dev, p.Routes, cluster, own, b.log),
	)
}

// syncNeighbors makes the permanent IPv4 neighbour entries of dev exactly
// want (ip neigh replace <ip> lladdr <mac> dev kubik.1 nud permanent).
func syncNeighbors(dev netlink.Link, want []neighbor, log *slog.Logger) error {
	index := dev.Attrs().Index
	current, err := retryInterrupted(func() ([]netlink.Neigh, error) { return netlink.NeighList(index, netlink.FAMILY_V4) })
	if err != nil {
		return fmt.Errorf("listing neighbours: %w", err)
	}
	var errs []error
	wanted := map[netip.Addr]bool{}
	for _, w := range want {
		wanted[w.IP] = true
		if slices.ContainsFunc(current, func(n netlink.Neigh) bool {
			ip, _ := netip.AddrFromSlice(n.IP)
			return ip.Unmap() == w.IP && n.HardwareAddr.String() == w.MAC.String() && n.State&netlink.NUD_PERMANENT != 0
		}) {
			continue
		}
		err := netlink.NeighSet(&netlink.Neigh{LinkIndex: index, Family: netlink.FAMILY_V4, State: netlink.NUD_PERMANENT,
			Type: unix.RTN_UNICAST, IP: net.IP(w.IP.AsSlice()), HardwareAddr: w.MAC})
		if err != nil {
			errs = append(errs, fmt.Errorf("ip neigh replace %s lladdr %s: %w", w.IP, w.MAC, err))
			continue
		}
		log.Info("neighbour set", "ip", w.IP, "lladdr", w.MAC.String(), "dev", dev.Attrs().Name)
	}
	for _, n := range current {
		ip, _ := netip.AddrFromSlice(n.IP)
		if n.State&netlink.NUD_PERMANENT == 0 || wanted[ip.Unmap()] {
			continue
		}
		if err := netlink.NeighDel(&n); err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("ip neigh del %s: %w", ip, err))
			continue
		}
		log.Info("neighbour removed", "ip", ip.Unmap(), "lladdr", n.HardwareAddr.String(), "dev", dev.Attrs().Name)
	}
	return errors.Join(errs...)
}

// syncFDB makes the forwarding database of dev exactly want (bridge fdb
// replace <mac> dev kubik.1 dst <node IP>). Stale entries go first, so a
// peer whose address changed gets its new destination, not a second one.
func syncFDB(dev netlink.Link, want []fdbEntry, log *slog.Logger) error {
	index := dev.Attrs().Index
	current, err := retryInterrupted(func() ([]netlink.Neigh, error) { return netlink.NeighList(index, unix.AF_BRIDGE) })
	if err != nil {
		return fmt.Errorf("listing FDB entries: %w", err)
	}
	matches := func(n netlink.Neigh, w fdbEntry) bool {
		ip, _ := netip.AddrFromSlice(n.IP)
		return n.HardwareAddr.String() == w.MAC.String() && ip.Unmap() == w.Dst
	}
	var errs []error
	for _, n := range current {
		if n.IP == nil || slices.ContainsFunc(want, func(w fdbEntry) bool { return matches(n, w) }) {
			continue
		}
		n.Flags |= netlink.NTF_SELF
		if err := netlink.NeighDel(&n); err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("bridge fdb del %s dst %v: %w", n.HardwareAddr, n.IP, err))
			continue
		}
		log.Info("FDB entry removed", "mac", n.HardwareAddr.String(), "dst", n.IP.String(), "dev", dev.Attrs().Name)
	}
	for _, w := range want {
		if slices.ContainsFunc(current, func(n netlink.Neigh) bool { return matches(n, w) }) {
			continue
		}
		err := netlink.NeighSet(&netlink.Neigh{LinkIndex: index, Family: unix.AF_BRIDGE, Flags: netlink.NTF_SELF,
			State: netlink.NUD_PERMANENT, IP: net.IP(w.Dst.AsSlice()), HardwareAddr: w.MAC})
		if err != nil {
			errs = append(errs, fmt.Errorf("bridge fdb replace %s dst %s: %w", w.MAC, w.Dst, err))
			continue
		}
		log.Info("FDB entry set", "mac", w.MAC.String(), "dst", w.Dst, "dev", dev.Attrs().Name)
	}
	return errors.Join(errs...)
}
