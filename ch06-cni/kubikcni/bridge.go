package kubikcni

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"

	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/plugins/pkg/ip"
	"github.com/containernetworking/plugins/pkg/netlinksafe"
	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/containernetworking/plugins/pkg/utils/sysctl"
	"github.com/vishvananda/netlink"
)

// This file holds the netlink work of ADD, in the node's namespace (the
// bridge, the host end of the veth) and in the pod's (the container end).
// Compare ensureBridge, ensureAddr and setupVeth of the bridge plugin.

// ensureBridge makes sure the node's bridge exists, is up, has the pods' MTU
// (set explicitly, so the kernel keeps it) and carries the gateway address. On the common path (bridge already set up)
// this is one link lookup and one address dump.
func ensureBridge(name string, mtu int, gateway netip.Prefix) (*netlink.Bridge, error) {
	br, err := bridgeByName(name)
	if errors.As(err, &netlink.LinkNotFoundError{}) {
		br, err = createBridge(name)
	}
	if err != nil {
		return nil, err
	}
	if br.MTU != mtu {
		if err := netlink.LinkSetMTU(br, mtu); err != nil {
			return nil, fmt.Errorf("setting the MTU of %q to %d: %w", name, mtu, err)
		}
	}
	if err := ensureGatewayAddr(br, gateway); err != nil {
		return nil, err
	}
	if br.Flags&net.FlagUp == 0 {
		if err := netlink.LinkSetUp(br); err != nil {
			return nil, fmt.Errorf("setting %q up: %w", name, err)
		}
	}
	return br, nil
}

func bridgeByName(name string) (*netlink.Bridge, error) {
	l, err := netlinksafe.LinkByName(name)
	if err != nil {
		return nil, err
	}
	br, ok := l.(*netlink.Bridge)
	if !ok {
		return nil, fmt.Errorf("%q already exists but is a %s, not a bridge", name, l.Type())
	}
	return br, nil
}

// createBridge adds the bridge. Concurrent ADDs may race to create it; the
// losers find it created. Its MTU is left to ensureBridge: an MTU given at
// creation counts as automatic, and the kernel then follows the smallest MTU
// of the bridge's ports (1500 without ports), whereas one set afterwards is
// kept.
func createBridge(name string) (*netlink.Bridge, error) {
	attrs := netlink.NewLinkAttrs()
	attrs.Name = name
	err := netlink.LinkAdd(&netlink.Bridge{LinkAttrs: attrs})
	if err != nil && !errors.Is(err, syscall.EEXIST) {
		return nil, fmt.Errorf("creating bridge %q: %w", name, err)
	}
	br, lookupErr := bridgeByName(name)
	if lookupErr != nil {
		return nil, lookupErr
	}
	if err == nil {
		// Pin the bridge's MAC address to the random one it got: otherwise the
		// kernel gives the bridge the lowest MAC of its ports, and the
		// gateway's MAC changes (stale ARP in every pod) as pods come and go.
		if err := netlink.LinkSetHardwareAddr(br, br.HardwareAddr); err != nil {
			return nil, fmt.Errorf("pinning the MAC address of %q: %w", name, err)
		}
		logger.Info("created the node's bridge", "bridge", name)
	}
	return br, nil
}

// ensureGatewayAddr puts the gateway address on the bridge. Another IPv4
// address on it is the gateway of an earlier subnet of this node (the subnet
// file changed): it is replaced, since the subnet file is the truth.
func ensureGatewayAddr(br *netlink.Bridge, gateway netip.Prefix) error {
	addrs, err := netlinksafe.AddrList(br, netlink.FAMILY_V4)
	if err != nil {
		return fmt.Errorf("listing the addresses of %q: %w", br.Name, err)
	}
	want := prefixToIPNet(gateway)
	found := false
	for _, a := range addrs {
		if a.IPNet.String() == want.String() {
			found = true
			continue
		}
		if err := netlink.AddrDel(br, &a); err != nil && !errors.Is(err, syscall.EADDRNOTAVAIL) {
			return fmt.Errorf("removing the old address %s from %q: %w", a.IPNet, br.Name, err)
		}
		logger.Warn("replaced the bridge's address: the node's subnet changed", "bridge", br.Name, "old", a.IPNet.String(), "new", gateway.String())
	}
	if found {
		return nil
	}
	if err := netlink.AddrAdd(br, &netlink.Addr{IPNet: want}); err != nil && !errors.Is(err, syscall.EEXIST) {
		return fmt.Errorf("adding %s to %q: %w", gateway, br.Name, err)
	}
	return nil
}

