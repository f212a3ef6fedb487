package nodeagent

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch06-cni/kubikcni"
)

func TestHostGW(t *testing.T) { testBackend(t, BackendHostGW) }
func TestVXLAN(t *testing.T)  { testBackend(t, BackendVXLAN) }

// testBackend runs three nodes with an agent each and two pods, and checks
// what the agents set up, pod-to-pod traffic, masquerading, a Node's
// deletion and an agent's restart.
func testBackend(t *testing.T, backend string) {
	f := newFabric(t, backend)
	ctx := context.Background()

	// node-1 has no podCIDR yet: its agent waits, writing nothing.
	n1 := f.addNode(1, true)
	n2 := f.addNode(2, false)
	n3 := f.addNode(3, false)
	// A stale conflist on node-2 is rewritten in place (same inode).
	if err := os.MkdirAll(strings.TrimSuffix(n2.cniConf, "/10-kubik.conflist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(n2.cniConf, []byte(`{"stale":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	staleInode := inode(t, n2.cniConf)

	for _, n := range f.nodes {
		n.startAgent()
	}
	n1.logged("waiting for the node's spec.podCIDR", "no spec.podCIDR yet")
	for _, p := range []string{n1.subnetFile, n1.cniConf} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s exists before node-1 has a podCIDR: %v", p, err)
		}
	}
	patch := fmt.Appendf(nil, `{"spec":{"podCIDR":%q}}`, n1.subnet)
	if _, err := rest.Patch[corev1.Node](ctx, f.api.admin, "", n1.name, rest.MergePatchType, patch, ""); err != nil {
		t.Fatal(err)
	}

	// Every node: the CNI configuration appears last; subnet file, backend
	// and annotations are in place by then.
	mtu := 1500
	if backend == BackendVXLAN {
		mtu = 1450
	}
	for _, n := range f.nodes {
		eventually(t, n.name+"'s CNI configuration", func() error {
			data, err := os.ReadFile(n.cniConf)
			if err == nil && string(data) != string(n.conflist) {
				err = fmt.Errorf("content %s", data)
			}
			return err
		})
		sc, err := kubikcni.ReadSubnetFile(n.subnetFile)
		want := kubikcni.SubnetConfig{Network: netip.MustParsePrefix("10.244.0.0/16"), Subnet: n.subnet, MTU: mtu}
		if err != nil || sc != want {
			t.Fatalf("%s subnet file: %+v, %v; want %+v", n.name, sc, err, want)
		}
		raw, _ := os.ReadFile(n.subnetFile)
		if wantRaw := fmt.Sprintf("KUBIK_NETWORK=10.244.0.0/16\nKUBIK_SUBNET=%s\nKUBIK_MTU=%d\n", n.subnet, mtu); string(raw) != wantRaw {
			t.Fatalf("%s subnet file:\n%s\nwant\n%s", n.name, raw, wantRaw)
		}
		checkAnnotations(t, n)
		checkIPTables(t, n)
	}
	if got := inode(t, n2.cniConf); got != staleInode {
		t.Errorf("node-2's conflist was replaced (inode %d, was %d), not written in place", got, staleInode)
	}

	// Routes to the two other nodes, on every node.
	for _, n := range f.nodes {
		for _, peer := range f.nodes {
			if peer != n {
				waitPeerProgrammed(t, n, peer)
			}
		}
	}

	// Pod to pod across nodes: the source address survives, 1 MiB intact.
	a, b := n1.addPod(), n2.addPod()
	var before [2]netlink.LinkStatistics
	if backend == BackendVXLAN {
		before = [2]netlink.LinkStatistics{vxlanStats(t, n1), vxlanStats(t, n2)}
	}
	transfer(t, a, b)
	transfer(t, b, a)
	if backend == BackendVXLAN {
		after1, after2 := vxlanStats(t, n1), vxlanStats(t, n2)
		if after1.TxBytes-before[0].TxBytes < 1<<20 || after2.RxBytes-before[1].RxBytes < 1<<20 {
			t.Errorf("%s counters: node-1 TX +%d, node-2 RX +%d bytes; want the 1 MiB to have crossed the overlay",
				vxlanDevice, after1.TxBytes-before[0].TxBytes, after2.RxBytes-before[1].RxBytes)
		}
	} else {
		n1.do(func() error {
			if _, err := netlink.LinkByName(vxlanDevice); err == nil {
				t.Errorf("host-gw node has a %s device", vxlanDevice)
			}
			return nil
		})
	}

	// A pod reaching the bridge address (where the apiserver listens) is
	// masqueraded to its node's address.
	checkMasquerade(t, f, a)

	// A Node deleted: its entries go on the other nodes.
	mac3 := nodeVtepMAC(t, n3)
	if err := rest.Delete[corev1.Node](ctx, f.api.admin, "", n3.name, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*fabricNode{n1, n2} {
		waitPeerGone(t, n, n3, mac3)
	}

	// The periodic resync repairs what someone removed.
	n2.do(func() error { return netlink.RouteDel(&n2.routesTo(n1.subnet)[0]) })
	n2.iptables("-t", "nat", "-D", "POSTROUTING", "-m", "comment", "--comment", "kubik-node-agent masq", "-j", postroutingChain)
	waitPeerProgrammed(t, n2, n1)
	eventually(t, "node-2's POSTROUTING jump restored", func() error {
		if !strings.Contains(n2.iptables("-t", "nat", "-S", "POSTROUTING"), "-j "+postroutingChain) {
			return errors.New("no jump")
		}
		return nil
	})

	// An agent restarted: what it finds in place stays, what went missing
	// while it was down comes back, what no Node wants any more goes.
	n1.stopAgent()
	macBefore := nodeVtepMAC(t, n1)
	stale := netip.MustParsePrefix("10.244.99.0/24")
	n1.do(func() error {
		for _, r := range n1.routesTo(n2.subnet) {
			if err := netlink.RouteDel(&r); err != nil {
				return err
			}
		}
		if backend == BackendHostGW {
			eth0, err := netlink.LinkByName("eth0")
			if err != nil {
				return err
			}
			return netlink.RouteAdd(&netlink.Route{LinkIndex: eth0.Attrs().Index, Dst: ipNet(stale), Gw: net.IP(n2.ip.AsSlice())})
		}
		// VXLAN: node-2's neighbour entry lost; a gone node's three entries left.
		dev, err := netlink.LinkByName(vxlanDevice)
		if err != nil {
			return err
		}
		if err := netlink.NeighDel(&netlink.Neigh{LinkIndex: dev.Attrs().Index, IP: net.IP(n2.subnet.Addr().AsSlice())}); err != nil {
			return err
		}
		p := planVXLAN([]peer{{Node: "gone", Subnet: stale, IP: netip.AddrFrom4([4]byte{10, 240, byte(f.x), 99}), VtepMAC: staleMAC}})
		if err := syncNeighbors(dev, p.Neighbors, discard); err != nil {
			return err
		}
		if err := syncFDB(dev, p.FDB, discard); err != nil {
			return err
		}
		return netlink.RouteAdd(netlinkRoute(p.Routes[0], dev.Attrs().Index))
	})
	n1.startAgent()
	n1.logged("route added", n2.subnet.String())
	waitPeerProgrammed(t, n1, n2)
	eventually(t, "the stale entries removed", func() error {
		if r := n1.routesTo(stale); len(r) != 0 {
			return fmt.Errorf("route %v", r)
		}
		if backend == BackendVXLAN {
			neigh, fdb := vxlanEntries(t, n1)
			for _, e := range slices.Concat(neigh, fdb) {
				if strings.Contains(e, staleMAC.String()) {
					return fmt.Errorf("entry %q", e)
				}
			}
		}
		return nil
	})
	for _, n := range f.nodes[:2] {
		for _, peer := range f.nodes[:2] {
			if peer != n {
				if r := n.routesTo(peer.subnet); len(r) != 1 {
					t.Errorf("%s: routes to %s: %v, want exactly one", n.name, peer.subnet, r)
				}
			}
		}
	}
	if macAfter := nodeVtepMAC(t, n1); macAfter != macBefore {
		t.Errorf("the VTEP MAC changed over the restart: %s, was %s", macAfter, macBefore)
	}
	checkIPTables(t, n1)
	for _, change := range []string{"iptables chain written", "iptables jump added", "node annotations published",
		"subnet file written", "CNI configuration written", "VXLAN device created", "address added"} {
		if n1.log.hasLine(change) {
			t.Errorf("the restarted agent logged %q: it should have found it in place", change)
		}
	}
	transfer(t, a, b)
}

var (
	staleMAC = net.HardwareAddr{0x0a, 0, 0, 0, 0, 0x99}
	discard  = slog.New(slog.DiscardHandler)
)

func inode(t *testing.T, path string) uint64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// checkAnnotations: the Node carries the agent's annotations; for VXLAN
// the VtepMAC is kubik.1's.
func checkAnnotations(t *testing.T, n *fabricNode) {
	t.Helper()
	node, err := rest.Get[corev1.Node](context.Background(), n.f.api.admin, "", n.name)
	if err != nil {
		t.Fatal(err)
	}
	data := "null"
	if n.f.backend == BackendVXLAN {
		data = fmt.Sprintf(`{"VNI":1,"VtepMAC":%q}`, vtepMAC(t, n))
	}
	want := map[string]string{
		"kubik.io/backend-type":        n.f.backend,
		"kubik.io/backend-data":        data,
		"kubik.io/public-ip":           n.ip.String(),
		"kubik.io/kube-subnet-manager": "true",
	}
	for k, v := range want {
		if node.Annotations[k] != v {
			t.Errorf("%s annotation %s = %q, want %q", n.name, k, node.Annotations[k], v)
		}
	}
}

func vtepMAC(t *testing.T, n *fabricNode) string {
	var mac string
	n.do(func() error {
		l, err := netlink.LinkByName(vxlanDevice)
		if err == nil {
			mac = l.Attrs().HardwareAddr.String()
		}
		return err
	})
	return mac
}

// nodeVtepMAC is the VtepMAC a node published ("" for host-gw).
func nodeVtepMAC(t *testing.T, n *fabricNode) string {
	node, err := rest.Get[corev1.Node](context.Background(), n.f.api.admin, "", n.name)
	if err != nil {
		t.Fatal(err)
	}
	d, err := parseVXLANBackendData(node.Annotations[AnnotationBackendData])
	if err != nil {
		return ""
	}
	return d.VtepMAC
}

// checkIPTables: the chains hold exactly the rules, jumped to once.
func checkIPTables(t *testing.T, n *fabricNode) {
	t.Helper()
	for _, cr := range []chainRules{masqRules(netip.MustParsePrefix("10.244.0.0/16"), n.subnet, true),
		forwardRules(netip.MustParsePrefix("10.244.0.0/16"))} {
		got := strings.Split(strings.TrimSpace(n.iptables("-t", cr.Table, "-S", cr.Chain)), "\n")
		if want := cr.saveLines(); !slices.Equal(got, want) {
			t.Errorf("%s iptables -t %s -S %s:\n%s\nwant\n%s", n.name, cr.Table, cr.Chain, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if c := strings.Count(n.iptables("-t", cr.Table, "-S", cr.From), "-j "+cr.Chain); c != 1 {
			t.Errorf("%s: %d jumps from %s to %s, want 1", n.name, c, cr.From, cr.Chain)
		}
	}
}

// waitPeerProgrammed waits until n routes peer's subnet the backend's way.
func waitPeerProgrammed(t *testing.T, n, peer *fabricNode) {
	t.Helper()
	eventually(t, fmt.Sprintf("%s's route to %s", n.name, peer.name), func() error {
		routes := n.routesTo(peer.subnet)
		if len(routes) != 1 {
			return fmt.Errorf("routes %v", routes)
		}
		r := routes[0]
		var dev netlink.Link
		if err := n.try(func() (err error) { dev, err = netlink.LinkByIndex(r.LinkIndex); return err }); err != nil {
			return err
		}
		if n.f.backend == BackendHostGW {
			if !r.Gw.Equal(net.IP(peer.ip.AsSlice())) || dev.Attrs().Name != "eth0" {
				return fmt.Errorf("route %s via %s dev %s", r.Dst, r.Gw, dev.Attrs().Name)
			}
			return nil
		}
		if !r.Gw.Equal(net.IP(peer.subnet.Addr().AsSlice())) || dev.Attrs().Name != vxlanDevice || r.Flags&int(netlink.FLAG_ONLINK) == 0 {
			return fmt.Errorf("route %s via %s dev %s flags %v", r.Dst, r.Gw, dev.Attrs().Name, r.ListFlags())
		}
		mac := nodeVtepMAC(t, peer)
		neigh, fdb := vxlanEntries(t, n)
		if !slices.Contains(neigh, peer.subnet.Addr().String()+" "+mac) {
			return fmt.Errorf("no neighbour %s %s in %v", peer.subnet.Addr(), mac, neigh)
		}
		if !slices.Contains(fdb, mac+" "+peer.ip.String()) {
			return fmt.Errorf("no FDB entry %s dst %s in %v", mac, peer.ip, fdb)
		}
		return nil
	})
}

// waitPeerGone waits until n has nothing left for peer.
func waitPeerGone(t *testing.T, n, peer *fabricNode, mac string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%s forgets %s", n.name, peer.name), func() error {
		if r := n.routesTo(peer.subnet); len(r) != 0 {
			return fmt.Errorf("routes %v", r)
		}
		if n.f.backend == BackendVXLAN {
			neigh, fdb := vxlanEntries(t, n)
			for _, e := range slices.Concat(neigh, fdb) {
				if strings.Contains(e, mac) || strings.HasPrefix(e, peer.subnet.Addr().String()+" ") {
					return fmt.Errorf("entry %q left", e)
				}
			}
		}
		return nil
	})
}

// vxlanEntries lists kubik.1's permanent neighbours ("ip mac") and FDB
// entries ("mac dst").
func vxlanEntries(t *testing.T, n *fabricNode) (neigh, fdb []string) {
	n.do(func() error {
		dev, err := netlink.LinkByName(vxlanDevice)
		if err != nil {
			return err
		}
		ns, err := retryInterrupted(func() ([]netlink.Neigh, error) { return netlink.NeighList(dev.Attrs().Index, netlink.FAMILY_V4) })
		if err != nil {
			return err
		}
		for _, e := range ns {
			if e.State&netlink.NUD_PERMANENT != 0 {
				neigh = append(neigh, e.IP.String()+" "+e.HardwareAddr.String())
			}
		}
		fs, err := retryInterrupted(func() ([]netlink.Neigh, error) { return netlink.NeighList(dev.Attrs().Index, unix.AF_BRIDGE) })
		for _, e := range fs {
			fdb = append(fdb, e.HardwareAddr.String()+" "+e.IP.String())
		}
		return err
	})
	return neigh, fdb
}

func vxlanStats(t *testing.T, n *fabricNode) netlink.LinkStatistics {
	var s netlink.LinkStatistics
	n.do(func() error {
		l, err := netlink.LinkByName(vxlanDevice)
		if err == nil {
			s = *l.Attrs().Statistics
		}
		return err
	})
	return s
}

// transfer sends 1 MiB of random bytes from pod a to a server in pod b,
// which answers with the source address it saw and the data's SHA-256.
func transfer(t *testing.T, a, b *pod) {
	t.Helper()
	ln := b.listen()
	defer ln.Close()
	type seen struct {
		remote, sum string
		err         error
	}
	served := make(chan seen, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- seen{err: err}
			return
		}
		defer c.Close()
		h := sha256.New()
		_, err = io.Copy(h, c)
		s := seen{remote: c.RemoteAddr().(*net.TCPAddr).IP.String(), sum: hex.EncodeToString(h.Sum(nil)), err: err}
		fmt.Fprintf(c, "%s %s\n", s.remote, s.sum)
		served <- s
	}()
	data := make([]byte, 1<<20)
	rand.Read(data)
	c, err := a.dial(ln.Addr().String())
	if err != nil {
		t.Fatalf("%s (%s) → %s: %v", a.ip, a.node.name, ln.Addr(), err)
	}
	defer c.Close()
	if _, err := c.Write(data); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).CloseWrite()
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	s := <-served
	sum := sha256.Sum256(data)
	if s.err != nil || s.remote != a.ip.String() || s.sum != hex.EncodeToString(sum[:]) {
		t.Fatalf("%s → %s: server saw source %s, sum %s (%v); want source %s, sum %x", a.ip, b.ip, s.remote, s.sum, s.err, a.ip, sum)
	}
	if strings.TrimSpace(reply) != s.remote+" "+s.sum {
		t.Fatalf("answer %q", reply)
	}
}

// checkMasquerade: a listener on the bridge address in the root namespace
// sees the pod's connection come from the pod's node.
func checkMasquerade(t *testing.T, f *fabric, p *pod) {
	t.Helper()
	ln, err := net.Listen("tcp", netip.AddrPortFrom(f.gateway, 0).String())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	remote := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			remote <- err.Error()
			return
		}
		remote <- c.RemoteAddr().(*net.TCPAddr).IP.String()
		c.Close()
	}()
	c, err := p.dial(ln.Addr().String())
	if err != nil {
		t.Fatalf("pod %s → %s: %v", p.ip, ln.Addr(), err)
	}
	c.Close()
	if got := <-remote; got != p.node.ip.String() {
		t.Fatalf("the root namespace saw %s connect, want the node address %s (masqueraded)", got, p.node.ip)
	}
}
