package kubikcni

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"

	cnins "github.com/containernetworking/cni/pkg/ns"
	"github.com/containernetworking/cni/pkg/skel"
	"github.com/containernetworking/cni/pkg/types"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
	"github.com/containernetworking/plugins/pkg/ip"
	"github.com/containernetworking/plugins/pkg/ns"

	"kubik/ch06-cni/ipam"
)

// logger writes to stderr, which containerd copies into its own log; stdout
// carries only the result or the error JSON.
var logger = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("component", PluginType)

func init() {
	// Run as the plugin (a binary named kubik-cni, or a link of that name
	// to chapter 6's program), main stays on the main thread: namespace
	// switches (setns) act on one OS thread, as in upstream's plugins.
	if filepath.Base(os.Args[0]) == PluginType {
		runtime.LockOSThread()
	}
}

// Main is the plugin binary's main: skel reads CNI_* and stdin, checks the
// cniVersion against SupportedVersions, calls the command's function and
// prints its error as the spec's error JSON (exit status 1).
func Main() {
	if err := boundStdin(); err != nil {
		_ = err.Print()
		os.Exit(1)
	}
	skel.PluginMainFuncs(skel.CNIFuncs{
		Add:    cmdAdd,
		Del:    cmdDel,
		Check:  cmdCheck,
		GC:     cmdGC,
		Status: cmdStatus,
	}, version.PluginSupports(SupportedVersions...), "CNI plugin kubik-cni (Kubik, chapter 6)")
}

// boundStdin limits the configuration skel reads from stdin (it reads to EOF)
// to MaxConfigSize. It reads stdin only for commands that take a config, so
// running the binary by hand without CNI_COMMAND prints the about text.
func boundStdin() *types.Error {
	if cmd := os.Getenv("CNI_COMMAND"); cmd == "" || cmd == "VERSION" {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, MaxConfigSize+1))
	if err != nil {
		return types.NewError(types.ErrIOFailure, fmt.Sprintf("error reading from stdin: %v", err), "")
	}
	if len(data) > MaxConfigSize {
		return decodeFailure(fmt.Sprintf("network config on stdin is larger than %d bytes", MaxConfigSize))
	}
	r, w, err := os.Pipe()
	if err != nil {
		return types.NewError(types.ErrIOFailure, err.Error(), "")
	}
	go func() {
		_, _ = w.Write(data)
		w.Close()
	}()
	os.Stdin = r
	return nil
}

func attachment(args *skel.CmdArgs) ipam.Attachment {
	return ipam.Attachment{ContainerID: args.ContainerID, IfName: args.IfName}
}

// cmdAdd connects the pod: bridge, sysctls, an address, the veth pair.
func cmdAdd(args *skel.CmdArgs) error {
	conf, err := ParseConfig(args.StdinData)
	if err != nil {
		return err
	}
	subnet, err := readSubnet(conf.SubnetFile)
	if err != nil {
		return err
	}
	mtu := conf.MTU
	if mtu == 0 {
		mtu = subnet.MTU
	}
	if mtu == 0 {
		mtu = DefaultMTU
	}
	gateway := netip.PrefixFrom(ipam.Gateway(subnet.Subnet), subnet.Subnet.Bits())

	if err := refuseOwnNetNS(args.Netns); err != nil {
		return err
	}
	podNS, err := ns.GetNS(args.Netns)
	if err != nil {
		return fmt.Errorf("failed to open netns %q: %w", args.Netns, err)
	}
	defer podNS.Close()

	br, err := ensureBridge(conf.Bridge, mtu, gateway)
	if err != nil {
		return err
	}
	if err := enableForwarding(); err != nil {
		return err
	}

	alloc, err := ipam.New(conf.DataDir, conf.Name, subnet.Subnet)
	if err != nil {
		return err
	}
	podIP, err := alloc.Allocate(attachment(args))
	if err != nil {
		var exhausted *ipam.ExhaustedError
		if errors.As(err, &exhausted) {
			return types.NewError(ErrIPAMExhausted, err.Error(), "")
		}
		return err
	}
	success := false
	defer func() {
		if !success {
			if _, err := alloc.Release(attachment(args)); err != nil {
				logger.Warn("releasing the address of a failed ADD", "containerID", args.ContainerID, "ip", podIP, "err", err)
			}
		}
	}()

	podAddr := netip.PrefixFrom(podIP, subnet.Subnet.Bits())
	pod, err := setupVeth(podNS, br, args.IfName, mtu, conf.Hairpin(), podAddr, gateway.Addr())
	if err != nil {
		return err
	}

	gw := net.IP(gateway.Addr().AsSlice())
	result := &current.Result{
		CNIVersion: current.ImplementedSpecVersion,
		Interfaces: []*current.Interface{
			{Name: br.Name, Mac: br.HardwareAddr.String()},
			pod.host,
			pod.container,
		},
		IPs: []*current.IPConfig{{
			Interface: current.Int(2), // the container interface
			Address:   *prefixToIPNet(podAddr),
			Gateway:   gw,
		}},
		Routes: []*types.Route{{Dst: net.IPNet{IP: net.IPv4zero, Mask: net.CIDRMask(0, 32)}, GW: gw}},
		DNS:    conf.DNS,
	}
	if err := types.PrintResult(result, conf.CNIVersion); err != nil {
		deleteLink(pod.host.Name)
		return err
	}
	success = true
	return nil
}

