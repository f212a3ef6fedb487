package kubikcni_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/types"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/containernetworking/plugins/pkg/testutils"
	"github.com/vishvananda/netlink"

	"kubik/ch06-cni/kubikcni"
)

// binDir holds the kubik-cni binary built once for the whole test run, and
// Debian's loopback plugin (containerd runs it for every pod's lo).
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kubik-cni-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	build := exec.Command(gobin, "build", "-o", filepath.Join(dir, kubikcni.PluginType), "kubik/ch06-cni/cmd/kubik-cni")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building kubik-cni:", err)
		return 1
	}
	if _, err := os.Stat("/usr/lib/cni/loopback"); err == nil {
		if err := os.Symlink("/usr/lib/cni/loopback", filepath.Join(dir, "loopback")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates network namespaces, bridges and veths")
	}
}

func randomID(prefix string) string {
	b := make([]byte, 6)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// testNode is a "node" of the test: a network namespace in which libcni
// execs the plugin (as containerd, running in the node's namespace, does),
// with its own subnet file, IPAM directory and libcni cache.
type testNode struct {
	t          *testing.T
	ns         ns.NetNS
	dir        string
	subnetFile string
	dataDir    string
	cni        *libcni.CNIConfig
	list       *libcni.NetworkConfigList
}

const networkName = "kubik-test"

// newNode makes a node netns with the subnet file written (subnet "" leaves
// it unwritten). pluginExtra is appended to the plugin's conflist entry.
func newNode(t *testing.T, cniVersion, subnet string, mtu int, pluginExtra string) *testNode {
	t.Helper()
	requireRoot(t)
	nodeNS, err := testutils.NewNS()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		nodeNS.Close()
		if err := testutils.UnmountNS(nodeNS); err != nil {
			t.Errorf("removing the node netns: %v", err)
		}
	})
	dir := t.TempDir()
	n := &testNode{
		t:          t,
		ns:         nodeNS,
		dir:        dir,
		subnetFile: filepath.Join(dir, "run", "subnet.env"),
		dataDir:    filepath.Join(dir, "ipam"),
		cni:        libcni.NewCNIConfigWithCacheDir([]string{binDir}, filepath.Join(dir, "cni-cache"), defaultExec()),
	}
	if subnet != "" {
		n.writeSubnet(subnet, mtu)
	}
	conflist := fmt.Sprintf(`{"cniVersion":%q,"name":%q,"plugins":[
		{"type":"kubik-cni","subnetFile":%q,"dataDir":%q%s}]}`, cniVersion, networkName, n.subnetFile, n.dataDir, pluginExtra)
	n.list, err = libcni.ConfListFromBytes([]byte(conflist))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// defaultExec is libcni's default exec, passed explicitly: with nil, libcni
// creates it lazily and racily on first use, and ADDs run concurrently here.
func defaultExec() invoke.Exec {
	return &invoke.DefaultExec{RawExec: &invoke.RawExec{Stderr: os.Stderr}, PluginDecoder: version.PluginDecoder{}}
}

func (n *testNode) writeSubnet(subnet string, mtu int) {
	n.t.Helper()
	err := kubikcni.WriteSubnetFile(n.subnetFile, kubikcni.SubnetConfig{
		Network: netip.MustParsePrefix("10.244.0.0/16"),
		Subnet:  netip.MustParsePrefix(subnet),
		MTU:     mtu,
	})
	if err != nil {
		n.t.Fatal(err)
	}
}

// do runs fn on an OS thread inside the node's netns; plugins libcni execs
// from there inherit the namespace.
func (n *testNode) do(fn func() error) error {
	return n.ns.Do(func(ns.NetNS) error { return fn() })
}

// newPod makes a pod netns, removed at cleanup.
func (n *testNode) newPod() ns.NetNS {
	n.t.Helper()
	pod, err := testutils.NewNS()
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { removeNS(n.t, pod) })
	return pod
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

func rt(containerID string, pod ns.NetNS) *libcni.RuntimeConf {
	return &libcni.RuntimeConf{ContainerID: containerID, NetNS: pod.Path(), IfName: "eth0"}
}

func (n *testNode) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 2*time.Minute)
}

func (n *testNode) add(containerID string, pod ns.NetNS) (*current.Result, error) {
	ctx, cancel := n.ctx()
	defer cancel()
	var res types.Result
	err := n.do(func() (err error) {
		res, err = n.cni.AddNetworkList(ctx, n.list, rt(containerID, pod))
		return err
	})
	if err != nil {
		return nil, err
	}
	return current.NewResultFromResult(res)
}

func (n *testNode) mustAdd(containerID string, pod ns.NetNS) *current.Result {
	n.t.Helper()
	res, err := n.add(containerID, pod)
	if err != nil {
		n.t.Fatalf("ADD %s: %v", containerID, err)
	}
	return res
}

func (n *testNode) del(containerID string, pod ns.NetNS) error {
	return n.delRT(rt(containerID, pod))
}

func (n *testNode) delRT(r *libcni.RuntimeConf) error {
	ctx, cancel := n.ctx()
	defer cancel()
	return n.do(func() error { return n.cni.DelNetworkList(ctx, n.list, r) })
}

func (n *testNode) check(containerID string, pod ns.NetNS) error {
	ctx, cancel := n.ctx()
	defer cancel()
	return n.do(func() error { return n.cni.CheckNetworkList(ctx, n.list, rt(containerID, pod)) })
}

// links lists the node netns's link names, sorted.
func (n *testNode) links() []string {
	n.t.Helper()
	var names []string
	err := n.do(func() error {
		links, err := netlink.LinkList()
		for _, l := range links {
			names = append(names, l.Attrs().Name)
		}
		return err
	})
	if err != nil {
		n.t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// ipFiles lists the IPAM allocation files of the test network.
func (n *testNode) ipFiles() []string {
	n.t.Helper()
	entries, err := os.ReadDir(filepath.Join(n.dataDir, networkName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		n.t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if _, err := netip.ParseAddr(e.Name()); err == nil {
			names = append(names, e.Name())
		}
	}
	return names
}

// cniCode is the CNI error code of err, or -1.
func cniCode(err error) int {
	var e *types.Error
	if errors.As(err, &e) {
		return int(e.Code)
	}
	return -1
}
