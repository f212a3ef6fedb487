package kubikcni_test

// These tests drive the real binary the way containerd's CRI plugin does:
// through libcni, from a thread inside the node's network namespace, against
// pod namespaces created fresh for each pod.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/types"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/containernetworking/plugins/pkg/utils/sysctl"
	"github.com/vishvananda/netlink"

	"kubik/ch06-cni/ipam"
)

// loopbackList is the network containerd 1.6 adds to every pod for lo.
var loopbackList = []byte(`{"cniVersion":"1.0.0","name":"cni-loopback","plugins":[{"type":"loopback"}]}`)

func (n *testNode) addLoopback(containerID string, pod ns.NetNS) {
	n.t.Helper()
	if _, err := os.Stat(filepath.Join(binDir, "loopback")); err != nil {
		n.t.Log("no loopback plugin in /usr/lib/cni; pod lo stays down")
		return
	}
	list, err := libcni.ConfListFromBytes(loopbackList)
	if err != nil {
		n.t.Fatal(err)
	}
	r := &libcni.RuntimeConf{ContainerID: containerID, NetNS: pod.Path(), IfName: "lo"}
	ctx, cancel := n.ctx()
	defer cancel()
	if err := n.do(func() error { _, err := n.cni.AddNetworkList(ctx, list, r); return err }); err != nil {
		n.t.Fatalf("loopback ADD: %v", err)
	}
	n.t.Cleanup(func() { n.do(func() error { return n.cni.DelNetworkList(context.Background(), list, r) }) })
}

