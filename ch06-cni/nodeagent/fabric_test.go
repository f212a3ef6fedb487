package nodeagent

// The test fabric: "nodes" that are network namespaces with an eth0 on a
// test bridge in the root namespace (10.240.X.0/24, X chosen per test), an
// apiserver listening on the bridge's address, one real kubik-node-agent
// per node started with nsenter, and "pods" connected by the real kubik-cni
// plugin through libcni, as containerd would.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/containernetworking/plugins/pkg/testutils"
	"github.com/vishvananda/netlink"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

type fabric struct {
	t       *testing.T
	backend string
	bridge  string
	x       int        // the third octet of 10.240.X.0/24
	gateway netip.Addr // the bridge's address, 10.240.X.1
	api     *testAPIServer
	nodes   []*fabricNode
}

type fabricNode struct {
	f          *fabric
	name       string
	index      int // node-<index>: address 10.240.X.<10+index>, podCIDR 10.244.<index>.0/24
	ns         ns.NetNS
	ip         netip.Addr
	subnet     netip.Prefix
	dir        string
	kubeconfig string
	subnetFile string
	cniConf    string
	conflist   []byte
	cni        *libcni.CNIConfig

	mu    sync.Mutex
	agent *exec.Cmd
	runs  int
	log   *syncBuffer // the current run's output
}

// newFabric makes the bridge and the apiserver on it.
func newFabric(t *testing.T, backend string) *fabric {
	t.Helper()
	requireRoot(t)
	f := &fabric{t: t, backend: backend, bridge: "knab" + randomHex(4)}
	f.x = freeThirdOctet(t)
	f.gateway = netip.AddrFrom4([4]byte{10, 240, byte(f.x), 1})

	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: f.bridge}}
	if err := netlink.LinkAdd(br); err != nil {
		t.Fatalf("creating bridge %s: %v", f.bridge, err)
	}
	t.Cleanup(func() {
		if err := netlink.LinkDel(br); err != nil {
			t.Errorf("deleting bridge %s: %v", f.bridge, err)
		}
	})
	// Only the bridge's own connected route, 10.240.X.0/24, appears in the
	// root namespace; it goes with the bridge.
	addr := &netlink.Addr{IPNet: ipNet(netip.PrefixFrom(f.gateway, 24))}
	if err := netlink.AddrAdd(br, addr); err != nil {
		t.Fatal(err)
	}
	if err := netlink.LinkSetUp(br); err != nil {
		t.Fatal(err)
	}
	f.api = startAPIServer(t, f.gateway.String())
	if err := EnsureRBAC(context.Background(), f.api.admin); err != nil {
		t.Fatal(err)
	}
	return f
}

// freeThirdOctet picks X so that 10.240.X.0/24 overlaps no route or
// address of the root namespace (a chapter's cluster may use 10.240.0.0/24)
// but the guard routes.
func freeThirdOctet(t *testing.T) int {
	t.Helper()
	routes, err := netlink.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Table: syscall.RT_TABLE_UNSPEC}, netlink.RT_FILTER_TABLE)
	if err != nil && !errors.Is(err, netlink.ErrDumpInterrupted) {
		t.Fatal(err)
	}
	addrs, err := netlink.AddrList(nil, netlink.FAMILY_V4)
	if err != nil && !errors.Is(err, netlink.ErrDumpInterrupted) {
		t.Fatal(err)
	}
	for range 200 {
		x := 100 + rand.IntN(150)
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 240, byte(x), 0}), 24)
		used := false
		for _, r := range routes {
			// A running chapter's guard routes (unreachable 10.240.0.0/16)
			// cover every candidate; the test's bridge route is more
			// specific and wins over them.
			if r.Type == syscall.RTN_UNREACHABLE {
				continue
			}
			if d, ok := prefixOf(r.Dst); ok && d.Bits() > 0 && d.Overlaps(p) {
				used = true
			}
		}
		for _, a := range addrs {
			if d, ok := prefixOf(a.IPNet); ok && d.Overlaps(p) {
				used = true
			}
		}
		if !used {
			return x
		}
	}
	t.Fatal("no free 10.240.X.0/24")
	return 0
}

