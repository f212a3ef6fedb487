//go:build linux

package main_test

// The frame of chapter 6's end-to-end tests: the ch06 binary started as
// root on a node network of its own (10.240.6.0/24: never the default
// 10.240.0.0/24 a reader's cluster uses, nor chapter 7's tests'
// 10.240.7.0/24), real kubectl binaries against it, and `ip` inside the
// machines' namespaces. A cluster is stopped the clean way (SIGTERM) and
// must leave nothing behind.

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/ch05-kubelet/node5"
	"kubik/ch06-cni/cluster6"
	"kubik/ch06-cni/fabric"
	"kubik/internal/testenv"
)

const (
	kubectl133 = "1.33"
	kubectl127 = "1.27"

	// testNodeCIDR is the node network of every cluster these tests start.
	testNodeCIDR = "10.240.6.0/24"
	clusterCIDR  = "10.244.0.0/16"
	serviceCIDR  = "10.96.0.0/12"
)

var (
	imagesOnce sync.Once
	imagesDir  string
	imagesErr  error
)

// TestMain removes the binaries and images the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if imagesDir != "" {
		os.RemoveAll(imagesDir)
	}
	testenv.RemoveBuilt()
	os.Exit(code)
}

// imageDir builds the image tarballs (pause, busybox, demo) once per test
// process; every cluster imports them from there.
func imageDir(t *testing.T) string {
	t.Helper()
	imagesOnce.Do(func() {
		if imagesDir, imagesErr = os.MkdirTemp("", "kubik-ch06-images-"); imagesErr == nil {
			imagesErr = images.Build(imagesDir)
		}
	})
	if imagesErr != nil {
		t.Fatal(imagesErr)
	}
	return imagesDir
}

// cluster is a running chapter 6 program: the control plane and its
// machines.
type cluster struct {
	c       *testenv.Cluster
	p       *testenv.Process
	dir     string // --data-dir
	backend string
	fab     fabric.Config
	nodes   []string
}

// startCluster builds and starts the ch06 binary with n machines on the
// test node network, skipping the test unless it runs as root on Linux. It
// waits until wantReady of the nodes are Ready (0: only for the apiserver).
// The cleanup stops the program with SIGTERM and checks that nothing of it
// is left.
func startCluster(t *testing.T, backend string, n, wantReady int, extraArgs ...string) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts network namespaces, containerd and real containers")
	}
	if os.Geteuid() != 0 {
		t.Skip("chapter 6's end-to-end tests make network namespaces and run containers: they need root (sudo go test ./ch06-cni/)")
	}
	testenv.Kubectl(t, kubectl133)
	testenv.Kubectl(t, kubectl127)
	if err := containerd.CheckHost(); err != nil {
		t.Skip(err)
	}
	imgs := imageDir(t)
	bin := testenv.Build(t, "kubik/ch06-cni")
	// Not t.TempDir(): the test's name would make the path of the node's
	// containerd socket (…/nodes/node-1/kubelet/containerd/containerd.sock.ttrpc)
	// longer than a unix socket path may be.
	dir, err := os.MkdirTemp("", "kubik6-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	fab, err := cluster6.FabricConfig(dir, testNodeCIDR, clusterCIDR, serviceCIDR, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{dir: dir, backend: backend, fab: fab}
	for i := 1; i <= n; i++ {
		c.nodes = append(c.nodes, fmt.Sprintf("node-%d", i))
	}
	port := testenv.FreePort(t)
	args := append([]string{"--data-dir", dir, "--secure-port", strconv.Itoa(port), "--nodes=" + strconv.Itoa(n),
		"--node-cidr=" + testNodeCIDR, "--backend=" + backend, "--image-dir", imgs}, extraArgs...)
	c.p = testenv.StartProcess(t, bin, args...)
	c.c = &testenv.Cluster{URL: "https://127.0.0.1:" + strconv.Itoa(port), Port: port, DataDir: dir,
		Kubeconfig: filepath.Join(dir, "admin.kubeconfig")}
	// Registered after StartProcess's cleanup, so it runs first.
	t.Cleanup(func() { c.stopAndCheckClean(t) })

	eventually(t, "the apiserver answers", func() (string, bool) {
		r := c.c.Kubectl(t, kubectl133, dir, "get", "--raw", "/readyz")
		return r.Combined() + c.p.Logs.String(), r.Stdout == "ok"
	})
	if wantReady > 0 {
		c.waitReady(t, wantReady)
	}
	return c
}

// waitReady waits until want nodes are Ready.
func (c *cluster) waitReady(t *testing.T, want int) {
	t.Helper()
	eventually(t, fmt.Sprintf("%d nodes Ready", want), func() (string, bool) {
		r := c.c.Kubectl(t, kubectl133, c.dir, "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
		return r.Combined(), strings.Count(r.Stdout, "=True\n") == want
	})
}

// k runs kubectl 1.33 and fails the test unless it exits 0.
func (c *cluster) k(t *testing.T, args ...string) string {
	t.Helper()
	return c.c.MustKubectl(t, kubectl133, c.dir, args...)
}

// apply writes a manifest into the data dir and applies it.
func (c *cluster) apply(t *testing.T, name, manifest string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, name), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	c.k(t, "apply", "-f", name)
}

