package nodeipam

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"kubik/ch04-controllers/cluster4"
	"kubik/internal/testenv"
)

// startCluster4 runs chapter 4's cluster in this process — the apiserver on
// an embedded etcd in dataDir, kube-scheduler, kube-controller-manager with
// the node-ipam-controller added as Config.Extra, no hollow nodes — and
// returns its admin kubeconfig. It stops with the test, or when stop is
// called.
func startCluster4(t *testing.T, dataDir string) (kubeconfig string, stop func()) {
	t.Helper()
	cfg := cluster4.NewConfig()
	opts := chapter6()
	cfg.ControllerManager.Extra = append(cfg.ControllerManager.Extra, Descriptor(opts))
	fs := flag.NewFlagSet("ch06", flag.ContinueOnError)
	cfg.AddFlags(fs)
	opts.AddFlags(fs)
	if err := fs.Parse([]string{"--data-dir=" + dataDir, "--secure-port=0", "--hollow-nodes=0", "--leader-elect=false",
		"--log-level=warn"}); err != nil {
		t.Fatal(err)
	}
	opts.ServiceCIDR = cfg.ServiceClusterIPRange
	logf, err := os.OpenFile(dataDir+"/test.log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := context.WithCancel(context.Background())
	c, err := cluster4.Start(ctx, cfg, log)
	if err != nil {
		cancel()
		logf.Close()
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			c.Stop()
			cancel()
			logf.Close()
		}
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			b, _ := os.ReadFile(dataDir + "/test.log")
			t.Logf("cluster log:\n%s", b)
		}
	})
	return c.AdminKubeconfig, stop
}

type kubectl struct {
	t          *testing.T
	bin        string
	kubeconfig string
	home       string // kubectl's discovery cache goes here, not to the user's
}

func (k kubectl) run(stdin string, args ...string) string {
	k.t.Helper()
	cmd := exec.Command(k.bin, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECONFIG=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (k kubectl) createNode(name string) {
	k.t.Helper()
	k.run(fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n", name), "create", "-f", "-")
}

// podCIDRs waits until every Node in want has its podCIDR, then returns
// "name podCIDR podCIDRs" per Node, as kubectl prints them.
func (k kubectl) podCIDRs(want map[string]string) map[string]string {
	k.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := map[string]string{}
		out := k.run("", "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.spec.podCIDR} {.spec.podCIDRs}{"\n"}{end}`)
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if name, rest, ok := strings.Cut(line, " "); ok {
				got[name] = rest
			}
		}
		complete := true
		for name := range want {
			if f := strings.Fields(got[name]); len(f) < 2 {
				complete = false
			}
		}
		if complete || time.Now().After(deadline) {
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestChapter4ClusterAllocates runs the controller inside a real chapter 4
// cluster: Nodes created with kubectl get their blocks, a deleted Node's
// block is skipped by the round-robin, and after the whole cluster is
// restarted on the same etcd the controller knows which blocks are taken
// and hands out the one freed before.
func TestChapter4ClusterAllocates(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	k := kubectl{t: t, bin: testenv.Kubectl(t, "1.33"), home: t.TempDir()}
	dataDir := t.TempDir()
	var stop func()
	k.kubeconfig, stop = startCluster4(t, dataDir)

	check := func(want map[string]string) {
		t.Helper()
		got := k.podCIDRs(want)
		for name, cidr := range want {
			if w := cidr + " [\"" + cidr + "\"]"; got[name] != w {
				t.Errorf("%s: %q, want %q", name, got[name], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("nodes %v, want %v", got, want)
		}
	}
	for _, n := range []string{"node-1", "node-2", "node-3"} {
		k.createNode(n)
		k.podCIDRs(map[string]string{n: ""})
	}
	check(map[string]string{"node-1": "10.244.0.0/24", "node-2": "10.244.1.0/24", "node-3": "10.244.2.0/24"})

	k.run("", "delete", "node", "node-2")
	k.createNode("node-4")
	check(map[string]string{"node-1": "10.244.0.0/24", "node-3": "10.244.2.0/24", "node-4": "10.244.3.0/24"})

	// Restart: a new controller manager rebuilds the bitmap from the Nodes.
	stop()
	k.kubeconfig, _ = startCluster4(t, dataDir)
	k.createNode("node-5")
	k.podCIDRs(map[string]string{"node-5": ""})
	k.createNode("node-6")
	check(map[string]string{"node-1": "10.244.0.0/24", "node-3": "10.244.2.0/24", "node-4": "10.244.3.0/24",
		"node-5": "10.244.1.0/24", "node-6": "10.244.4.0/24"})
}
