// Package fabric makes the machines of a cluster on one host: a bridge in
// the host's own network namespace stands for the network the machines are
// plugged into, and each node is a network namespace — a "machine" — with
// an eth0 on that bridge and an address of the node network
// (10.240.0.0/24: the bridge, which is also where the machines reach the
// control plane, takes .1; node i takes .10+i). Nothing in a machine has a
// default route: what a node or a pod sends can only go to the node
// network, other nodes' pods, or the host's end of the bridge.
//
// The host's namespace does have a default route, to the real network. So
// that nothing it sends to a cluster address (a pod, a Service) ever
// follows it, Up first adds an "unreachable" route for each cluster range
// (the more specific route to the node network still wins), as one would
// blackhole private ranges at a site's border.
//
//	host:  kbr<id> 10.240.0.1/24 ─┬─ kve<id>1 ⇄ [netns kubik-<id>-node-1] eth0 10.240.0.11
//	                              └─ kve<id>2 ⇄ [netns kubik-<id>-node-2] eth0 10.240.0.12
//	       unreachable 10.244.0.0/16, 10.96.0.0/12, 10.240.0.0/16
//
// Every name carries the fabric's id (from the cluster's data dir), so two
// clusters of different data dirs never touch each other's links, and
// Cleanup can remove what a crashed run left.
package fabric

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// Config describes a fabric.
type Config struct {
	// ID is the fabric's short name, in every name it makes (at most 6
	// characters: link names are limited to 15).
	ID string
	// NodeCIDR is the node network; the bridge takes its first address.
	NodeCIDR netip.Prefix
	// Guards are the cluster ranges the host must never route to its
	// default route (pod, Service, node CIDRs).
	Guards []netip.Prefix
	Logger *slog.Logger
}

// Fabric is a bridge and the guard routes, and the machines on it.
type Fabric struct {
	cfg    Config
	log    *slog.Logger
	bridge netlink.Link
}

// Machine is one node's network namespace.
type Machine struct {
	Name  string     // the node's name
	NetNS string     // /run/netns/<namespace>
	IP    netip.Addr // eth0's address
	host  string     // the host end of its veth
}

// BridgeName is the fabric's bridge in the host namespace.
func (c Config) BridgeName() string { return "kbr" + c.ID }

// Gateway is the bridge's address: the host as the machines see it.
func (c Config) Gateway() netip.Addr { return c.NodeCIDR.Masked().Addr().Next() }

// NamespaceName is the network namespace of node name.
func (c Config) NamespaceName(name string) string { return "kubik-" + c.ID + "-" + name }

func (c Config) hostLink(i int) string { return fmt.Sprintf("kve%s%d", c.ID, i) }

// Up creates the guard routes, then the bridge with the gateway address.
func Up(cfg Config) (_ *Fabric, err error) {
	if len(cfg.ID) == 0 || len(cfg.ID) > 6 {
		return nil, fmt.Errorf("fabric: ID %q must have 1 to 6 characters", cfg.ID)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f := &Fabric{cfg: cfg, log: log.With("component", "fabric")}
	defer func() {
		if err != nil {
			f.Down()
		}
	}()
	// 1. Guards first: before anything can send to a cluster address.
	for _, g := range cfg.Guards {
		r := &netlink.Route{Dst: ipNet(g), Type: unix.RTN_UNREACHABLE}
		if err := netlink.RouteAdd(r); err != nil && !errors.Is(err, unix.EEXIST) {
			return nil, fmt.Errorf("guard route unreachable %s: %w", g, err)
		}
	}
	// 2. The bridge: the machines' network and the host's address on it.
	name := cfg.BridgeName()
	if l, err := netlink.LinkByName(name); err == nil {
		netlink.LinkDel(l) // a previous run's
	}
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: name}}
	if err := netlink.LinkAdd(br); err != nil {
		return nil, fmt.Errorf("bridge %s: %w", name, err)
	}
	if f.bridge, err = netlink.LinkByName(name); err != nil {
		return nil, err
	}
	gw := netip.PrefixFrom(cfg.Gateway(), cfg.NodeCIDR.Bits())
	if err := netlink.AddrAdd(f.bridge, &netlink.Addr{IPNet: ipNet(gw)}); err != nil {
		return nil, fmt.Errorf("address %s on %s: %w", gw, name, err)
	}
	if err := netlink.LinkSetUp(f.bridge); err != nil {
		return nil, err
	}
	f.log.Info("node network up", "bridge", name, "address", gw.String(), "guards", fmt.Sprint(cfg.Guards))
	return f, nil
}

