package kubik

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// The balancer's namespace: made when missing, plugged into the bridge,
// and programmed from the records (addresses, nftables, routes).

// balancerLink is the balancer's link on the node network, inside its
// namespace.
const balancerLink = "eth0"

// RouteProtocol marks the routes the provider owns in the balancer's
// table (`ip route` shows "proto 75"; 75 is "K").
const RouteProtocol netlink.RouteProtocol = 75

type balancer struct {
	cfg *Config
	p   *parsed
	log *slog.Logger
}

func (b *balancer) path() string { return filepath.Join(NetNSDir, b.cfg.Balancer.NetNS) }

// program makes the namespace what st says; it creates the namespace and
// its link first if they are missing. The nftables table is rewritten
// only when its text changed since lastRuleset (or the namespace is new);
// program returns the text it applied. healthy says which nodes may get
// new connections.
func (b *balancer) program(st *state, lastRuleset string, healthy func(lb, ip string) bool) (string, error) {
	created, err := b.ensure()
	if err != nil {
		return lastRuleset, err
	}
	nsh, err := netns.GetFromPath(b.path())
	if err != nil {
		return lastRuleset, err
	}
	defer nsh.Close()
	h, err := netlink.NewHandleAt(nsh)
	if err != nil {
		return lastRuleset, err
	}
	defer h.Close()
	link, err := h.LinkByName(balancerLink)
	if err != nil {
		return lastRuleset, err
	}
	var errs []error
	if err := b.syncAddresses(h, link, st); err != nil {
		errs = append(errs, err)
	}
	// Up once it has its addresses.
	for _, name := range []string{"lo", balancerLink} {
		if l, err := h.LinkByName(name); err != nil {
			errs = append(errs, err)
		} else if l.Attrs().Flags&net.FlagUp == 0 {
			if err := h.LinkSetUp(l); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := b.syncRoutes(h, link, st); err != nil {
		errs = append(errs, err)
	}
	ruleset := renderRuleset(st, b.p.address, healthy)
	if created || ruleset != lastRuleset {
		if err := applyRuleset(b.path(), ruleset); err != nil {
			errs = append(errs, err)
		} else {
			lastRuleset = ruleset
			b.log.Info("balancer programmed", "netns", b.path(), "loadBalancers", len(st.LoadBalancers), "routes", len(st.Routes))
		}
	}
	return lastRuleset, errors.Join(errs...)
}

// ensure makes the namespace, its eth0 on the bridge, and its sysctls:
// forwarding on (it forwards what it translates, and routes pod ranges),
// redirects off (it forwards out the interface packets came in by, to
// hosts the sender could reach itself). created says the namespace was
// made now.
func (b *balancer) ensure() (created bool, err error) {
	if _, err := os.Stat(b.path()); errors.Is(err, os.ErrNotExist) {
		if out, err := exec.Command("ip", "netns", "add", b.cfg.Balancer.NetNS).CombinedOutput(); err != nil {
			return false, fmt.Errorf("ip netns add %s: %v: %s", b.cfg.Balancer.NetNS, err, strings.TrimSpace(string(out)))
		}
		created = true
		b.log.Info("balancer namespace created", "netns", b.path())
	}
	nsh, err := netns.GetFromPath(b.path())
	if err != nil {
		return created, err
	}
	defer nsh.Close()
	h, err := netlink.NewHandleAt(nsh)
	if err != nil {
		return created, err
	}
	defer h.Close()
	if err := b.plug(h, nsh); err != nil {
		return created, err
	}
	err = ns.WithNetNSPath(b.path(), func(ns.NetNS) error {
		for file, value := range map[string]string{
			"/proc/sys/net/ipv4/ip_forward":                               "1",
			"/proc/sys/net/ipv4/conf/all/send_redirects":                  "0",
			"/proc/sys/net/ipv4/conf/" + balancerLink + "/send_redirects": "0",
		} {
			if err := os.WriteFile(file, []byte(value), 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	return created, err
}

// plug connects the namespace to the bridge with a veth pair: eth0 inside,
// hostLink on the bridge. A pair already there is (re)attached to the
// bridge, which may have been recreated since.
func (b *balancer) plug(h *netlink.Handle, nsh netns.NsHandle) error {
	bh, closeBH, err := b.bridgeHandle()
	if err != nil {
		return err
	}
	defer closeBH()
	br, err := bh.LinkByName(b.cfg.Network.Bridge)
	if err != nil {
		return fmt.Errorf("network.bridge %s: %w", b.cfg.Network.Bridge, err)
	}
	if _, ok := br.(*netlink.Bridge); !ok {
		return fmt.Errorf("network.bridge %s: a %s, not a bridge", b.cfg.Network.Bridge, br.Type())
	}
	hostName := b.cfg.Balancer.HostLink
	if _, err := h.LinkByName(balancerLink); err != nil {
		if old, err := bh.LinkByName(hostName); err == nil {
			bh.LinkDel(old) // a pair whose other end is gone
		}
		veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: hostName, MasterIndex: br.Attrs().Index},
			PeerName: balancerLink, PeerNamespace: netlink.NsFd(nsh), PeerHardwareAddr: b.mac()}
		if err := bh.LinkAdd(veth); err != nil {
			return fmt.Errorf("veth %s: %w", hostName, err)
		}
	}
	host, err := bh.LinkByName(hostName)
	if err != nil {
		return fmt.Errorf("the balancer's link %s on the bridge side: %w", hostName, err)
	}
	if host.Attrs().MasterIndex != br.Attrs().Index {
		if err := bh.LinkSetMaster(host, br); err != nil {
			return err
		}
	}
	return bh.LinkSetUp(host)
}

// mac is eth0's hardware address, the same each time the namespace is
// made: the host's and the machines' ARP entries for the balancer's
// addresses stay right when it comes back (a new address would leave
// them pointing nowhere until they expire, half a minute and more).
// Locally administered (0x02), from a hash of the namespace's name.
func (b *balancer) mac() net.HardwareAddr {
	sum := sha256.Sum256([]byte(b.cfg.Balancer.NetNS))
	return net.HardwareAddr{0x02, sum[0], sum[1], sum[2], sum[3], sum[4]}
}

// bridgeHandle is a netlink handle in the bridge's namespace.
func (b *balancer) bridgeHandle() (*netlink.Handle, func(), error) {
	if b.cfg.Network.BridgeNetNS == "" {
		h, err := netlink.NewHandle()
		if err != nil {
			return nil, nil, err
		}
		return h, h.Close, nil
	}
	nsh, err := netns.GetFromPath(b.cfg.Network.BridgeNetNS)
	if err != nil {
		return nil, nil, fmt.Errorf("network.bridgeNetNS %s: %w", b.cfg.Network.BridgeNetNS, err)
	}
	h, err := netlink.NewHandleAt(nsh)
	if err != nil {
		nsh.Close()
		return nil, nil, err
	}
	return h, func() { h.Close(); nsh.Close() }, nil
}

// syncAddresses gives eth0 the balancer's address (its prefix the node
// network's) and each balancer's address as a /32, and removes the /32s of
// the pool no balancer has any more. The host and the machines find an
// address by ARP on the bridge, and eth0 answers for all of them.
func (b *balancer) syncAddresses(h *netlink.Handle, link netlink.Link, st *state) error {
	want := map[netip.Prefix]bool{netip.PrefixFrom(b.p.address, b.p.nodeCIDR.Bits()): true}
	for _, lb := range st.LoadBalancers {
		if ip, err := netip.ParseAddr(lb.IP); err == nil {
			want[netip.PrefixFrom(ip, 32)] = true
		}
	}
	have, err := h.AddrList(link, netlink.FAMILY_V4)
	if err != nil {
		return err
	}
	var errs []error
	for _, a := range have {
		p, ok := prefixOf(a.IPNet)
		if !ok {
			continue
		}
		if want[p] {
			delete(want, p)
			continue
		}
		if p.Bits() == 32 && b.p.pool.contains(p.Addr()) {
			if err := h.AddrDel(link, &a); err != nil {
				errs = append(errs, fmt.Errorf("ip addr del %s: %w", p, err))
			} else {
				b.log.Info("balancer address removed", "address", p.Addr().String())
			}
		}
	}
	for p := range want {
		if err := h.AddrReplace(link, &netlink.Addr{IPNet: ipNet(p)}); err != nil {
			errs = append(errs, fmt.Errorf("ip addr add %s: %w", p, err))
		} else if p.Bits() == 32 {
			b.log.Info("balancer address added", "address", p.Addr().String())
		}
	}
	return errors.Join(errs...)
}

// syncRoutes makes the provider's routes in the balancer's table (proto
// RouteProtocol) exactly the records': destination via next hop on eth0.
func (b *balancer) syncRoutes(h *netlink.Handle, link netlink.Link, st *state) error {
	type key struct {
		dst netip.Prefix
		gw  netip.Addr
	}
	want := map[key]bool{}
	for _, r := range st.Routes {
		dst, err1 := netip.ParsePrefix(r.Destination)
		gw, err2 := netip.ParseAddr(r.NextHop)
		if err1 == nil && err2 == nil {
			want[key{dst.Masked(), gw}] = true
		}
	}
	have, err := h.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Table: unix.RT_TABLE_MAIN, Protocol: RouteProtocol},
		netlink.RT_FILTER_TABLE|netlink.RT_FILTER_PROTOCOL)
	if err != nil {
		return fmt.Errorf("listing routes: %w", err)
	}
	var errs []error
	for _, r := range have {
		dst, _ := prefixOf(r.Dst)
		gw, _ := netip.AddrFromSlice(r.Gw)
		k := key{dst, gw.Unmap()}
		if want[k] && r.LinkIndex == link.Attrs().Index {
			delete(want, k)
			continue
		}
		if err := h.RouteDel(&r); err != nil && !errors.Is(err, unix.ESRCH) {
			errs = append(errs, fmt.Errorf("ip route del %s via %s: %w", dst, gw, err))
		} else {
			b.log.Info("route removed", "destination", dst.String(), "via", gw.String())
		}
	}
	for k := range want {
		r := &netlink.Route{LinkIndex: link.Attrs().Index, Dst: ipNet(k.dst), Gw: net.IP(k.gw.AsSlice()),
			Protocol: RouteProtocol, Table: unix.RT_TABLE_MAIN}
		if err := h.RouteReplace(r); err != nil {
			errs = append(errs, fmt.Errorf("ip route replace %s via %s: %w", k.dst, k.gw, err))
		} else {
			b.log.Info("route added", "destination", k.dst.String(), "via", k.gw.String())
		}
	}
	return errors.Join(errs...)
}

// teardown removes the namespace (its veth pair goes with it).
func (b *balancer) teardown() error {
	if _, err := os.Stat(b.path()); err == nil {
		if out, err := exec.Command("ip", "netns", "del", b.cfg.Balancer.NetNS).CombinedOutput(); err != nil {
			return fmt.Errorf("ip netns del %s: %v: %s", b.cfg.Balancer.NetNS, err, strings.TrimSpace(string(out)))
		}
	}
	if bh, closeBH, err := b.bridgeHandle(); err == nil {
		if l, err := bh.LinkByName(b.cfg.Balancer.HostLink); err == nil {
			bh.LinkDel(l)
		}
		closeBH()
	}
	return nil
}

func prefixOf(n *net.IPNet) (netip.Prefix, bool) {
	if n == nil {
		return netip.Prefix{}, false
	}
	a, ok := netip.AddrFromSlice(n.IP)
	if !ok {
		return netip.Prefix{}, false
	}
	bits, _ := n.Mask.Size()
	return netip.PrefixFrom(a.Unmap(), bits), true
}

func ipNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: net.IP(p.Addr().AsSlice()), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}

// sortedKeys are a map's keys in order, for output that does not change
// from one run to the next.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