// addNode makes node-<index>: a netns with eth0 on the bridge, and its
// Node object (podCIDR 10.244.<index>.0/24 unless withoutCIDR).
func (f *fabric) addNode(index int, withoutCIDR bool) *fabricNode {
	t := f.t
	t.Helper()
	n := &fabricNode{f: f, name: fmt.Sprintf("node-%d", index), index: index,
		ip:     netip.AddrFrom4([4]byte{10, 240, byte(f.x), byte(10 + index)}),
		subnet: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(index), 0}), 24),
		dir:    t.TempDir()}
	var err error
	if n.ns, err = testutils.NewNS(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeNS(t, n.ns) })

	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "knav" + randomHex(4), MasterIndex: linkIndex(t, f.bridge)},
		PeerName: "eth0", PeerNamespace: netlink.NsFd(int(n.ns.Fd()))}
	if err := netlink.LinkAdd(veth); err != nil {
		t.Fatalf("creating the veth of %s: %v", n.name, err)
	}
	t.Cleanup(func() { netlink.LinkDel(veth) }) // gone already when the netns went first
	if err := netlink.LinkSetUp(veth); err != nil {
		t.Fatal(err)
	}
	n.do(func() error {
		for _, name := range []string{"lo", "eth0"} {
			l, err := netlink.LinkByName(name)
			if err != nil {
				return err
			}
			if name == "eth0" {
				if err := netlink.AddrAdd(l, &netlink.Addr{IPNet: ipNet(netip.PrefixFrom(n.ip, 24))}); err != nil {
					return err
				}
			}
			if err := netlink.LinkSetUp(l); err != nil {
				return err
			}
		}
		return nil
	})

	n.kubeconfig = f.api.agentKubeconfig(t, n.name)
	n.subnetFile = filepath.Join(n.dir, "run", "subnet.env")
	n.cniConf = filepath.Join(n.dir, "net.d", "10-kubik.conflist")
	n.conflist = fmt.Appendf(nil, `{"cniVersion":"1.0.0","name":"kubik","plugins":[{"type":"kubik-cni","subnetFile":%q,"dataDir":%q}]}`,
		n.subnetFile, filepath.Join(n.dir, "ipam"))
	n.cni = libcni.NewCNIConfigWithCacheDir([]string{binDir}, filepath.Join(n.dir, "cni-cache"),
		&invoke.DefaultExec{RawExec: &invoke.RawExec{Stderr: os.Stderr}, PluginDecoder: version.PluginDecoder{}})

	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name}}
	if !withoutCIDR {
		node.Spec.PodCIDR = n.subnet.String()
	}
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: n.ip.String()}, {Type: corev1.NodeHostName, Address: n.name}}
	if _, err := rest.Create(context.Background(), f.api.admin, node); err != nil {
		t.Fatal(err)
	}
	f.nodes = append(f.nodes, n)
	return n
}

func linkIndex(t *testing.T, name string) int {
	l, err := netlink.LinkByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return l.Attrs().Index
}

func removeNS(t *testing.T, netns ns.NetNS) {
	netns.Close()
	if _, err := os.Stat(netns.Path()); errors.Is(err, os.ErrNotExist) {
		return
	}
	if err := testutils.UnmountNS(netns); err != nil {
		t.Errorf("removing netns %s: %v", netns.Path(), err)
	}
}

// do runs fn on a thread inside the node's netns; programs started from
// there (iptables, CNI plugins) inherit it.
func (n *fabricNode) do(fn func() error) {
	n.f.t.Helper()
	if err := n.ns.Do(func(ns.NetNS) error { return fn() }); err != nil {
		n.f.t.Fatalf("in %s: %v", n.name, err)
	}
}

// try is do without failing the test.
func (n *fabricNode) try(fn func() error) error {
	return n.ns.Do(func(ns.NetNS) error { return fn() })
}

// startAgent runs kubik-node-agent inside the node's netns.
func (n *fabricNode) startAgent() {
	t := n.f.t
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.runs++
	n.log = &syncBuffer{}
	logFile, err := os.Create(filepath.Join(n.dir, fmt.Sprintf("agent-%d.log", n.runs)))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("nsenter", "--net="+n.ns.Path(), filepath.Join(binDir, "kubik-node-agent"),
		"--node-name="+n.name, "--kubeconfig="+n.kubeconfig, "--backend="+n.f.backend,
		"--cluster-cidr=10.244.0.0/16", "--iface=eth0", "--subnet-file="+n.subnetFile,
		"--cni-conf-source="+n.writeConflistSource(), "--cni-conf-path="+n.cniConf,
		"--resync-period=2s", "--log-level=debug")
	cmd.Stdout = logFile
	cmd.Stderr = &teeWriter{n.log, logFile}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n.agent = cmd
	run := n.runs
	t.Cleanup(func() {
		n.stopAgent()
		logFile.Close()
		if t.Failed() {
			data, _ := os.ReadFile(logFile.Name())
			t.Logf("%s agent run %d:\n%s", n.name, run, data)
		}
	})
}

