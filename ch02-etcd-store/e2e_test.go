package main_test

// End-to-end tests of chapter 2 with the real kubectl 1.33 against the real
// ch02 binary: state survives a restart (embedded etcd), two apiservers share
// one etcd (Debian's etcd binary), and losing etcd makes requests fail fast
// with a 504 until etcd is back — without restarting the apiservers.

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kubik/ch02-etcd-store/etcdstore"
	"kubik/internal/testenv"
)

const kubectlVersion = "1.33"

// TestRestartKeepsState: objects written before a restart are there after
// it, with the same resourceVersions, and new writes get larger ones.
func TestRestartKeepsState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the apiserver with an embedded etcd")
	}
	testenv.Kubectl(t, kubectlVersion)
	bin := testenv.Build(t, "kubik/ch02-etcd-store")
	dir := t.TempDir()

	c := testenv.Start(t, bin, testenv.Options{DataDir: dir})
	mustKubectl(t, c, "create", "configmap", "survivor", "--from-literal=k=v")
	rv1 := mustKubectl(t, c, "get", "configmap", "survivor", "-o", "jsonpath={.metadata.resourceVersion}")
	c.Stop()

	c = testenv.Start(t, bin, testenv.Options{DataDir: dir})
	if got := mustKubectl(t, c, "get", "configmap", "survivor", "-o", "jsonpath={.data.k} {.metadata.resourceVersion}"); got != "v "+rv1 {
		t.Errorf("after a restart: configmap survivor is %q, want %q", got, "v "+rv1)
	}
	mustKubectl(t, c, "create", "configmap", "newer")
	rv2 := mustKubectl(t, c, "get", "configmap", "newer", "-o", "jsonpath={.metadata.resourceVersion}")
	if atoi(t, rv2) <= atoi(t, rv1) {
		t.Errorf("resourceVersion after the restart %s is not larger than before it %s", rv2, rv1)
	}
	// Bootstrap found its objects and created no second set.
	if got := mustKubectl(t, c, "get", "ns", "-o", "name"); got != "namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system" {
		t.Errorf("namespaces after a restart:\n%s", got)
	}
}

