package nodeagent

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// This file reconciles the main routing table with a plan's routes. The
// agent owns every route of the main table with a gateway whose
// destination lies inside the cluster CIDR, apart from this node's own
// subnet (the CNI plugin's bridge route, which has no gateway anyway): so a
// route left by a Node deleted while the agent was down, or by the other
// backend, is found and removed too.

// ownedRoute reports whether r is one of the agent's routes.
func ownedRoute(r netlink.Route, cluster, own netip.Prefix) bool {
	dst, ok := prefixOf(r.Dst)
	if !ok || r.Gw == nil || r.Type != unix.RTN_UNICAST || r.Table != unix.RT_TABLE_MAIN {
		return false
	}
	return dst.Bits() >= cluster.Bits() && cluster.Contains(dst.Addr()) && !dst.Overlaps(own)
}

// routeMatches: r is exactly want on the link with index link.
func routeMatches(r netlink.Route, want route, link int) bool {
	dst, _ := prefixOf(r.Dst)
	gw, _ := netip.AddrFromSlice(r.Gw)
	return dst == want.Dst && gw.Unmap() == want.Gw && r.LinkIndex == link && r.Priority == 0 &&
		(r.Flags&int(netlink.FLAG_ONLINK) != 0) == want.OnLink
}

// syncRoutes makes the agent's routes exactly want, all on link: it
// replaces (ip route replace) what is missing or differs, then deletes the
// owned routes no peer wants.
func syncRoutes(link netlink.Link, want []route, cluster, own netip.Prefix, log *slog.Logger) error {
	current, err := retryInterrupted(func() ([]netlink.Route, error) { return netlink.RouteList(nil, netlink.FAMILY_V4) })
	if err != nil {
		return fmt.Errorf("listing routes: %w", err)
	}
	index := link.Attrs().Index
	wanted := map[netip.Prefix]bool{}
	var errs []error
	for _, w := range want {
		wanted[w.Dst] = true
		var old *netlink.Route
		found := false
		for i, r := range current {
			d, _ := prefixOf(r.Dst)
			if d != w.Dst || r.Table != unix.RT_TABLE_MAIN {
				continue
			}
			if routeMatches(r, w, index) {
				found = true
				break
			}
			old = &current[i]
		}
		if found {
			continue
		}
		nr := netlinkRoute(w, index)
		if err := netlink.RouteReplace(nr); err != nil {
			errs = append(errs, fmt.Errorf("ip route replace %s dev %s: %w", w, link.Attrs().Name, err))
			continue
		}
		if old != nil {
			log.Info("route replaced", "route", w.String()+" dev "+link.Attrs().Name, "was", describeRoute(*old))
		} else {
			log.Info("route added", "route", w.String()+" dev "+link.Attrs().Name)
		}
	}
	for _, r := range current {
		if !ownedRoute(r, cluster, own) {
			continue
		}
		dst, _ := prefixOf(r.Dst)
		if wanted[dst] && r.Priority == 0 {
			continue // replaced above, or already right
		}
		if err := netlink.RouteDel(&r); err != nil && !errors.Is(err, unix.ESRCH) {
			errs = append(errs, fmt.Errorf("ip route del %s: %w", describeRoute(r), err))
			continue
		}
		log.Info("route removed", "route", describeRoute(r))
	}
	return errors.Join(errs...)
}

func netlinkRoute(r route, link int) *netlink.Route {
	nr := &netlink.Route{
		LinkIndex: link,
		Scope:     netlink.SCOPE_UNIVERSE,
		Dst:       ipNet(r.Dst),
		Gw:        net.IP(r.Gw.AsSlice()),
	}
	if r.OnLink {
		nr.SetFlag(netlink.FLAG_ONLINK)
	}
	return nr
}

func describeRoute(r netlink.Route) string {
	s := fmt.Sprintf("%v via %v", r.Dst, r.Gw)
	if l, err := netlink.LinkByIndex(r.LinkIndex); err == nil {
		s += " dev " + l.Attrs().Name
	}
	if r.Flags&int(netlink.FLAG_ONLINK) != 0 {
		s += " onlink"
	}
	if r.Priority != 0 {
		s += fmt.Sprintf(" metric %d", r.Priority)
	}
	return s
}

func prefixOf(n *net.IPNet) (netip.Prefix, bool) {
	if n == nil {
		return netip.Prefix{}, false
	}
	addr, ok := netip.AddrFromSlice(n.IP)
	if !ok {
		return netip.Prefix{}, false
	}
	bits, _ := n.Mask.Size()
	return netip.PrefixFrom(addr.Unmap(), bits), true
}

func ipNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: net.IP(p.Addr().AsSlice()), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}

// retryInterrupted repeats a netlink dump the kernel interrupted (the table
// changed meanwhile), which netlink reports as ErrDumpInterrupted.
func retryInterrupted[T any](list func() ([]T, error)) ([]T, error) {
	for range 5 {
		items, err := list()
		if !errors.Is(err, netlink.ErrDumpInterrupted) {
			return items, err
		}
	}
	return list()
}
