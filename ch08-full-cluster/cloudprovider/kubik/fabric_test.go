package kubik

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// testFabric is a node network made of scratch namespaces only: a "host"
// namespace with the bridge br0 (10.240.99.1/24), and machines
// <prefix>node-N with eth0 10.240.99.(10+N) on it. Nothing of it is in
// the test's own namespace; it is all removed when the test ends.
type testFabric struct {
	t      *testing.T
	prefix string // kct<random>-
	host   string // the host namespace's path
	cfg    *Config
}

func root(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: network namespaces")
	}
}

func newTestFabric(t *testing.T) *testFabric {
	t.Helper()
	root(t)
	b := make([]byte, 3)
	rand.Read(b)
	f := &testFabric{t: t, prefix: "kct" + hex.EncodeToString(b) + "-"}
	t.Cleanup(f.cleanup)
	f.host = f.addNS("host")
	f.do(f.host, func() error {
		if err := netlink.LinkAdd(&netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: "br0"}}); err != nil {
			return err
		}
		br, err := netlink.LinkByName("br0")
		if err != nil {
			return err
		}
		if err := netlink.AddrAdd(br, mustAddr("10.240.99.1/24")); err != nil {
			return err
		}
		return netlink.LinkSetUp(br)
	})
	f.cfg = &Config{
		LoadBalancer: LoadBalancerConfig{IPPool: "10.240.99.200-10.240.99.202"},
		Network:      NetworkConfig{NodeCIDR: "10.240.99.0/24", Bridge: "br0", BridgeNetNS: f.host},
		Balancer:     BalancerConfig{NetNS: f.prefix + "balancer", Address: "10.240.99.2", StateFile: filepath.Join(t.TempDir(), "cloud.json")},
		Instances:    InstancesConfig{NetNSPrefix: f.prefix},
	}
	return f
}

// addNS makes the namespace <prefix>name with lo up and returns its path.
func (f *testFabric) addNS(name string) string {
	f.t.Helper()
	if out, err := exec.Command("ip", "netns", "add", f.prefix+name).CombinedOutput(); err != nil {
		f.t.Fatalf("ip netns add: %v: %s", err, out)
	}
	path := filepath.Join(NetNSDir, f.prefix+name)
	f.do(path, func() error {
		lo, err := netlink.LinkByName("lo")
		if err != nil {
			return err
		}
		return netlink.LinkSetUp(lo)
	})
	return path
}

// addMachine makes node-i on the bridge and returns its eth0 address.
func (f *testFabric) addMachine(i int) (name, path string, ip netip.Addr) {
	f.t.Helper()
	name = fmt.Sprintf("node-%d", i)
	path = f.addNS(name)
	ip = netip.AddrFrom4([4]byte{10, 240, 99, byte(10 + i)})
	nsh, err := netns.GetFromPath(path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer nsh.Close()
	f.do(f.host, func() error {
		br, err := netlink.LinkByName("br0")
		if err != nil {
			return err
		}
		veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: fmt.Sprintf("n%d", i), MasterIndex: br.Attrs().Index},
			PeerName: "eth0", PeerNamespace: netlink.NsFd(nsh)}
		if err := netlink.LinkAdd(veth); err != nil {
			return err
		}
		l, err := netlink.LinkByName(veth.Name)
		if err != nil {
			return err
		}
		return netlink.LinkSetUp(l)
	})
	f.do(path, func() error {
		eth0, err := netlink.LinkByName("eth0")
		if err != nil {
			return err
		}
		if err := netlink.AddrAdd(eth0, mustAddr(ip.String()+"/24")); err != nil {
			return err
		}
		return netlink.LinkSetUp(eth0)
	})
	return name, path, ip
}

// cleanup removes every namespace of the fabric (their links go with them).
func (f *testFabric) cleanup() {
	entries, _ := os.ReadDir(NetNSDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), f.prefix) {
			exec.Command("ip", "netns", "del", e.Name()).Run()
		}
	}
}

// do runs fn inside the namespace at path.
func (f *testFabric) do(path string, fn func() error) {
	f.t.Helper()
	if err := inNS(path, fn); err != nil {
		f.t.Fatalf("in %s: %v", path, err)
	}
}

func inNS(path string, fn func() error) error {
	return ns.WithNetNSPath(path, func(ns.NetNS) error { return fn() })
}

// serve answers every TCP connection to addr, inside the namespace, with
// its name and a newline.
func (f *testFabric) serve(path, addr, name string) {
	f.t.Helper()
	var ln net.Listener
	f.do(path, func() (err error) {
		ln, err = net.Listen("tcp", addr)
		return err
	})
	f.t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			fmt.Fprintln(c, name)
			c.Close()
		}
	}()
}

// serveUDP answers every datagram to addr with name.
func (f *testFabric) serveUDP(path, addr, name string) {
	f.t.Helper()
	var pc net.PacketConn
	f.do(path, func() (err error) {
		pc, err = net.ListenPacket("udp", addr)
		return err
	})
	f.t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			_, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			pc.WriteTo([]byte(name), from)
		}
	}()
}

// noAddr: no particular local address.
var noAddr netip.Addr

// ask connects from the namespace at path (from local, when valid) to
// addr and returns the first line it reads.
func ask(path string, local netip.Addr, addr string) (string, error) {
	var c net.Conn
	err := inNS(path, func() (err error) {
		d := net.Dialer{Timeout: 3 * time.Second}
		if local.IsValid() {
			d.LocalAddr = &net.TCPAddr{IP: net.IP(local.AsSlice())}
		}
		c, err = d.DialContext(context.Background(), "tcp", addr)
		return err
	})
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

// askUDP sends a datagram from the namespace and returns the answer.
func askUDP(path, addr string) (string, error) {
	var c net.Conn
	if err := inNS(path, func() (err error) { c, err = net.Dial("udp", addr); return err }); err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("?")); err != nil {
		return "", err
	}
	buf := make([]byte, 512)
	n, err := c.Read(buf)
	return string(buf[:n]), err
}

// nsRun runs a command inside the namespace and returns its output.
func nsRun(t *testing.T, path string, argv ...string) string {
	t.Helper()
	out, err := exec.Command("nsenter", append([]string{"--net=" + path, "--"}, argv...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s in %s: %v: %s", strings.Join(argv, " "), path, err, out)
	}
	return string(out)
}

func mustAddr(s string) *netlink.Addr {
	a, err := netlink.ParseAddr(s)
	if err != nil {
		panic(err)
	}
	return a
}

// testNode is a Node on machine name with InternalIP ip.
func testNode(name string, ip netip.Addr) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: "uid-" + name},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip.String()}, {Type: corev1.NodeHostName, Address: name}}}}
}

func eventually(t *testing.T, what string, f func() (string, bool)) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		last, ok := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: last seen: %s", what, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
