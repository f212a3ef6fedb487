//go:build linux

package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/internal/testenv"
)

// node is a running chapter 5 program for one test: the cluster, its real
// node (kubelet + containerd) and a CRI client to that containerd.
type node struct {
	t           *testing.T
	c           *testenv.Cluster
	p           *testenv.Process
	dir         string // --data-dir; also where the test writes its manifests
	name        string // the Node's name
	netns       string // the node's network namespace (a name under /run/netns)
	kubeletPort int    // the kubelet API's port (--port)
	rc          containerd.Config
	rt          cri.RuntimeServiceClient
}

// startNode builds and starts the ch05 binary as root (skipping the test
// when that is impossible) with extra flags, and waits for the node to be
// Ready. The cleanup stops it with SIGTERM and checks that nothing of the
// node is left behind.
func startNode(t *testing.T, extraArgs ...string) *node {
	t.Helper()
	if testing.Short() {
		t.Skip("starts containerd and real containers")
	}
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("chapter 5's end-to-end tests run containers: they need Linux and root (CI runs them as root; locally: sudo go test ./ch05-kubelet/)")
	}
	ensureDeps(t)
	testenv.Kubectl(t, kubectl133)
	dir := t.TempDir()
	if err := images.Build(filepath.Join(dir, "images")); err != nil {
		t.Fatal(err)
	}
	bin := testenv.Build(t, "kubik/ch05-kubelet")

	n := &node{t: t, dir: dir, name: "kubik-e2e-node"}
	port := testenv.FreePort(t)
	n.kubeletPort = testenv.FreePort(t)
	args := append([]string{"--data-dir", dir, "--secure-port", itoa(port), "--hostname-override", n.name,
		"--node-ip", "127.0.0.1", "--port", itoa(n.kubeletPort)}, extraArgs...) // the kubelet API on a free port too
	n.p = testenv.StartProcess(t, bin, args...)
	n.c = &testenv.Cluster{URL: "https://127.0.0.1:" + itoa(port), Port: port, DataDir: dir, Kubeconfig: filepath.Join(dir, "admin.kubeconfig")}

	// Registered after StartProcess's cleanup, so it runs first: stop the
	// program the clean way (SIGTERM) and check that it left nothing.
	t.Cleanup(func() { stopAndCheckClean(t, n.p, n.rc) })

	// The apiserver is ready first, then the node's containerd starts.
	started := regexp.MustCompile(`msg="containerd started".* netns=/run/netns/(\S+)`)
	n.eventually("containerd started", func() (string, bool) {
		return n.p.Logs.String(), n.p.LogMatch(started) != ""
	})
	n.netns = n.p.LogMatch(started)
	n.rc = containerd.Config{Dir: filepath.Join(dir, "kubelet", "containerd"), Name: n.netns}
	n.rt = criClient(t, n.rc.Endpoint())

	n.eventually("node Ready", func() (string, bool) {
		r := n.c.Kubectl(t, kubectl133, dir, "get", "node", n.name, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status} {.metadata.labels.kubernetes\.io/hostname} {.status.nodeInfo.containerRuntimeVersion}`)
		return r.Combined(), strings.HasPrefix(r.Stdout, "True "+n.name+" containerd://")
	})
	return n
}

// k runs kubectl 1.33 against the cluster and fails the test on an error.
func (n *node) k(args ...string) string {
	n.t.Helper()
	return n.c.MustKubectl(n.t, kubectl133, n.dir, args...)
}

// eventually is testenv.Eventually with the node tests' 90 s limit.
func (n *node) eventually(what string, f func() (string, bool)) {
	n.t.Helper()
	testenv.Eventually(n.t, what, 90*time.Second, f)
}

// apply writes a manifest into the data dir and applies it.
func (n *node) apply(name, manifest string) {
	n.t.Helper()
	writeFile(n.t, n.dir, name, manifest)
	n.k("apply", "-f", name)
}