// AddMachine makes node i (1, 2, ...): its namespace, a veth pair with eth0
// inside at the node network's .10+i, and lo up.
func (f *Fabric) AddMachine(name string, i int) (_ *Machine, err error) {
	ip := f.cfg.NodeCIDR.Masked().Addr()
	for range 10 + i {
		ip = ip.Next()
	}
	if !f.cfg.NodeCIDR.Contains(ip) {
		return nil, fmt.Errorf("fabric: node %d does not fit in %s", i, f.cfg.NodeCIDR)
	}
	m := &Machine{Name: name, NetNS: "/run/netns/" + f.cfg.NamespaceName(name), IP: ip, host: f.cfg.hostLink(i)}
	defer func() {
		if err != nil {
			f.RemoveMachine(m)
		}
	}()
	f.RemoveMachine(m) // a previous run's
	if out, err := exec.Command("ip", "netns", "add", f.cfg.NamespaceName(name)).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("ip netns add: %v: %s", err, out)
	}
	ns, err := netns.GetFromPath(m.NetNS)
	if err != nil {
		return nil, err
	}
	defer ns.Close()
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: m.host, MasterIndex: f.bridge.Attrs().Index},
		PeerName: "eth0", PeerNamespace: netlink.NsFd(ns)}
	if err := netlink.LinkAdd(veth); err != nil {
		return nil, fmt.Errorf("veth %s: %w", m.host, err)
	}
	host, err := netlink.LinkByName(m.host)
	if err != nil {
		return nil, err
	}
	if err := netlink.LinkSetUp(host); err != nil {
		return nil, err
	}
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	for _, l := range []string{"lo", "eth0"} {
		link, err := h.LinkByName(l)
		if err != nil {
			return nil, err
		}
		if l == "eth0" {
			if err := h.AddrAdd(link, &netlink.Addr{IPNet: ipNet(netip.PrefixFrom(ip, f.cfg.NodeCIDR.Bits()))}); err != nil {
				return nil, err
			}
		}
		if err := h.LinkSetUp(link); err != nil {
			return nil, err
		}
	}
	f.log.Info("machine up", "node", name, "netns", m.NetNS, "eth0", ip.String())
	return m, nil
}

// RemoveMachine removes a node's namespace (its eth0 and the veth go with
// it) and the host end of the veth if it is still there.
func (f *Fabric) RemoveMachine(m *Machine) {
	if _, err := os.Stat(m.NetNS); err == nil {
		exec.Command("ip", "netns", "del", filepath.Base(m.NetNS)).Run()
	}
	if l, err := netlink.LinkByName(m.host); err == nil {
		netlink.LinkDel(l)
	}
}

// Down removes the bridge and the guard routes.
func (f *Fabric) Down() {
	if l, err := netlink.LinkByName(f.cfg.BridgeName()); err == nil {
		netlink.LinkDel(l)
	}
	removeGuards(f.cfg.Guards)
	f.log.Info("node network down", "bridge", f.cfg.BridgeName())
}

// removeGuards removes the guard routes unless another fabric (another
// cluster on this host, a bridge named kbr*) still needs them.
func removeGuards(guards []netip.Prefix) {
	links, _ := netlink.LinkList()
	for _, l := range links {
		if _, ok := l.(*netlink.Bridge); ok && strings.HasPrefix(l.Attrs().Name, "kbr") {
			return
		}
	}
	for _, g := range guards {
		netlink.RouteDel(&netlink.Route{Dst: ipNet(g), Type: unix.RTN_UNREACHABLE})
	}
}

// Cleanup removes what a fabric of cfg left behind, even after a crash:
// its machines' namespaces, their veths, the bridge, the guard routes.
func Cleanup(cfg Config) {
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "kubik-"+cfg.ID+"-") {
			exec.Command("ip", "netns", "del", e.Name()).Run()
		}
	}
	links, _ := netlink.LinkList()
	for _, l := range links {
		if strings.HasPrefix(l.Attrs().Name, "kve"+cfg.ID) {
			netlink.LinkDel(l)
		}
	}
	(&Fabric{cfg: cfg, log: slog.New(slog.DiscardHandler)}).Down()
}

// Leftovers lists what Cleanup would remove: empty after a clean stop.
func Leftovers(cfg Config) []string {
	var out []string
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "kubik-"+cfg.ID+"-") {
			out = append(out, "netns "+e.Name())
		}
	}
	links, _ := netlink.LinkList()
	for _, l := range links {
		if n := l.Attrs().Name; strings.HasPrefix(n, "kve"+cfg.ID) || n == cfg.BridgeName() {
			out = append(out, "link "+n)
		}
	}
	return out
}

func ipNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}