// enableForwarding sets the node namespace's sysctls the pod network needs:
// ip_forward (pods reach other nodes through this one) and
// bridge-nf-call-iptables (bridged pod-to-pod packets traverse iptables, so
// Service DNAT is undone for replies from a pod on the same bridge). Both are
// per network namespace; they are read first and written only when needed.
func enableForwarding() error {
	if err := ip.EnableIP4Forward(); err != nil {
		return fmt.Errorf("enabling net.ipv4.ip_forward: %w", err)
	}
	const brNF = "net/bridge/bridge-nf-call-iptables"
	v, err := sysctl.Sysctl(brNF)
	if err != nil {
		return fmt.Errorf("reading net.bridge.bridge-nf-call-iptables (is br_netfilter loaded?): %w", err)
	}
	if v != "1" {
		if _, err := sysctl.Sysctl(brNF, "1"); err != nil {
			return fmt.Errorf("enabling net.bridge.bridge-nf-call-iptables: %w", err)
		}
	}
	return nil
}

// podInterface describes what setupVeth made.
type podInterface struct {
	host      *current.Interface // the host end, a port of the bridge
	container *current.Interface // CNI_IFNAME in the pod's namespace
}

// setupVeth creates the veth pair from inside the pod's namespace (the host
// end is created directly in the node's namespace), configures the container
// end, and attaches the host end to the bridge. On error nothing it made is
// left behind.
func setupVeth(podNS ns.NetNS, br *netlink.Bridge, ifName string, mtu int, hairpin bool, addr netip.Prefix, gateway netip.Addr) (*podInterface, error) {
	var hostVeth, contVeth net.Interface
	err := podNS.Do(func(hostNS ns.NetNS) error {
		var err error
		hostVeth, contVeth, err = ip.SetupVeth(ifName, mtu, "", hostNS)
		if err != nil {
			return err
		}
		return configureContainerInterface(ifName, addr, gateway)
	})
	if err != nil {
		if hostVeth.Name != "" {
			deleteLink(hostVeth.Name)
		}
		return nil, err
	}

	host, err := netlinksafe.LinkByName(hostVeth.Name)
	if err == nil {
		err = attachToBridge(host, br, hairpin)
	}
	if err != nil {
		deleteLink(hostVeth.Name)
		return nil, err
	}
	return &podInterface{
		host:      &current.Interface{Name: hostVeth.Name, Mac: hostVeth.HardwareAddr.String(), Mtu: mtu},
		container: &current.Interface{Name: contVeth.Name, Mac: contVeth.HardwareAddr.String(), Mtu: mtu, Sandbox: podNS.Path()},
	}, nil
}

// configureContainerInterface runs in the pod's namespace: the address, link
// up, and the default route via the gateway on the bridge.
func configureContainerInterface(ifName string, addr netip.Prefix, gateway netip.Addr) error {
	link, err := netlinksafe.LinkByName(ifName)
	if err != nil {
		return err
	}
	if err := netlink.AddrAdd(link, &netlink.Addr{IPNet: prefixToIPNet(addr)}); err != nil {
		return fmt.Errorf("adding %s to %q: %w", addr, ifName, err)
	}
	// Announce the new address-to-MAC binding when the link comes up: with
	// round-robin allocation an address is rarely reused quickly, but when it
	// is, the bridge's and the neighbours' ARP caches learn at once.
	if _, err := sysctl.Sysctl(fmt.Sprintf("net/ipv4/conf/%s/arp_notify", ifName), "1"); err != nil {
		return err
	}
	if err := netlink.LinkSetUp(link); err != nil {
		return fmt.Errorf("setting %q up: %w", ifName, err)
	}
	if err := ip.AddDefaultRoute(net.IP(gateway.AsSlice()), link); err != nil {
		return fmt.Errorf("adding the default route via %s: %w", gateway, err)
	}
	return nil
}

func attachToBridge(host netlink.Link, br *netlink.Bridge, hairpin bool) error {
	if err := netlink.LinkSetMaster(host, br); err != nil {
		return fmt.Errorf("connecting %q to bridge %q: %w", host.Attrs().Name, br.Name, err)
	}
	if err := netlink.LinkSetHairpin(host, hairpin); err != nil {
		return fmt.Errorf("setting hairpin mode on %q: %w", host.Attrs().Name, err)
	}
	return nil
}

// deleteLink removes a link of the node's namespace (for a veth: both ends),
// ignoring that it is gone already.
func deleteLink(name string) {
	if err := ip.DelLinkByName(name); err != nil && !errors.Is(err, ip.ErrLinkNotFound) {
		logger.Warn("cleaning up after a failed ADD", "link", name, "err", err)
	}
}

func prefixToIPNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: net.IP(p.Addr().AsSlice()), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}
