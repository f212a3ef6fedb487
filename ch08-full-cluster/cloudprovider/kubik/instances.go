package kubik

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch08-full-cluster/cloudprovider"
)

// The machines: cloudprovider.InstancesV2. A node's machine is the
// network namespace /run/netns/<prefix><name>:
//
//   - it exists while that namespace does (a machine whose namespace was
//     removed is gone, and so will be its Node);
//   - it is shut down when the namespace is there but no process runs in
//     it (its kubelet and everything else stopped: powered off, disk kept);
//   - its InternalIP is the IPv4 address of its eth0 (its Hostname is
//     whatever the kubelet reports: the machines share the host's).

// InstanceType is the label node.kubernetes.io/instance-type of the
// machines: all of one kind.
const InstanceType = "netns"

// ProviderIDPrefix starts every provider ID: kubik://<node>.
const ProviderIDPrefix = ProviderName + "://"

// machineName is the machine a Node runs on: the provider ID's, else the
// Node's name.
func machineName(node *corev1.Node) (string, error) {
	name := node.Name
	if id := node.Spec.ProviderID; id != "" {
		var ok bool
		if name, ok = strings.CutPrefix(id, ProviderIDPrefix); !ok || name == "" {
			return "", fmt.Errorf("node %s: provider ID %q is not a kubik machine (%s<name>)", node.Name, id, ProviderIDPrefix)
		}
	}
	if strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return "", fmt.Errorf("node %s: %q cannot name a machine", node.Name, name)
	}
	return name, nil
}

func (c *Cloud) machinePath(name string) string {
	return filepath.Join(NetNSDir, c.cfg.Instances.NetNSPrefix+name)
}

func (c *Cloud) InstanceExists(_ context.Context, node *corev1.Node) (bool, error) {
	name, err := machineName(node)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(c.machinePath(name))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (c *Cloud) InstanceShutdown(ctx context.Context, node *corev1.Node) (bool, error) {
	name, err := machineName(node)
	if err != nil {
		return false, err
	}
	var ns syscall.Stat_t
	if err := syscall.Stat(c.machinePath(name), &ns); err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return false, nil // gone, not shut down
		}
		return false, err
	}
	running, err := processInNetNS(ns.Dev, ns.Ino)
	return !running, err
}

// processInNetNS reports whether some process's network namespace is the
// one with device dev and inode ino.
func processInNetNS(dev uint64, ino uint64) (bool, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join("/proc", e.Name(), "ns", "net"), &st) == nil && st.Dev == dev && st.Ino == ino {
			return true, nil
		}
	}
	return false, nil
}

func (c *Cloud) InstanceMetadata(_ context.Context, node *corev1.Node) (*cloudprovider.InstanceMetadata, error) {
	name, err := machineName(node)
	if err != nil {
		return nil, err
	}
	ip, err := c.machineIP(name)
	if err != nil {
		return nil, err
	}
	// No Hostname: the cloud node controller keeps the kubelet's.
	return &cloudprovider.InstanceMetadata{ProviderID: ProviderIDPrefix + name, InstanceType: InstanceType,
		NodeAddresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip.String()}}}, nil
}

// machineIP is the IPv4 address of the machine's link on the node network.
func (c *Cloud) machineIP(name string) (netip.Addr, error) {
	nsh, err := netns.GetFromPath(c.machinePath(name))
	if errors.Is(err, os.ErrNotExist) {
		return netip.Addr{}, cloudprovider.InstanceNotFound
	}
	if err != nil {
		return netip.Addr{}, err
	}
	defer nsh.Close()
	h, err := netlink.NewHandleAt(nsh)
	if err != nil {
		return netip.Addr{}, err
	}
	defer h.Close()
	link, err := h.LinkByName(c.cfg.Instances.Interface)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("machine %s: %s: %w", name, c.cfg.Instances.Interface, err)
	}
	addrs, err := h.AddrList(link, netlink.FAMILY_V4)
	if err != nil {
		return netip.Addr{}, err
	}
	for _, a := range addrs {
		if p, ok := prefixOf(a.IPNet); ok && c.p.nodeCIDR.Contains(p.Addr()) {
			return p.Addr(), nil
		}
	}
	return netip.Addr{}, fmt.Errorf("machine %s: no address of %s on %s", name, c.p.nodeCIDR, c.cfg.Instances.Interface)
}