func TestAddCheckDel(t *testing.T) {
	n := newNode(t, "1.1.0", "10.244.1.0/24", 1400, `,"dns":{"nameservers":["10.96.0.10"],"search":["default.svc.cluster.local"]}`)
	pod := n.newPod()
	id := randomID("ctr")
	n.addLoopback(id, pod)
	res := n.mustAdd(id, pod)

	// The result.
	if len(res.Interfaces) != 3 || res.Interfaces[0].Name != "kubik0" || res.Interfaces[2].Name != "eth0" || res.Interfaces[2].Sandbox != pod.Path() {
		t.Fatalf("result interfaces: %v", res.Interfaces)
	}
	if len(res.IPs) != 1 || res.IPs[0].Address.String() != "10.244.1.2/24" || res.IPs[0].Gateway.String() != "10.244.1.1" || *res.IPs[0].Interface != 2 {
		t.Fatalf("result IPs: %v", res.IPs)
	}
	if len(res.Routes) != 1 || res.Routes[0].Dst.String() != "0.0.0.0/0" || res.Routes[0].GW.String() != "10.244.1.1" {
		t.Fatalf("result routes: %v", res.Routes)
	}
	if len(res.DNS.Nameservers) != 1 || res.DNS.Nameservers[0] != "10.96.0.10" {
		t.Fatalf("result DNS: %+v", res.DNS)
	}
	hostVeth := res.Interfaces[1].Name

	// The pod's side.
	err := pod.Do(func(ns.NetNS) error {
		eth0, err := netlink.LinkByName("eth0")
		if err != nil {
			return err
		}
		if eth0.Attrs().MTU != 1400 || eth0.Attrs().Flags&net.FlagUp == 0 || eth0.Type() != "veth" {
			return fmt.Errorf("eth0: mtu %d flags %v type %s", eth0.Attrs().MTU, eth0.Attrs().Flags, eth0.Type())
		}
		if mac := eth0.Attrs().HardwareAddr.String(); mac != res.Interfaces[2].Mac {
			return fmt.Errorf("eth0 MAC %s, result says %s", mac, res.Interfaces[2].Mac)
		}
		addrs, err := netlink.AddrList(eth0, netlink.FAMILY_V4)
		if err != nil || len(addrs) != 1 || addrs[0].IPNet.String() != "10.244.1.2/24" {
			return fmt.Errorf("eth0 addresses %v, %v", addrs, err)
		}
		routes, err := netlink.RouteList(eth0, netlink.FAMILY_V4)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(routes, func(r netlink.Route) bool {
			return (r.Dst == nil || r.Dst.String() == "0.0.0.0/0") && r.Gw.String() == "10.244.1.1"
		}) {
			return fmt.Errorf("no default route via 10.244.1.1 in %v", routes)
		}
		lo, err := netlink.LinkByName("lo")
		if err != nil || lo.Attrs().Flags&net.FlagUp == 0 {
			return fmt.Errorf("lo is not up: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("pod netns: %v", err)
	}

	// The node's side.
	err = n.do(func() error {
		brLink, err := netlink.LinkByName("kubik0")
		if err != nil {
			return err
		}
		br, ok := brLink.(*netlink.Bridge)
		if !ok || br.MTU != 1400 || br.Flags&net.FlagUp == 0 {
			return fmt.Errorf("kubik0: %T mtu %d flags %v", brLink, brLink.Attrs().MTU, brLink.Attrs().Flags)
		}
		addrs, err := netlink.AddrList(br, netlink.FAMILY_V4)
		if err != nil || len(addrs) != 1 || addrs[0].IPNet.String() != "10.244.1.1/24" {
			return fmt.Errorf("kubik0 addresses %v, %v", addrs, err)
		}
		veth, err := netlink.LinkByName(hostVeth)
		if err != nil {
			return err
		}
		if veth.Attrs().MasterIndex != br.Index || veth.Attrs().MTU != 1400 {
			return fmt.Errorf("%s: master %d (bridge %d), mtu %d", hostVeth, veth.Attrs().MasterIndex, br.Index, veth.Attrs().MTU)
		}
		pi, err := netlink.LinkGetProtinfo(veth)
		if err != nil || !pi.Hairpin {
			return fmt.Errorf("%s hairpin: %+v, %v", hostVeth, pi, err)
		}
		for _, s := range []string{"net/ipv4/ip_forward", "net/bridge/bridge-nf-call-iptables"} {
			if v, err := sysctl.Sysctl(s); err != nil || v != "1" {
				return fmt.Errorf("%s = %q, %v", s, v, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("node netns: %v", err)
	}

	if err := n.check(id, pod); err != nil {
		t.Fatalf("CHECK: %v", err)
	}
	// CHECK notices a missing route.
	pod.Do(func(ns.NetNS) error {
		eth0, _ := netlink.LinkByName("eth0")
		return netlink.RouteDel(&netlink.Route{LinkIndex: eth0.Attrs().Index, Gw: net.ParseIP("10.244.1.1")})
	})
	if err := n.check(id, pod); err == nil || !strings.Contains(err.Error(), "not found in routing table") {
		t.Fatalf("CHECK without the default route: err = %v", err)
	}

	if err := n.del(id, pod); err != nil {
		t.Fatalf("DEL: %v", err)
	}
	if links := n.links(); !slices.Equal(links, []string{"kubik0", "lo"}) {
		t.Fatalf("node links after DEL: %v", links)
	}
	n.do(func() error {
		// The bridge keeps its MTU without ports (the kernel would reset an
		// automatic one to 1500).
		if br, err := netlink.LinkByName("kubik0"); err != nil || br.Attrs().MTU != 1400 {
			t.Errorf("kubik0 after the last DEL: %v, %v", br, err)
		}
		return nil
	})
	pod.Do(func(ns.NetNS) error {
		if _, err := netlink.LinkByName("eth0"); err == nil {
			t.Error("eth0 still in the pod after DEL")
		}
		return nil
	})
	if files := n.ipFiles(); len(files) != 0 {
		t.Fatalf("IP files after DEL: %v", files)
	}
	// DEL again: nothing to do, no error.
	if err := n.del(id, pod); err != nil {
		t.Fatalf("second DEL: %v", err)
	}
}

// TestConfigOverrides: the config's mtu beats the subnet file's, hairpin mode
// can be off, the bridge can be named.
func TestConfigOverrides(t *testing.T) {
	n := newNode(t, "1.0.0", "10.244.1.0/24", 1400, `,"mtu":1450,"hairpinMode":false,"bridge":"br-pods"`)
	pod := n.newPod()
	res := n.mustAdd("ctr", pod)
	if res.Interfaces[0].Name != "br-pods" || res.Interfaces[2].Mtu != 1450 {
		t.Fatalf("result interfaces: %v", res.Interfaces)
	}
	err := n.do(func() error {
		br, err := netlink.LinkByName("br-pods")
		if err != nil || br.Attrs().MTU != 1450 {
			return fmt.Errorf("br-pods: %v, %v", br, err)
		}
		veth, err := netlink.LinkByName(res.Interfaces[1].Name)
		if err != nil {
			return err
		}
		if pi, err := netlink.LinkGetProtinfo(veth); err != nil || pi.Hairpin {
			return fmt.Errorf("hairpin %+v, %v; want off", pi, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pod.Do(func(ns.NetNS) error {
		if eth0, err := netlink.LinkByName("eth0"); err != nil || eth0.Attrs().MTU != 1450 {
			t.Errorf("pod eth0: %v, %v; want mtu 1450", eth0, err)
		}
		return nil
	})
	if err := n.check("ctr", pod); err != nil {
		t.Fatalf("CHECK: %v", err)
	}
	if err := n.del("ctr", pod); err != nil {
		t.Fatalf("DEL: %v", err)
	}
}

// TestSubnetChange: the node agent writes a new subnet; new pods get
// addresses from it, the bridge gets its gateway, old pods still DEL cleanly.
func TestSubnetChange(t *testing.T) {
	n := newNode(t, "1.0.0", "10.244.1.0/24", 0, "")
	oldPod, newPod := n.newPod(), n.newPod()
	n.mustAdd("old", oldPod)
	n.writeSubnet("10.244.7.0/24", 0)
	res := n.mustAdd("new", newPod)
	if got := res.IPs[0].Address.String(); got != "10.244.7.2/24" || res.IPs[0].Gateway.String() != "10.244.7.1" {
		t.Fatalf("ADD after the subnet changed: %v", res.IPs[0])
	}
	n.do(func() error {
		br, _ := netlink.LinkByName("kubik0")
		addrs, err := netlink.AddrList(br, netlink.FAMILY_V4)
		if err != nil || len(addrs) != 1 || addrs[0].IPNet.String() != "10.244.7.1/24" {
			t.Errorf("kubik0 addresses %v, %v; want only 10.244.7.1/24", addrs, err)
		}
		return nil
	})
	for id, pod := range map[string]ns.NetNS{"old": oldPod, "new": newPod} {
		if err := n.del(id, pod); err != nil {
			t.Fatalf("DEL %s: %v", id, err)
		}
	}
	if files := n.ipFiles(); len(files) != 0 {
		t.Fatalf("IP files after DEL: %v", files)
	}
}

// TestVersions: the result is converted to every supported cniVersion.
func TestVersions(t *testing.T) {
	for _, v := range []string{"0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"} {
		t.Run(v, func(t *testing.T) {
			n := newNode(t, v, "10.244.1.0/24", 0, "")
			pod := n.newPod()
			id := randomID("ctr")
			ctx, cancel := n.ctx()
			defer cancel()
			var res types.Result
			if err := n.do(func() (err error) { res, err = n.cni.AddNetworkList(ctx, n.list, rt(id, pod)); return err }); err != nil {
				t.Fatalf("ADD: %v", err)
			}
			if res.Version() != v {
				t.Fatalf("result version %s, want %s", res.Version(), v)
			}
			cur, err := current.NewResultFromResult(res)
			if err != nil || len(cur.IPs) != 1 || cur.IPs[0].Address.String() != "10.244.1.2/24" {
				t.Fatalf("converted result %v, %v", cur, err)
			}
			if v >= "0.4.0" {
				if err := n.check(id, pod); err != nil {
					t.Fatalf("CHECK: %v", err)
				}
			}
			if err := n.del(id, pod); err != nil {
				t.Fatalf("DEL: %v", err)
			}
			if files := n.ipFiles(); len(files) != 0 {
				t.Fatalf("IP files after DEL: %v", files)
			}
		})
	}
}

func TestDelUnknown(t *testing.T) {
	n := newNode(t, "1.0.0", "10.244.1.0/24", 0, "")
	pod := n.newPod()
	// A container that was never added, with a real netns ...
	if err := n.del(randomID("ctr"), pod); err != nil {
		t.Fatalf("DEL of an unknown container: %v", err)
	}
	// ... with a netns that no longer exists ...
	if err := n.delRT(&libcni.RuntimeConf{ContainerID: randomID("ctr"), NetNS: "/run/netns/" + randomID("gone-"), IfName: "eth0"}); err != nil {
		t.Fatalf("DEL with a vanished netns: %v", err)
	}
	// ... and without a netns at all.
	if err := n.delRT(&libcni.RuntimeConf{ContainerID: randomID("ctr"), IfName: "eth0"}); err != nil {
		t.Fatalf("DEL without a netns: %v", err)
	}

	// A pod whose netns was removed before DEL: the address is still released.
	gone := n.newPod()
	id := randomID("ctr")
	n.mustAdd(id, gone)
	path := gone.Path()
	removeNS(t, gone)
	if err := n.delRT(&libcni.RuntimeConf{ContainerID: id, NetNS: path, IfName: "eth0"}); err != nil {
		t.Fatalf("DEL after the netns was removed: %v", err)
	}
	if files := n.ipFiles(); len(files) != 0 {
		t.Fatalf("IP files after DEL: %v", files)
	}
}

func TestConcurrentAdds(t *testing.T) {
	n := newNode(t, "1.0.0", "10.244.1.0/24", 0, "")
	const pods = 50
	netnss := make([]ns.NetNS, pods)
	for i := range netnss {
		netnss[i] = n.newPod()
	}
	results := make([]*current.Result, pods)
	errs := make([]error, pods)
	var wg sync.WaitGroup
	for i := 0; i < pods; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = n.add(fmt.Sprintf("ctr%02d", i), netnss[i])
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for i := 0; i < pods; i++ {
		if errs[i] != nil {
			t.Fatalf("ADD %d: %v", i, errs[i])
		}
		ip := results[i].IPs[0].Address.IP.String()
		if j, dup := seen[ip]; dup {
			t.Fatalf("pods %d and %d both got %s", j, i, ip)
		}
		seen[ip] = i
	}
	if files := n.ipFiles(); len(files) != pods {
		t.Fatalf("%d IP files, want %d", len(files), pods)
	}
	if links := n.links(); len(links) != pods+2 {
		t.Fatalf("%d links in the node, want %d veths + kubik0 + lo", len(links), pods)
	}
	for i := 0; i < pods; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = n.del(fmt.Sprintf("ctr%02d", i), netnss[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("DEL %d: %v", i, err)
		}
	}
	if files := n.ipFiles(); len(files) != 0 {
		t.Fatalf("IP files after DEL: %v", files)
	}
	if links := n.links(); !slices.Equal(links, []string{"kubik0", "lo"}) {
		t.Fatalf("node links after DEL: %v", links)
	}
}

func TestExhaustion(t *testing.T) {
	n := newNode(t, "1.0.0", "10.244.1.0/29", 0, "")
	for i := 0; i < 5; i++ {
		n.mustAdd(fmt.Sprintf("ctr%d", i), n.newPod())
	}
	_, err := n.add("ctr5", n.newPod())
	if cniCode(err) != 100 || !strings.Contains(err.Error(), "10.244.1.0/29") {
		t.Fatalf("ADD into a full /29: err = %v (code %d), want code 100 naming the subnet", err, cniCode(err))
	}
	if files := n.ipFiles(); len(files) != 5 {
		t.Fatalf("%d IP files, want 5", len(files))
	}
	if links := n.links(); len(links) != 5+2 {
		t.Fatalf("node links after the failed ADD: %v", links)
	}
}

// TestFailedAddLeaksNothing: an ADD that fails after the address was
// reserved (the pod already has an eth0) releases it and removes its veth.
func TestFailedAddLeaksNothing(t *testing.T) {
	n := newNode(t, "1.0.0", "10.244.1.0/24", 0, "")
	pod := n.newPod()
	err := pod.Do(func(ns.NetNS) error {
		attrs := netlink.NewLinkAttrs()
		attrs.Name = "eth0"
		return netlink.LinkAdd(&netlink.Veth{LinkAttrs: attrs, PeerName: "taken0"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.add(randomID("ctr"), pod); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("ADD into a pod that has an eth0: err = %v", err)
	}
	if files := n.ipFiles(); len(files) != 0 {
		t.Fatalf("IP files after a failed ADD: %v", files)
	}
	if links := n.links(); !slices.Equal(links, []string{"kubik0", "lo"}) {
		t.Fatalf("node links after a failed ADD: %v", links)
	}
	pod.Do(func(ns.NetNS) error {
		if _, err := netlink.LinkByName("eth0"); err != nil {
			t.Errorf("the failed ADD removed the pod's own eth0: %v", err)
		}
		return nil
	})

	// CNI_NETNS pointing at the node's own namespace is refused before
	// anything is made there.
	if _, err := n.add(randomID("ctr"), n.ns); cniCode(err) != int(types.ErrInvalidNetNS) {
		t.Fatalf("ADD into the node's own netns: err = %v, want code 8", err)
	}
	if links := n.links(); !slices.Equal(links, []string{"kubik0", "lo"}) {
		t.Fatalf("node links after ADD into the node netns: %v", links)
	}
	// So is a DEL there, which would delete the node's own eth0.
	if err := n.do(func() error {
		attrs := netlink.NewLinkAttrs()
		attrs.Name = "eth0"
		return netlink.LinkAdd(&netlink.Veth{LinkAttrs: attrs, PeerName: "uplink0"})
	}); err != nil {
		t.Fatal(err)
	}
	if err := n.del(randomID("ctr"), n.ns); cniCode(err) != int(types.ErrInvalidNetNS) {
		t.Fatalf("DEL in the node's own netns: err = %v, want code 8", err)
	}
	if links := n.links(); !slices.Contains(links, "eth0") {
		t.Fatalf("DEL in the node's own netns deleted its eth0: %v", links)
	}
}

func TestAddDelCycles(t *testing.T) {
	n := newNode(t, "1.0.0", "10.244.1.0/24", 0, "")
	const cycles = 200
	for i := 0; i < cycles; i++ {
		pod := n.newPod()
		id := fmt.Sprintf("cycle%03d", i)
		n.mustAdd(id, pod)
		if err := n.del(id, pod); err != nil {
			t.Fatalf("cycle %d DEL: %v", i, err)
		}
		path := pod.Path()
		removeNS(t, pod)
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("cycle %d: netns %s left behind", i, path)
		}
	}
	if files := n.ipFiles(); len(files) != 0 {
		t.Fatalf("IP files after %d cycles: %v", cycles, files)
	}
	if links := n.links(); !slices.Equal(links, []string{"kubik0", "lo"}) {
		t.Fatalf("node links after %d cycles: %v", cycles, links)
	}
	cached, err := n.cni.GetCachedAttachments("")
	if err != nil || len(cached) != 0 {
		t.Fatalf("libcni cache after %d cycles: %d entries, %v", cycles, len(cached), err)
	}
}

// TestPodToPod: two pods on one node talk TCP over the bridge and the
// server sees the client's pod address (no masquerade).
func TestPodToPod(t *testing.T) {
	n := newNode(t, "1.0.0", "10.244.1.0/24", 0, "")
	server, client := n.newPod(), n.newPod()
	serverIP := n.mustAdd("server", server).IPs[0].Address.IP.String()
	clientIP := n.mustAdd("client", client).IPs[0].Address.IP.String()

	var ln net.Listener
	if err := server.Do(func(ns.NetNS) (err error) {
		ln, err = net.Listen("tcp", net.JoinHostPort(serverIP, "8080"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	seen := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			seen <- "accept: " + err.Error()
			return
		}
		defer c.Close()
		seen <- c.RemoteAddr().(*net.TCPAddr).IP.String()
		io.WriteString(c, "hello from "+serverIP)
	}()

	var reply []byte
	err := client.Do(func(ns.NetNS) error {
		d := net.Dialer{Timeout: 30 * time.Second}
		c, err := d.Dial("tcp", net.JoinHostPort(serverIP, "8080"))
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		reply, err = io.ReadAll(c)
		return err
	})
	if err != nil {
		t.Fatalf("client → server: %v", err)
	}
	if src := <-seen; src != clientIP {
		t.Fatalf("server saw the connection from %s, want the client pod's %s", src, clientIP)
	}
	if string(reply) != "hello from "+serverIP {
		t.Fatalf("reply %q", reply)
	}
}

func TestStatusAndGC(t *testing.T) {
	n := newNode(t, "1.1.0", "", 0, "")
	ctx, cancel := n.ctx()
	defer cancel()

	// Before the node agent wrote the subnet file: STATUS says "not
	// available", ADD says "try again later".
	err := n.do(func() error { return n.cni.GetStatusNetworkList(ctx, n.list) })
	if cniCode(err) != int(types.ErrPluginNotAvailable) || !strings.Contains(err.Error(), "node agent") {
		t.Fatalf("STATUS without a subnet file: err = %v, want code 50", err)
	}
	_, err = n.add(randomID("ctr"), n.newPod())
	if cniCode(err) != int(types.ErrTryAgainLater) || !strings.Contains(err.Error(), "is it running?") {
		t.Fatalf("ADD without a subnet file: err = %v, want code 11", err)
	}
	n.writeSubnet("10.244.1.0/24", 0)
	if err := n.do(func() error { return n.cni.GetStatusNetworkList(ctx, n.list) }); err != nil {
		t.Fatalf("STATUS: %v", err)
	}

	podA, podB := n.newPod(), n.newPod()
	n.mustAdd("pod-a", podA)
	n.mustAdd("pod-b", podB)
	// An allocation whose DEL was lost (the runtime never cached it).
	alloc, err := ipam.New(n.dataDir, networkName, netip.MustParsePrefix("10.244.1.0/24"))
	if err != nil {
		t.Fatal(err)
	}
	lost, err := alloc.Allocate(ipam.Attachment{ContainerID: "lost", IfName: "eth0"})
	if err != nil {
		t.Fatal(err)
	}

	gc := func(valid ...string) error {
		args := &libcni.GCArgs{}
		for _, id := range valid {
			args.ValidAttachments = append(args.ValidAttachments, types.GCAttachment{ContainerID: id, IfName: "eth0"})
		}
		return n.do(func() error { return n.cni.GCNetworkList(ctx, n.list, args) })
	}
	if err := gc("pod-a", "pod-b"); err != nil {
		t.Fatalf("GC: %v", err)
	}
	got, _ := alloc.Allocated()
	if len(got) != 2 {
		t.Fatalf("after GC: %v, want pod-a and pod-b (lost %s released)", got, lost)
	}
	if _, held := got[lost]; held {
		t.Fatalf("GC kept the lost allocation %s", lost)
	}
	// pod-b is no longer valid: libcni DELs its cached attachment, then the
	// plugin's GC finds nothing more.
	if err := gc("pod-a"); err != nil {
		t.Fatalf("GC: %v", err)
	}
	got, _ = alloc.Allocated()
	if len(got) != 1 || !slices.ContainsFunc(slices.Collect(maps.Values(got)), func(a ipam.Attachment) bool { return a.ContainerID == "pod-a" }) {
		t.Fatalf("after the second GC: %v", got)
	}
	if links := n.links(); len(links) != 3 {
		t.Fatalf("node links: %v, want kubik0, lo and pod-a's veth", links)
	}
}