// readSubnet reads the node agent's subnet file for ADD. A missing file is the
// spec's "try again later" (11): the node agent has not started yet.
func readSubnet(path string) (SubnetConfig, error) {
	s, err := ReadSubnetFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, types.NewError(types.ErrTryAgainLater,
			fmt.Sprintf("subnet file %s does not exist: the node agent has not written the node's subnet yet (is it running?)", path), "")
	}
	if err != nil {
		return s, types.NewError(ErrInvalidSubnetFile, "invalid subnet file", err.Error())
	}
	return s, nil
}

// cmdDel disconnects the pod. It is idempotent: a missing interface, a
// netns that no longer exists or an unknown container are not errors.
func cmdDel(args *skel.CmdArgs) error {
	conf, err := ParseConfig(args.StdinData)
	if err != nil {
		return err
	}
	if err := refuseOwnNetNS(args.Netns); err != nil {
		return err
	}
	if args.Netns != "" {
		err := ns.WithNetNSPath(args.Netns, func(ns.NetNS) error {
			// Deleting the container end deletes the pair.
			err := ip.DelLinkByName(args.IfName)
			if errors.Is(err, ip.ErrLinkNotFound) {
				return nil
			}
			return err
		})
		if err != nil && !netnsGone(err) {
			return err
		}
	}
	alloc, err := ipam.New(conf.DataDir, conf.Name, netip.Prefix{})
	if err != nil {
		return err
	}
	_, err = alloc.Release(attachment(args))
	return err
}

// refuseOwnNetNS fails with the spec's error 8 when CNI_NETNS is the
// plugin's own (the node's) namespace. skel checks this only after ADD or DEL
// ran, when the node's own eth0 may already be gone.
func refuseOwnNetNS(path string) error {
	same, err := cnins.CheckNetNS(path)
	if err != nil {
		return err
	}
	if same {
		return types.NewError(types.ErrInvalidNetNS, "CNI_NETNS is the plugin's own network namespace, not a pod's", path)
	}
	return nil
}

// netnsGone reports whether the netns path no longer exists or no longer is a
// namespace (its bind mount was removed): then its interfaces are gone too.
func netnsGone(err error) bool {
	var notExist ns.NSPathNotExistErr
	var notNS ns.NSPathNotNSErr
	return errors.As(err, &notExist) || errors.As(err, &notNS)
}

// cmdStatus (spec 1.1) tells the runtime whether ADDs can succeed: they
// cannot before the node agent has written the subnet file.
func cmdStatus(args *skel.CmdArgs) error {
	conf, err := ParseConfig(args.StdinData)
	if err != nil {
		return err
	}
	if _, err := ReadSubnetFile(conf.SubnetFile); err != nil {
		details := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			details = fmt.Sprintf("subnet file %s does not exist: the node agent has not written the node's subnet yet (is it running?)", conf.SubnetFile)
		}
		return types.NewError(types.ErrPluginNotAvailable, "plugin not available", details)
	}
	return nil
}

// cmdGC (spec 1.1) releases the addresses of attachments that are not in the
// runtime's cni.dev/valid-attachments. The spec lets GC assume that their
// namespaces are gone, and with them the veths.
func cmdGC(args *skel.CmdArgs) error {
	conf, err := ParseConfig(args.StdinData)
	if err != nil {
		return err
	}
	// Without cni.dev/valid-attachments no attachment is valid, as libcni
	// reads it too: GCNetworkList without GCArgs DELs every cached attachment
	// of the network before it runs the plugins' GC.
	valid := make(map[ipam.Attachment]bool, len(conf.ValidAttachments))
	for _, a := range conf.ValidAttachments {
		valid[ipam.Attachment{ContainerID: a.ContainerID, IfName: a.IfName}] = true
	}
	alloc, err := ipam.New(conf.DataDir, conf.Name, netip.Prefix{})
	if err != nil {
		return err
	}
	released, err := alloc.GC(valid)
	if len(released) > 0 {
		logger.Info("GC released addresses of stale attachments", "network", conf.Name, "released", len(released))
	}
	return err
}
