package nodeagent

// Test helpers: an in-process chapter 1 apiserver, the binaries built once
// per test run, and polling.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/storage"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch06-cni/kubikcni"
)

// binDir holds kubik-node-agent, and kubik-cni with Debian's loopback
// plugin next to it (a CNI bin_dir); built only when the tests run as root.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if os.Geteuid() == 0 {
		dir, err := os.MkdirTemp("", "kubik-node-agent-test-bin-")
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
		for name, pkg := range map[string]string{
			"kubik-node-agent":  "kubik/ch06-cni/cmd/kubik-node-agent",
			kubikcni.PluginType: "kubik/ch06-cni/cmd/kubik-cni",
		} {
			build := exec.Command(gobin, "build", "-o", filepath.Join(dir, name), pkg)
			build.Stdout, build.Stderr = os.Stderr, os.Stderr
			if err := build.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "building %s: %v\n", pkg, err)
				return 1
			}
		}
		if _, err := os.Stat("/usr/lib/cni/loopback"); err == nil {
			if err := os.Symlink("/usr/lib/cni/loopback", filepath.Join(dir, "loopback")); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	}
	return m.Run()
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates network namespaces, a bridge, veths, routes and iptables rules in them")
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// testAPIServer is an in-process chapter 1 apiserver on in-memory storage.
type testAPIServer struct {
	url   string
	ca    *pki.CA
	admin *rest.Client
	dir   string
}

// startAPIServer serves on bindAddress (a free port), until the test ends.
func startAPIServer(t *testing.T, bindAddress string) *testAPIServer {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	opts := &app.Options{DataDir: dir, SecurePort: 0, BindAddress: bindAddress,
		ServiceClusterIPRange: "10.96.0.0/12", ServiceNodePortRange: "30000-32767",
		MinRequestTimeout: 1800, RequestTimeout: time.Minute, LogLevel: "error"}
	c, errc, err := app.Start(ctx, opts, storage.NewMemory(0), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-errc:
		case <-time.After(30 * time.Second):
			t.Log("the apiserver did not stop within 30s")
		}
	})
	admin, err := rest.New(c.AdminKubeconfig, "nodeagent-test")
	if err != nil {
		t.Fatal(err)
	}
	return &testAPIServer{url: c.URL, ca: c.CA, admin: admin, dir: dir}
}

// agentKubeconfig writes a kubeconfig with the agent's identity for node.
func (s *testAPIServer) agentKubeconfig(t *testing.T, node string) string {
	t.Helper()
	path := filepath.Join(s.dir, "node-agent-"+node+".kubeconfig")
	if err := s.ca.WriteIdentityKubeconfig(path, s.url, Identity(node)); err != nil {
		t.Fatal(err)
	}
	return path
}

// eventually polls cond until it returns nil; the last error fails the
// test after a generous deadline.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