// TestSharedEtcd: two apiservers on one external etcd serve one cluster;
// with etcd stopped they answer 504 quickly and /readyz fails; once etcd is
// back, they work again on their own, and a watch opened before the outage
// goes on (etcd's client resumes it from the last revision it saw).
func TestSharedEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and two apiservers")
	}
	testenv.Kubectl(t, kubectlVersion)
	etcdBin := ensureEtcd(t)
	bin := testenv.Build(t, "kubik/ch02-etcd-store")

	e := startEtcd(t, etcdBin, t.TempDir(), 0, 0)
	flags := []string{"--etcd-servers", e.url}
	a := testenv.Start(t, bin, testenv.Options{Args: flags})
	b := testenv.Start(t, bin, testenv.Options{Args: flags})

	// Create through a; get and watch through b.
	mustKubectl(t, a, "create", "configmap", "first")
	watch := startWatch(t, b, "get", "configmaps", "-w", "--output-watch-events")
	waitOutput(t, watch, `ADDED\s+first\s`, time.Minute) // kubectl has listed and is watching
	mustKubectl(t, a, "create", "configmap", "shared", "--from-literal=k=v")
	rvA := mustKubectl(t, a, "get", "configmap", "shared", "-o", "jsonpath={.metadata.resourceVersion}")
	rvB := mustKubectl(t, b, "get", "configmap", "shared", "-o", "jsonpath={.data.k} {.metadata.resourceVersion}")
	if rvB != "v "+rvA {
		t.Errorf("through the second apiserver: %q, want %q", rvB, "v "+rvA)
	}
	waitOutput(t, watch, `ADDED\s+shared\s`, time.Minute)
	// In etcd: the apiserver's key and JSON, as `etcdctl get` would print them.
	if kv := etcdGet(t, e.url, "/registry/configmaps/default/shared"); !strings.HasPrefix(kv, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"shared"`) {
		t.Errorf("etcd holds %s", kv)
	}
	mustKubectl(t, b, "label", "configmap", "shared", "x=y")
	waitOutput(t, watch, `MODIFIED\s+shared\s`, time.Minute)

	// etcd goes away: requests fail with a 504 that names etcd, from the
	// apiserver's call timeout — before the request's own, kubectl's
	// --request-timeout, after which kubectl would give up on its own or
	// the apiserver answer "request did not complete within requested
	// timeout" instead.
	e.stop()
	r := a.Kubectl(t, kubectlVersion, t.TempDir(), "get", "configmap", "shared", "--request-timeout=30s")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "Error from server (Timeout)") || !strings.Contains(r.Stderr, "storage is unavailable: etcd") {
		t.Errorf("get with etcd down: exit %d, stderr %q; want a Timeout (504) naming etcd", r.ExitCode, r.Stderr)
	}
	r = b.Kubectl(t, kubectlVersion, t.TempDir(), "create", "configmap", "lost", "--request-timeout=30s")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "Timeout: storage is unavailable: etcd") {
		t.Errorf("create with etcd down: exit %d, stderr %q; want a Timeout (504) naming etcd", r.ExitCode, r.Stderr)
	}
	if code, body := readyz(t, a); code != http.StatusInternalServerError || !strings.Contains(body, "[-]etcd failed") {
		t.Errorf("/readyz with etcd down: %d %q, want 500 with [-]etcd failed", code, body)
	}

	// etcd is back, on the same ports and data: everything works again.
	e = startEtcd(t, etcdBin, e.dir, e.clientPort, e.peerPort)
	for _, c := range []*testenv.Cluster{a, b} {
		waitReadyz(t, c, time.Minute)
	}
	if got := mustKubectl(t, b, "get", "configmap", "shared", "-o", "jsonpath={.metadata.labels.x}"); got != "y" {
		t.Errorf("after etcd came back: label x = %q, want y", got)
	}
	mustKubectl(t, a, "create", "configmap", "after")
	mustKubectl(t, b, "get", "configmap", "after")
	waitOutput(t, watch, `ADDED\s+after\s`, time.Minute)
}

// ---- etcd, the Debian binary ----

// ensureEtcd returns the etcd binary, installing Debian's etcd-server when it
// is missing (scripts/ensure-deps.sh); the test skips if that is impossible.
func ensureEtcd(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("etcd"); err == nil {
		return p
	}
	out, err := exec.Command("../scripts/ensure-deps.sh", "etcd=etcd-server").CombinedOutput()
	if p, lerr := exec.LookPath("etcd"); lerr == nil {
		return p
	}
	t.Skipf("no etcd binary and installing etcd-server failed (%v):\n%s", err, out)
	return ""
}

type etcdProc struct {
	url                  string
	dir                  string
	clientPort, peerPort int
	stop                 func()
}

// startEtcd runs etcd in dir on the given ports (0: free ones) and waits
// until it answers — and is the etcd we started, not someone else's on the port.
func startEtcd(t *testing.T, bin, dir string, clientPort, peerPort int) *etcdProc {
	t.Helper()
	if clientPort == 0 {
		clientPort, peerPort = testenv.FreePort(t), testenv.FreePort(t)
	}
	name := fmt.Sprintf("kubik-test-%d", os.Getpid())
	url := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--name", name, "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", url, "--advertise-client-urls", url,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", name+"="+peer, "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			syscall.Kill(cmd.Process.Pid, syscall.SIGTERM) // our etcd, by its PID
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}
		})
	}
	t.Cleanup(stop)

	store, err := etcdstore.New(etcdstore.Config{Endpoints: []string{url}, CallTimeout: time.Second,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	testenv.Eventually(t, "etcd answers", time.Minute, func() (string, bool) {
		select {
		case <-done:
			t.Fatalf("etcd exited:\n%s", logs.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		members, err := store.Client().MemberList(ctx)
		cancel()
		if err != nil {
			return err.Error(), false
		}
		if len(members.Members) != 1 || members.Members[0].Name != name {
			t.Fatalf("another etcd answers on port %d: %v", clientPort, members.Members)
		}
		return "", true
	})
	return &etcdProc{url: url, dir: dir, clientPort: clientPort, peerPort: peerPort, stop: stop}
}

// etcdGet reads one key straight from etcd.
func etcdGet(t *testing.T, url, key string) string {
	t.Helper()
	store, err := etcdstore.New(etcdstore.Config{Endpoints: []string{url}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	kv, err := store.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("etcd get %s: %v", key, err)
	}
	return string(kv.Value)
}

// ---- kubectl and HTTP helpers ----

func mustKubectl(t *testing.T, c *testenv.Cluster, args ...string) string {
	t.Helper()
	r := c.Kubectl(t, kubectlVersion, t.TempDir(), args...)
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: exit %d\n%s", strings.Join(args, " "), r.ExitCode, r.Combined())
	}
	return strings.TrimSpace(r.Stdout)
}

type bgKubectl struct {
	out  testenv.SyncBuffer
	args []string
}

// startWatch runs a long kubectl (get -w) in the background until the test ends.
func startWatch(t *testing.T, c *testenv.Cluster, args ...string) *bgKubectl {
	t.Helper()
	bk := &bgKubectl{args: args}
	full := append([]string{"--kubeconfig", c.Kubeconfig, "--cache-dir", filepath.Join(t.TempDir(), "cache")}, args...)
	cmd := exec.Command(testenv.Kubectl(t, kubectlVersion), full...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stdout, cmd.Stderr = &bk.out, &bk.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(cmd.Process.Pid, syscall.SIGTERM) // our kubectl, by its PID
		<-done
	})
	return bk
}

// waitOutput waits (testenv.Eventually) until the output matches the
// regular expression want.
func waitOutput(t *testing.T, bk *bgKubectl, want string, timeout time.Duration) {
	t.Helper()
	re := regexp.MustCompile(want)
	testenv.Eventually(t, fmt.Sprintf("kubectl %s prints %q", strings.Join(bk.args, " "), want), timeout, func() (string, bool) {
		out := bk.out.String()
		return out, re.MatchString(out)
	})
}

var insecure = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

func readyz(t *testing.T, c *testenv.Cluster) (int, string) {
	t.Helper()
	resp, err := insecure.Get(c.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// waitReadyz waits (testenv.Eventually) until /readyz answers 200.
func waitReadyz(t *testing.T, c *testenv.Cluster, timeout time.Duration) {
	t.Helper()
	testenv.Eventually(t, c.URL+"/readyz ok", timeout, func() (string, bool) {
		code, body := readyz(t, c)
		return fmt.Sprintf("%d %s", code, body), code == http.StatusOK
	})
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", s, err)
	}
	return n
}
