package labtest_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/ch05-kubelet/node5"
	"kubik/internal/testenv"
)

// repoRoot is the repository, seen from this package's directory.
const repoRoot = "../.."

// chapterRun is how `make <target>` runs a chapter's program: the main
// package, its data dir, and the rest of its flags.
type chapterRun struct {
	pkg     string // kubik/ch03-scheduler
	dataDir string
	args    []string // without --data-dir and --secure-port
}

// makeRun reads the command line of `make -n target vars...`, so that the
// test runs a chapter exactly as a reader's make would.
func makeRun(t *testing.T, target string, vars ...string) chapterRun {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command("make", append([]string{"--no-print-directory", "-s", "-n", target}, vars...)...)
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %s: %v\n%s", target, err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(filepath.Base(f[0]), "ch") {
			continue
		}
		r := chapterRun{pkg: "kubik/" + filepath.Base(f[0])}
		for i := 1; i < len(f); i++ {
			switch f[i] {
			case "--data-dir":
				i++
				r.dataDir = f[i]
			case "--secure-port":
				i++
			default:
				r.args = append(r.args, f[i])
			}
		}
		if r.dataDir != "" {
			return r
		}
	}
	t.Fatalf("make -n %s runs no chapter program:\n%s", target, out)
	return chapterRun{}
}

var pidLine = regexp.MustCompile(`(?m)^pid: (\d+) \(in (\S+)\)$`)

// checkPIDFile: the banner, printed once the whole chapter has started,
// names the PID file, which holds that PID.
func checkPIDFile(t *testing.T, c *testenv.Cluster) string {
	t.Helper()
	var m []string
	testenv.Eventually(t, "the banner's pid: line", time.Minute, func() (string, bool) {
		m = pidLine.FindStringSubmatch(c.Logs())
		return c.Logs(), m != nil
	})
	b, err := os.ReadFile(m[2])
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(b)) != m[1] {
		t.Errorf("%s holds %q, the banner says pid %s", m[2], b, m[1])
	}
	return m[2]
}

// nodeNames are the cluster's nodes, sorted.
func nodeNames(t *testing.T, c *testenv.Cluster) []string {
	t.Helper()
	out := c.MustKubectl(t, "1.33", t.TempDir(), "get", "nodes", "-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}")
	return strings.Fields(out)
}

func waitNodes(t *testing.T, c *testenv.Cluster, want ...string) {
	t.Helper()
	testenv.Eventually(t, "nodes "+strings.Join(want, ","), 90*time.Second, func() (string, bool) {
		got := nodeNames(t, c)
		seen := map[string]bool{}
		for _, n := range got {
			seen[n] = true
		}
		for _, n := range want {
			if !seen[n] {
				return strings.Join(got, " "), false
			}
		}
		return strings.Join(got, " "), true
	})
}

func hollowNodes(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, "hollow-node-"+strconv.Itoa(i))
	}
	return out
}

// TestChaptersKeepTheirOwnState runs chapters one after another the way a
// reader does — each with the very command line `make chNN-run` runs, all
// under one .kubik — and checks that no chapter starts on what an earlier
// one left: chapter 3 leaves five hollow nodes and a ConfigMap behind,
// chapter 4 sees only its own three nodes and no such ConfigMap, and
// chapter 5 (as root) only its one real node. Chapter 3 run again finds its
// ConfigMap: each chapter's state stays where it was.
func TestChaptersKeepTheirOwnState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts chapters 3, 4 and (as root) 5")
	}
	testenv.Kubectl(t, "1.33")
	t.Cleanup(testenv.RemoveBuilt)
	kubik := t.TempDir()

	ch03 := makeRun(t, "ch03-run", "KUBIK_DIR="+kubik, "HOLLOW_NODES=5")
	bin3 := testenv.Build(t, ch03.pkg)
	c := testenv.Start(t, bin3, testenv.Options{DataDir: ch03.dataDir, Args: ch03.args})
	pidFile := checkPIDFile(t, c)
	waitNodes(t, c, hollowNodes(5)...)
	c.MustKubectl(t, "1.33", t.TempDir(), "create", "configmap", "left-by-ch03", "--from-literal=chapter=3")
	c.Stop()
	if _, err := os.Stat(pidFile); err == nil {
		t.Errorf("%s is still there after a clean exit", pidFile)
	}

	ch04 := makeRun(t, "ch04-run", "KUBIK_DIR="+kubik)
	c = testenv.Start(t, testenv.Build(t, ch04.pkg), testenv.Options{DataDir: ch04.dataDir, Args: ch04.args})
	checkPIDFile(t, c)
	// Once its own nodes are registered, any node left in a shared etcd
	// would be listed as well: it was there before this cluster started.
	waitNodes(t, c, hollowNodes(3)...)
	if got := nodeNames(t, c); strings.Join(got, " ") != strings.Join(hollowNodes(3), " ") {
		t.Errorf("chapter 4 after chapter 3: nodes %v, want only its own %v", got, hollowNodes(3))
	}
	if r := c.Kubectl(t, "1.33", t.TempDir(), "get", "configmap", "left-by-ch03"); r.ExitCode == 0 {
		t.Errorf("chapter 4 sees chapter 3's ConfigMap:\n%s", r.Combined())
	}
	c.Stop()

	c = testenv.Start(t, bin3, testenv.Options{DataDir: ch03.dataDir, Args: ch03.args})
	c.MustKubectl(t, "1.33", t.TempDir(), "get", "configmap", "left-by-ch03")
	c.Stop()

	startChapter5(t, kubik)
}