// netns is the network namespace (a name under /run/netns) of a machine.
func (c *cluster) netns(node string) string { return c.fab.NamespaceName(node) }

// ip runs `ip -n <node's netns> args...` and returns its output.
func (c *cluster) ip(t *testing.T, node string, args ...string) string {
	t.Helper()
	out, err := exec.Command("ip", append([]string{"-n", c.netns(node)}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip -n %s %s: %v\n%s", c.netns(node), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// nodePID is the PID of a machine's node process (its node.pid file).
func (c *cluster) nodePID(t *testing.T, node string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, "nodes", node, "node.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// nodeLog is what a machine's node process logged so far.
func (c *cluster) nodeLog(node string) string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "logs", node+".log"))
	return string(b)
}

// podCIDR is a Node's spec.podCIDR ("" when it has none).
func (c *cluster) podCIDR(t *testing.T, node string) string {
	t.Helper()
	return c.k(t, "get", "node", node, "-o", "jsonpath={.spec.podCIDR}")
}

// stopAndCheckClean sends SIGTERM, waits for the program to exit (it stops
// each machine's node process, which removes its pods, then the machines),
// and checks that nothing of the cluster is left on the host.
func (c *cluster) stopAndCheckClean(t *testing.T) {
	var nodePIDs []int
	for _, n := range c.nodes {
		if b, err := os.ReadFile(filepath.Join(c.dir, "nodes", n, "node.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				nodePIDs = append(nodePIDs, pid)
			}
		}
	}
	syscall.Kill(c.p.Cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-c.p.Done:
	case <-time.After(3 * time.Minute):
		t.Errorf("the program did not exit within 3 minutes of SIGTERM")
		syscall.Kill(-c.p.Cmd.Process.Pid, syscall.SIGKILL)
		<-c.p.Done
	}
	if t.Failed() {
		for _, n := range c.nodes {
			t.Logf("%s's log:\n%s", n, c.nodeLog(n))
		}
	}
	var left []string
	for _, pid := range nodePIDs {
		if cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(cl), c.dir) {
			left = append(left, fmt.Sprintf("node process %d", pid))
		}
	}
	for _, n := range c.nodes {
		root := filepath.Join(c.dir, "nodes", n, "kubelet")
		rc := containerd.Config{Dir: filepath.Join(root, "containerd"), Name: node5.RuntimeName(root), NetNS: "/run/netns/" + c.netns(n)}
		left = append(left, containerd.Leftovers(rc)...)
	}
	left = append(left, fabric.Leftovers(c.fab)...)
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "kubik-"+c.fab.ID+"-") {
			left = append(left, "netns "+e.Name())
		}
	}
	links, _ := netlink.LinkList()
	otherFabric := ""
	for _, l := range links {
		name := l.Attrs().Name
		if strings.HasPrefix(name, "kve"+c.fab.ID) || name == c.fab.BridgeName() {
			left = append(left, "link "+name)
		} else if _, ok := l.(*netlink.Bridge); ok && strings.HasPrefix(name, "kbr") {
			otherFabric = name
		}
	}
	// The guard routes are shared by every cluster on the host: they stay
	// while another one (a bridge kbr*) is up.
	for _, g := range c.fab.Guards {
		if hasUnreachableRoute(g) && otherFabric == "" {
			left = append(left, "guard route unreachable "+g.String())
		}
	}
	if len(left) > 0 {
		t.Errorf("left behind after the program's exit:\n%s", strings.Join(left, "\n"))
		cluster6.CleanNodesCommand([]string{"--data-dir", c.dir, "--node-cidr", testNodeCIDR})
	}
}

func execOut(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

func hasUnreachableRoute(p netip.Prefix) bool {
	routes, err := netlink.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Table: unix.RT_TABLE_MAIN, Type: unix.RTN_UNREACHABLE}, netlink.RT_FILTER_TABLE|netlink.RT_FILTER_TYPE)
	if err != nil {
		return false
	}
	for _, r := range routes {
		if r.Dst != nil && r.Dst.String() == p.String() {
			return true
		}
	}
	return false
}

// eventually is testenv.Eventually with these tests' 5-minute limit: it
// turns a hang into a failure and is no performance bound (on a loaded
// machine importing a node's images alone has taken over a minute).
func eventually(t *testing.T, what string, f func() (string, bool)) {
	t.Helper()
	testenv.Eventually(t, what, 5*time.Minute, f)
}

// linkStats are the byte counters of a link inside a machine.
type linkStats struct{ RX, TX uint64 }

func (c *cluster) linkStats(t *testing.T, node, link string) linkStats {
	t.Helper()
	var out []struct {
		Stats64 struct {
			RX struct{ Bytes uint64 } `json:"rx"`
			TX struct{ Bytes uint64 } `json:"tx"`
		} `json:"stats64"`
	}
	if err := json.Unmarshal([]byte(c.ip(t, node, "-j", "-s", "link", "show", link)), &out); err != nil || len(out) != 1 {
		t.Fatalf("ip -j -s link show %s in %s: %v %+v", link, node, err, out)
	}
	return linkStats{RX: out[0].Stats64.RX.Bytes, TX: out[0].Stats64.TX.Bytes}
}
