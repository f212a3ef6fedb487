package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Sandbox is a network namespace for a test's processes in which every
// packet they send to an address outside loopback is counted. Its only way
// out is a veth pair into a second namespace, the sink, that forwards
// nothing: what is sent there goes no further. An nftables rule on the
// sandbox's output hook records each such destination in a set, so a test
// can assert that the programs it ran never tried to reach the machine's
// network (the chapter programs should talk only to loopback and to
// namespaces the project made).
//
// Needs root, ip(8) and nft(8); NewSandbox skips the test otherwise.
type Sandbox struct {
	Name string // the sandbox namespace, /run/netns/<Name>
	sink string
}

// sandboxProbe is where Probe sends its one packet: TEST-NET-2, routable
// nowhere, and dropped by the sink anyway.
const sandboxProbe = "198.51.100.7"

// NewSandbox creates the two namespaces and the counting rule; they are
// removed when the test ends.
func NewSandbox(t testing.TB) *Sandbox {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the network sandbox needs root")
	}
	for _, tool := range []string{"ip", "nft", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the network sandbox needs %s", tool)
		}
	}
	b := make([]byte, 3)
	rand.Read(b)
	id := hex.EncodeToString(b)
	s := &Sandbox{Name: "kubik-sbx-" + id, sink: "kubik-sink-" + id}
	t.Cleanup(func() {
		exec.Command("ip", "netns", "del", s.Name).Run()
		exec.Command("ip", "netns", "del", s.sink).Run()
	})
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("ip", "netns", "add", s.Name)
	run("ip", "netns", "add", s.sink)
	run("ip", "-n", s.Name, "link", "set", "lo", "up")
	run("ip", "-n", s.Name, "link", "add", "out0", "type", "veth", "peer", "name", "in0", "netns", s.sink)
	run("ip", "-n", s.Name, "addr", "add", "169.254.77.1/30", "dev", "out0")
	run("ip", "-n", s.Name, "link", "set", "out0", "up")
	run("ip", "-n", s.sink, "addr", "add", "169.254.77.2/30", "dev", "in0")
	run("ip", "-n", s.sink, "link", "set", "in0", "up")
	// A default route, so that a connect to anywhere leaves a packet to
	// count instead of failing before the output hook.
	run("ip", "-n", s.Name, "route", "add", "default", "via", "169.254.77.2")
	run("ip", "-n", s.Name, "-6", "route", "add", "default", "dev", "out0")
	rules := `table inet kubik_egress {
	set seen4 { type ipv4_addr; flags dynamic; size 1024; }
	set seen6 { type ipv6_addr; flags dynamic; size 1024; }
	chain output {
		type filter hook output priority 0; policy accept;
		oifname "lo" accept
		# the kernel's own neighbour discovery and group reports on the veth
		ip daddr 224.0.0.0/24 accept
		ip6 daddr ff02::/16 accept
		meta nfproto ipv4 add @seen4 { ip daddr }
		meta nfproto ipv6 add @seen6 { ip6 daddr }
	}
}
`
	cmd := exec.Command("ip", "netns", "exec", s.Name, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nft: %v\n%s", err, out)
	}
	return s
}

// Wrap returns argv run inside the sandbox (nsenter --net: only the
// network namespace changes).
func (s *Sandbox) Wrap(argv ...string) []string {
	return append([]string{"nsenter", "--net=/run/netns/" + s.Name, "--"}, argv...)
}

// DialContext opens a TCP connection from inside the sandbox (a socket
// keeps the namespace it was made in), so a test in the machine's own
// namespace can reach a server on the sandbox's loopback.
func (s *Sandbox) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// This thread's namespace is changed and never changed back: the
		// thread ends with the goroutine (LockOSThread without Unlock).
		runtime.LockOSThread()
		f, err := os.Open("/run/netns/" + s.Name)
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{nil, err}
			return
		}
		c, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, network, addr)
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}

// Probe sends one TCP SYN from the sandbox to a TEST-NET address: the
// positive witness that the counting works (Destinations must list it).
func (s *Sandbox) Probe(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if c, err := s.DialContext(ctx, "tcp", net.JoinHostPort(sandboxProbe, "9")); err == nil {
		c.Close()
	}
	return sandboxProbe
}

// Destinations are the non-loopback addresses anything in the sandbox
// sent a packet to so far.
func (s *Sandbox) Destinations(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, set := range []string{"seen4", "seen6"} {
		b, err := exec.Command("ip", "netns", "exec", s.Name, "nft", "list", "set", "inet", "kubik_egress", set).CombinedOutput()
		if err != nil {
			t.Fatalf("nft list set %s: %v\n%s", set, err, b)
		}
		text := string(b)
		i := strings.Index(text, "elements = {")
		if i < 0 {
			continue
		}
		text = text[i+len("elements = {"):]
		text = text[:strings.Index(text, "}")]
		for _, e := range strings.Split(text, ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

// String names the sandbox in messages.
func (s *Sandbox) String() string { return fmt.Sprintf("network sandbox %s", s.Name) }