// startChapter5 runs chapter 5 as `make ch05-run` would after chapters 3
// and 4, with a node name, node IP and kubelet port of the test's own (so
// that it touches nothing of the machine's network nor a node another run
// has), and checks that its cluster has its one real node only.
func startChapter5(t *testing.T, kubik string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Log("chapter 5 needs root: not run")
		return
	}
	if err := containerd.CheckHost(); err != nil {
		t.Logf("chapter 5 cannot run here: %v", err)
		return
	}
	ch05 := makeRun(t, "ch05-run", "KUBIK_DIR="+kubik)
	imageDir := filepath.Join(kubik, "images")
	if err := images.Build(imageDir); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3)
	rand.Read(b)
	name := "kubik-seq-" + hex.EncodeToString(b)
	port, kubeletPort := testenv.FreePort(t), testenv.FreePort(t)
	args := append([]string{"--data-dir", ch05.dataDir, "--secure-port", strconv.Itoa(port)}, ch05.args...)
	args = append(args, "--hostname-override", name, "--node-ip", "127.0.0.1", "--port", strconv.Itoa(kubeletPort))
	p := testenv.StartProcess(t, testenv.Build(t, ch05.pkg), args...)
	root, err := filepath.Abs(filepath.Join(ch05.dataDir, "kubelet"))
	if err != nil {
		t.Fatal(err)
	}
	rc := containerd.Config{Dir: filepath.Join(root, "containerd"), Name: node5.RuntimeName(root)}
	t.Cleanup(func() {
		// SIGTERM: the program removes its pods and stops containerd;
		// StartProcess's cleanup (SIGKILL) runs after this one.
		syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.Done:
		case <-time.After(2 * time.Minute):
			t.Errorf("chapter 5 did not exit within 2 minutes of SIGTERM")
		}
		if left := containerd.Leftovers(rc); len(left) > 0 {
			t.Errorf("chapter 5 left behind:\n%s", strings.Join(left, "\n"))
			containerd.Cleanup(rc, nil)
		}
	})
	c := &testenv.Cluster{URL: "https://127.0.0.1:" + strconv.Itoa(port), Port: port, DataDir: ch05.dataDir,
		Kubeconfig: filepath.Join(ch05.dataDir, "admin.kubeconfig")}
	testenv.Eventually(t, "chapter 5's node Ready", 3*time.Minute, func() (string, bool) {
		r := c.Kubectl(t, "1.33", t.TempDir(), "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.status.nodeInfo.containerRuntimeVersion} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
		return r.Combined() + p.Logs.String(), r.ExitCode == 0 && strings.Contains(r.Stdout, name+" containerd://")
	})
	got := nodeNames(t, c)
	if len(got) != 1 || got[0] != name {
		t.Errorf("chapter 5 after chapters 3 and 4: nodes %v, want only its real node %s", got, name)
	}
	t.Logf("chapter 5 in %s: nodes %v", ch05.dataDir, got)
}