func (n *fabricNode) writeConflistSource() string {
	p := filepath.Join(n.dir, "conflist.source")
	if err := os.WriteFile(p, n.conflist, 0o644); err != nil {
		n.f.t.Fatal(err)
	}
	return p
}

// stopAgent ends the agent by its PID and waits for it.
func (n *fabricNode) stopAgent() {
	n.mu.Lock()
	cmd := n.agent
	n.agent = nil
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// logged waits for a line of the current agent run containing all parts.
func (n *fabricNode) logged(parts ...string) {
	n.f.t.Helper()
	eventually(n.f.t, fmt.Sprintf("%s logs %q", n.name, parts), func() error {
		if n.log.hasLine(parts...) {
			return nil
		}
		return errors.New("not yet")
	})
}

// iptables runs iptables in the node's netns.
func (n *fabricNode) iptables(args ...string) string {
	n.f.t.Helper()
	out, err := exec.Command("nsenter", append([]string{"--net=" + n.ns.Path(), "iptables"}, args...)...).CombinedOutput()
	if err != nil {
		n.f.t.Fatalf("iptables %s in %s: %v\n%s", strings.Join(args, " "), n.name, err, out)
	}
	return string(out)
}

// routesTo lists the node's main-table routes with destination dst.
func (n *fabricNode) routesTo(dst netip.Prefix) []netlink.Route {
	n.f.t.Helper()
	var out []netlink.Route
	n.do(func() error {
		routes, err := retryInterrupted(func() ([]netlink.Route, error) { return netlink.RouteList(nil, netlink.FAMILY_V4) })
		for _, r := range routes {
			if d, ok := prefixOf(r.Dst); ok && d == dst {
				out = append(out, r)
			}
		}
		return err
	})
	return out
}

// pod is a network namespace connected by kubik-cni on a node.
type pod struct {
	node *fabricNode
	id   string
	ns   ns.NetNS
	ip   netip.Addr
}

// addPod runs the CNI ADD of the conflist the agent installed.
func (n *fabricNode) addPod() *pod {
	t := n.f.t
	t.Helper()
	list, err := libcni.ConfListFromFile(n.cniConf)
	if err != nil {
		t.Fatal(err)
	}
	podNS, err := testutils.NewNS()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeNS(t, podNS) })
	p := &pod{node: n, id: "pod" + randomHex(6), ns: podNS}
	rc := &libcni.RuntimeConf{ContainerID: p.id, NetNS: podNS.Path(), IfName: "eth0"}
	ctx := context.Background()
	var res *current.Result
	n.do(func() error {
		r, err := n.cni.AddNetworkList(ctx, list, rc)
		if err != nil {
			return fmt.Errorf("CNI ADD: %w", err)
		}
		res, err = current.NewResultFromResult(r)
		return err
	})
	t.Cleanup(func() {
		n.try(func() error { return n.cni.DelNetworkList(context.Background(), list, rc) })
	})
	if len(res.IPs) != 1 {
		t.Fatalf("CNI result: %v", res)
	}
	p.ip, _ = netip.AddrFromSlice(res.IPs[0].Address.IP.To4())
	if !n.subnet.Contains(p.ip) {
		t.Fatalf("pod IP %s is not in %s's subnet %s", p.ip, n.name, n.subnet)
	}
	podNS.Do(func(ns.NetNS) error {
		lo, err := netlink.LinkByName("lo")
		if err == nil {
			err = netlink.LinkSetUp(lo)
		}
		return err
	})
	return p
}

// listen opens a TCP listener inside the pod's netns.
func (p *pod) listen() net.Listener {
	t := p.node.f.t
	t.Helper()
	var ln net.Listener
	err := p.ns.Do(func(ns.NetNS) (err error) {
		ln, err = net.Listen("tcp", netip.AddrPortFrom(p.ip, 0).String())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// dial connects from inside the pod's netns.
func (p *pod) dial(addr string) (net.Conn, error) {
	var c net.Conn
	err := p.ns.Do(func(ns.NetNS) (err error) {
		c, err = net.DialTimeout("tcp", addr, time.Minute)
		return err
	})
	return c, err
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// hasLine: a line contains all parts.
func (b *syncBuffer) hasLine(parts ...string) bool {
	for line := range strings.Lines(b.String()) {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

type teeWriter struct {
	a *syncBuffer
	b *os.File
}

func (w *teeWriter) Write(p []byte) (int, error) {
	w.a.Write(p)
	return w.b.Write(p)
}
