package kubikcni

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/containernetworking/cni/pkg/skel"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
	"github.com/containernetworking/plugins/pkg/ip"
	"github.com/containernetworking/plugins/pkg/netlinksafe"
	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/vishvananda/netlink"

	"kubik/ch06-cni/ipam"
)

// cmdCheck verifies that the attachment ADD made (the prevResult the runtime
// cached) is still in place: the address is allocated, the container
// interface is a veth with the addresses and routes, and its peer is a port
// of the bridge. Compare the bridge plugin's cmdCheck.
func cmdCheck(args *skel.CmdArgs) error {
	conf, err := ParseConfig(args.StdinData)
	if err != nil {
		return err
	}
	if conf.RawPrevResult == nil {
		return invalidConfig("CHECK needs the prevResult of the ADD")
	}
	if err := version.ParsePrevResult(&conf.PluginConf); err != nil {
		return err
	}
	result, err := current.NewResultFromResult(conf.PrevResult)
	if err != nil {
		return err
	}

	contIndex := slices.IndexFunc(result.Interfaces, func(i *current.Interface) bool {
		return i.Name == args.IfName && i.Sandbox == args.Netns
	})
	if contIndex < 0 {
		return fmt.Errorf("prevResult has no interface %q in sandbox %q", args.IfName, args.Netns)
	}
	var ips []*current.IPConfig
	for _, c := range result.IPs {
		if c.Interface != nil && *c.Interface == contIndex {
			ips = append(ips, c)
		}
	}

	if err := checkAllocated(conf, args, ips); err != nil {
		return err
	}
	br, err := bridgeByName(conf.Bridge)
	if err != nil {
		return fmt.Errorf("the node's bridge: %w", err)
	}

	var peerIndex int
	err = ns.WithNetNSPath(args.Netns, func(ns.NetNS) error {
		var err error
		if _, peerIndex, err = ip.GetVethPeerIfindex(args.IfName); err != nil {
			return err
		}
		if err := ip.ValidateExpectedInterfaceIPs(args.IfName, ips); err != nil {
			return err
		}
		return ip.ValidateExpectedRoute(result.Routes)
	})
	if err != nil {
		return err
	}

	host, err := netlink.LinkByIndex(peerIndex)
	if err != nil {
		return fmt.Errorf("the host end of %q (index %d): %w", args.IfName, peerIndex, err)
	}
	if host.Attrs().MasterIndex != br.Index {
		return fmt.Errorf("the host end %q of %q is not a port of bridge %q", host.Attrs().Name, args.IfName, br.Name)
	}
	protinfo, err := netlinksafe.LinkGetProtinfo(host)
	if err != nil {
		return fmt.Errorf("reading the bridge port flags of %q: %w", host.Attrs().Name, err)
	}
	if protinfo.Hairpin != conf.Hairpin() {
		return fmt.Errorf("bridge port %q has hairpin mode %v, the config says %v", host.Attrs().Name, protinfo.Hairpin, conf.Hairpin())
	}
	return nil
}

func checkAllocated(conf *NetConf, args *skel.CmdArgs, ips []*current.IPConfig) error {
	alloc, err := ipam.New(conf.DataDir, conf.Name, netip.Prefix{})
	if err != nil {
		return err
	}
	held, err := alloc.Lookup(attachment(args))
	if err != nil {
		return err
	}
	for _, c := range ips {
		addr, ok := netip.AddrFromSlice(c.Address.IP)
		if !ok || !slices.Contains(held, addr.Unmap()) {
			return fmt.Errorf("IPAM holds no allocation of %s for container %s interface %s", c.Address.IP, args.ContainerID, args.IfName)
		}
	}
	return nil
}
