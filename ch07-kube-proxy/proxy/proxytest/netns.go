package proxytest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/containernetworking/plugins/pkg/ns"
)

// Topology is a scratch "node" network namespace with two "pod" namespaces
// and a "client" namespace, each behind its own veth pair:
//
//	pod1 10.244.1.2/24 ── 10.244.1.1 ┐
//	pod2 10.244.2.2/24 ── 10.244.2.1 ├ node (ip_forward=1)
//	client 10.244.3.2/24 ─ 10.244.3.1 ┘
//
// The pods and the client route everything via the node; the node routes
// the Service CIDR 10.96.0.0/12 towards pod1 (not back out the client's
// link, whose ICMP redirect would rate-limit the REJECT's ICMP error).
// Nothing leaves the
// namespaces.
type Topology struct {
	Node, Pod1, Pod2, Client string // netns names
	Pod1IP, Pod2IP, ClientIP string
}

// Run runs a command and fails the test on error.
func Run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// NewTopology creates the namespaces (removed in t.Cleanup). It skips the
// test unless root.
func NewTopology(t *testing.T) *Topology {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	tp := &Topology{Node: "kubik-ptest-" + id + "-n", Pod1: "kubik-ptest-" + id + "-p1", Pod2: "kubik-ptest-" + id + "-p2",
		Client: "kubik-ptest-" + id + "-c", Pod1IP: "10.244.1.2", Pod2IP: "10.244.2.2", ClientIP: "10.244.3.2"}
	for _, n := range []string{tp.Node, tp.Pod1, tp.Pod2, tp.Client} {
		Run(t, "ip", "netns", "add", n)
		name := n
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
		Run(t, "ip", "-n", n, "link", "set", "lo", "up")
	}
	Run(t, "ip", "netns", "exec", tp.Node, "sysctl", "-qw", "net.ipv4.ip_forward=1")
	for i, peer := range []string{tp.Pod1, tp.Pod2, tp.Client} {
		// Both ends are created inside the node namespace, so the root
		// namespace never holds them.
		host, inner := fmt.Sprintf("kpt%s%d", id, i), fmt.Sprintf("kpe%s%d", id, i)
		Run(t, "ip", "-n", tp.Node, "link", "add", host, "type", "veth", "peer", "name", inner)
		Run(t, "ip", "-n", tp.Node, "link", "set", inner, "netns", peer)
		Run(t, "ip", "-n", tp.Node, "addr", "add", fmt.Sprintf("10.244.%d.1/24", i+1), "dev", host)
		Run(t, "ip", "-n", tp.Node, "link", "set", host, "up")
		Run(t, "ip", "-n", peer, "addr", "add", fmt.Sprintf("10.244.%d.2/24", i+1), "dev", inner)
		Run(t, "ip", "-n", peer, "link", "set", inner, "up")
		Run(t, "ip", "-n", peer, "route", "add", "default", "via", fmt.Sprintf("10.244.%d.1", i+1))
	}
	// A route for the Service CIDR, as a node's default route would be:
	// without one, a packet to a ClusterIP that is not DNATed (a Service
	// without endpoints) fails routing before the filter rules see it.
	Run(t, "ip", "-n", tp.Node, "route", "add", "10.96.0.0/12", "dev", fmt.Sprintf("kpt%s%d", id, 0))
	return tp
}

// Do runs f on an OS thread inside netns name (processes it starts inherit it).
func Do(t *testing.T, name string, f func() error) error {
	t.Helper()
	n, err := ns.GetNS("/run/netns/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	return n.Do(func(ns.NetNS) error { return f() })
}

// Serve answers every TCP connection to :port in netns name with reply,
// until the test ends.
func Serve(t *testing.T, name string, port int, reply string) {
	t.Helper()
	var l net.Listener
	if err := Do(t, name, func() (err error) {
		l, err = net.Listen("tcp4", fmt.Sprintf(":%d", port))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, reply)
			c.Close()
		}
	}()
}

// Dial connects from netns name to addr and returns what the server sent.
func Dial(t *testing.T, name, addr string) (string, error) {
	t.Helper()
	var out string
	err := Do(t, name, func() error {
		c, err := net.DialTimeout("tcp4", addr, 5*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		b, err := io.ReadAll(c)
		out = string(b)
		return err
	})
	return out, err
}
