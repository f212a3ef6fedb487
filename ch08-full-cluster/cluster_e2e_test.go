package main_test

// The whole cluster on this host, end to end: `ch08-full-cluster up`
// with the default topology (3 control-plane machines, a load balancer, 2
// workers) on the node network 10.240.9.0/24 (chapters 6 and 7 and the
// cloud controller manager's tests use 10.240.6-8), then every drill of
// package drills against it, one after the other — each restores what it
// broke, so one cluster serves them all — and last a kill -9 of the
// cluster's process followed by `down`, which must leave nothing behind.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/node5"
	"kubik/ch06-cni/fabric"
	"kubik/ch08-full-cluster/cluster8"
	"kubik/ch08-full-cluster/drills"
	"kubik/ch08-full-cluster/provision"
	"kubik/ch08-full-cluster/supervisor"
	"kubik/internal/labtest"
	"kubik/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// nodeCIDR is this chapter's tests' node network, always.
const nodeCIDR = "10.240.9.0/24"

// wait bounds every poll: it turns a hang into a failure.
const wait = 5 * time.Minute

// The binaries a cluster runs, all built by one `go build`.
var components = []string{
	"kubik/ch08-full-cluster", "kubik/ch08-full-cluster/cmd/kubik-supervisor", "kubik/ch08-full-cluster/cmd/etcd",
	"kubik/ch08-full-cluster/cmd/kube-apiserver", "kubik/ch08-full-cluster/cmd/kube-controller-manager",
	"kubik/ch08-full-cluster/cmd/cloud-controller-manager", "kubik/ch03-scheduler/cmd/kube-scheduler",
	"kubik/ch05-kubelet/cmd/kubelet", "kubik/ch06-cni/cmd/kubik-node-agent", "kubik/ch06-cni/cmd/kubik-cni",
	"kubik/ch07-kube-proxy/cmd/kube-proxy", "kubik/ch07-kube-proxy/cmd/mkimages",
}

// e2e is the test's cluster.
type e2e struct {
	t       *testing.T
	bin     string // the binaries
	dataDir string
	kubectl string
	home    string
	up      *exec.Cmd
	upDone  chan struct{}
	upLog   *testenv.SyncBuffer
	c       *cluster8.Cluster
}

func requireHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the machines are network namespaces, the workers run containerd")
	}
	if err := containerd.CheckHost(); err != nil {
		t.Skip(err)
	}
	for _, tool := range []string{"haproxy", "etcdctl", "curl", "nsenter", "ip", "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	if out, _ := exec.Command("ip", "-4", "route", "show", nodeCIDR).Output(); len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("%s is already routed on this host (another run?): %s", nodeCIDR, out)
	}
}

// buildAll builds every binary into one directory, and the images.
func buildAll(t *testing.T) (bin, images string) {
	t.Helper()
	bin, images = t.TempDir(), t.TempDir()
	start := time.Now()
	out, err := exec.Command("go", append([]string{"build", "-o", bin + "/"}, components...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if out, err := exec.Command(filepath.Join(bin, "mkimages"), "-out", images).CombinedOutput(); err != nil {
		t.Fatalf("mkimages: %v\n%s", err, out)
	}
	t.Logf("built the binaries and the images in %s", time.Since(start).Round(time.Second))
	return bin, images
}

// startCluster runs `up` and waits for its banner.
func startCluster(t *testing.T, args ...string) *e2e {
	t.Helper()
	e := &e2e{t: t, dataDir: filepath.Join(t.TempDir(), "c8"), kubectl: testenv.Kubectl(t, "1.33"), home: t.TempDir(),
		upDone: make(chan struct{}), upLog: &testenv.SyncBuffer{}}
	var images string
	e.bin, images = buildAll(t)
	e.up = exec.Command(filepath.Join(e.bin, "ch08-full-cluster"), append([]string{"up", "--data-dir", e.dataDir,
		"--node-cidr", nodeCIDR, "--image-dir", images}, args...)...)
	e.up.Stdout, e.up.Stderr = e.upLog, e.upLog
	e.up.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := e.up.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { e.up.Wait(); close(e.upDone) }()
	t.Cleanup(e.stop)
	testenv.Eventually(t, "the cluster comes up", 10*time.Minute, func() (string, bool) {
		select {
		case <-e.upDone:
			t.Fatalf("up exited:\n%s", e.upLog.String())
		default:
		}
		return lastLines(e.upLog.String(), 5), strings.Contains(e.upLog.String(), "kubectl get nodes")
	})
	t.Logf("the cluster is up %s after `up` started", time.Since(start).Round(time.Second))
	c, err := cluster8.Load(e.dataDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.c = c
	return e
}

// stop ends `up` (it shuts the machines down), runs `down` for whatever
// is left, and checks that nothing is.
func (e *e2e) stop() {
	t := e.t
	if t.Failed() {
		e.dumpLogs()
	}
	select {
	case <-e.upDone:
	default:
		e.up.Process.Signal(syscall.SIGTERM)
		select {
		case <-e.upDone:
		case <-time.After(4 * time.Minute):
			t.Error("up did not stop within 4 minutes of SIGTERM")
			syscall.Kill(-e.up.Process.Pid, syscall.SIGKILL)
			<-e.upDone
		}
	}
	out, err := exec.Command(filepath.Join(e.bin, "ch08-full-cluster"), "down", "--data-dir", e.dataDir).CombinedOutput()
	if err != nil {
		t.Errorf("down: %v\n%s", err, out)
	}
	e.checkNothingLeft()
}

func (e *e2e) checkNothingLeft() {
	t := e.t
	c, err := cluster8.Load(e.dataDir, nil)
	if err != nil {
		t.Error(err)
		return
	}
	if left := fabric.Leftovers(c.Fabric()); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if cloud := c.Topology.Cloud; cloud != nil {
		for _, f := range []string{"/run/netns/" + cloud.Balancer.NetNS, cloud.Balancer.StateFile} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("the cloud's %s is left", f)
			}
		}
	}
	for _, m := range c.Topology.ByRole(provision.Worker) {
		root := filepath.Join(c.Root(m.Name), "var", "lib", "kubelet")
		if left := containerd.Leftovers(containerd.Config{Dir: filepath.Join(root, "containerd"), Name: node5.RuntimeName(root), NetNS: c.NetNS(m.Name)}); len(left) > 0 {
			t.Errorf("%s left: %v", m.Name, left)
		}
	}
	mounts, _ := os.ReadFile("/proc/self/mountinfo")
	if strings.Contains(string(mounts), e.dataDir) {
		t.Errorf("mounts left under %s", e.dataDir)
	}
	entries, _ := os.ReadDir("/proc")
	for _, en := range entries {
		cl, _ := os.ReadFile(filepath.Join("/proc", en.Name(), "cmdline"))
		if bytes.Contains(cl, []byte(e.dataDir)) {
			t.Errorf("process %s left: %s", en.Name(), bytes.ReplaceAll(cl, []byte{0}, []byte{' '}))
		}
	}
}

// dumpLogs shows the last lines of every unit's log.
func (e *e2e) dumpLogs() {
	t := e.t
	t.Logf("up:\n%s", lastLines(e.upLog.String(), 40))
	logs, _ := filepath.Glob(filepath.Join(e.dataDir, "machines", "*", "var", "log", "*.log"))
	for _, l := range logs {
		lines, _ := supervisor.Tail(l, 15)
		t.Logf("%s:\n%s", strings.TrimPrefix(l, e.dataDir+"/"), strings.Join(lines, "\n"))
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// run runs kubectl as admin.
func (e *e2e) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.kubectl, append([]string{"--kubeconfig", filepath.Join(e.dataDir, "admin.kubeconfig")}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "KUBECONFIG=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return strings.TrimSpace(string(out) + stderr.String()), err
	}
	return strings.TrimSpace(string(out)), nil
}

func (e *e2e) must(args ...string) string {
	e.t.Helper()
	out, err := e.run(args...)
	if err != nil {
		e.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (e *e2e) until(t *testing.T, what string, ok func(string) bool, args ...string) string {
	t.Helper()
	var out string
	testenv.Eventually(t, what, wait, func() (string, bool) {
		var err error
		out, err = e.run(args...)
		return out, err == nil && ok(out)
	})
	return out
}

// healthy waits until every machine's units run and every Node is Ready:
// the state each drill starts from.
func (e *e2e) healthy(t *testing.T) {
	t.Helper()
	for _, m := range e.c.Topology.Machines {
		testenv.Eventually(t, m.Name+"'s units running", wait, func() (string, bool) {
			units, err := e.c.Supervisor(m.Name).List(context.Background())
			if err != nil {
				return err.Error(), false
			}
			var down []string
			for _, u := range units {
				if !u.Running() && !(u.ActiveState == supervisor.Active && u.SubState == supervisor.SubExited) {
					down = append(down, u.Name+" "+u.ActiveState)
				}
			}
			return strings.Join(down, ", "), len(down) == 0
		})
	}
	e.until(t, "every node Ready", func(out string) bool {
		return strings.Count(out, "True") == len(e.c.Topology.ByRole(provision.Worker))
	}, "get", "nodes", "-o", `jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
}

// testWriter shows a drill's output in the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (e *e2e) drillEnv(t *testing.T) *drills.Env {
	t.Helper()
	env, err := drills.NewEnv(e.c, e.kubectl, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestCluster brings the whole cluster up and runs every drill on it.
func TestCluster(t *testing.T) {
	requireHost(t)
	e := startCluster(t)
	ctx := context.Background()
	timings := map[string]time.Duration{}
	step := func(name string, f func(t *testing.T)) {
		start := time.Now()
		t.Run(name, func(t *testing.T) {
			e.healthy(t)
			f(t)
		})
		timings[name] = time.Since(start)
	}
	defer func() {
		var lines []string
		for n, d := range timings {
			lines = append(lines, fmt.Sprintf("%s %s", n, d.Round(time.Second)))
		}
		slices.Sort(lines)
		t.Logf("timings: %s", strings.Join(lines, ", "))
	}()

	step("bring-up", func(t *testing.T) { testBringUp(t, e) })
	step("lab", func(t *testing.T) { testLab(t, e) })

	step("drill-apiserver", func(t *testing.T) {
		res, err := drills.KillAPIServer(ctx, e.drillEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Failed) > 0 || res.Requests < 10 || res.Restarts < 1 {
			t.Errorf("%d of %d requests failed (%q), restarts %d", len(res.Failed), res.Requests, res.Failed, res.Restarts)
		}
	})
	step("drill-etcd-leader", func(t *testing.T) {
		res, err := drills.KillEtcdLeader(ctx, e.drillEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.NewLeader == "" || res.NewLeader == res.OldLeader || res.FailedAfterElection > 0 || res.Writes-len(res.Failed) < 5 {
			t.Errorf("leader %s → %s, %d writes, %d failed, %d after the election: %q",
				res.OldLeader, res.NewLeader, res.Writes, len(res.Failed), res.FailedAfterElection, res.Failed)
		}
	})
	step("drill-etcd-quorum", func(t *testing.T) {
		res, err := drills.LoseEtcdQuorum(ctx, e.drillEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`Timeout|timed out|deadline exceeded|Internal error|storage is unavailable`).MatchString(res.WriteError) {
			t.Errorf("the write failed, but not for want of etcd: %s", res.WriteError)
		}
		if res.ReadyzCode == http.StatusOK || !strings.Contains(res.Readyz, "[-]etcd failed") {
			t.Errorf("/readyz during the outage: %d\n%s", res.ReadyzCode, res.Readyz)
		}
	})
	step("drill-apiservers-down", func(t *testing.T) {
		res, err := drills.StopAllAPIServers(ctx, e.drillEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.KubectlError == "" || res.Served != res.Tried || !res.Reconciled {
			t.Errorf("kubectl: %q; %d/%d served; reconciled %v", res.KubectlError, res.Served, res.Tried, res.Reconciled)
		}
	})
	step("drill-leaders", func(t *testing.T) {
		res, err := drills.KillLeaders(ctx, e.drillEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range res.Takeovers {
			oldMachine, _, _ := strings.Cut(to.OldHolder, "_")
			if to.NewHolder == "" || to.NewHolder == to.OldHolder || !to.WorksAfterward || !strings.HasPrefix(to.NewHolder, "cp-") {
				t.Errorf("%s: %s → %s (from %s), works %v", to.Component, to.OldHolder, to.NewHolder, oldMachine, to.WorksAfterward)
			}
		}
	})
	step("drill-kubelet", func(t *testing.T) {
		res, err := drills.StopKubelet(ctx, e.drillEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.UnknownAfter == 0 || res.EvictedAfter < res.TaintedAfter || res.ReplacedOn == "" || res.ReplacedOn == res.Node {
			t.Errorf("%+v", res)
		}
	})
	step("drill-poweroff", func(t *testing.T) {
		res, err := drills.PowerOffWorker(ctx, e.drillEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.DeletedAfter == 0 || res.ReplacedAfter == 0 || res.BackAfter == 0 {
			t.Errorf("%+v", res)
		}
	})
	step("crash-then-down", func(t *testing.T) { testCrashThenDown(t, e) })
}

// testBringUp: every Node Ready, the kubernetes Service's endpoints are
// the three apiservers, a Deployment answers behind a Service (from a
// worker) and a LoadBalancer (from the host), a Secret is encrypted in
// etcd, the machines have their names, and kubik-supervisor answers.
func testBringUp(t *testing.T, e *e2e) {
	out := e.must("get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[*].addresses[*].ip}")
	var want []string
	for _, m := range e.c.Topology.ByRole(provision.ControlPlane) {
		want = append(want, m.IP.String())
	}
	got := strings.Fields(out)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the kubernetes Service's endpoints: %q, want %q", got, want)
	}
	for _, lease := range []string{"kube-scheduler", "kube-controller-manager", "cloud-controller-manager"} {
		h := e.until(t, lease+" has a leader", func(s string) bool { return s != "" }, "-n", "kube-system", "get", "lease", lease, "-o", "jsonpath={.spec.holderIdentity}")
		if !regexp.MustCompile(`^cp-[1-3]_[0-9a-f]+$`).MatchString(h) {
			t.Errorf("%s's holder %q: want <machine>_<id>", lease, h)
		}
	}

	e.must("create", "deployment", "web", "--image=kubik.local/demo:1.0", "--replicas=3")
	e.must("expose", "deployment", "web", "--port=80", "--target-port=8080", "--type=LoadBalancer")
	e.until(t, "web available", func(s string) bool { return s == "3" }, "get", "deployment", "web", "-o", "jsonpath={.status.availableReplicas}")
	clusterIP := e.must("get", "svc", "web", "-o", "jsonpath={.spec.clusterIP}")
	w := e.c.Topology.ByRole(provision.Worker)[0].Name
	testenv.Eventually(t, "the ClusterIP from "+w, wait, func() (string, bool) {
		out, err := exec.Command("nsenter", "--net="+e.c.NetNS(w), "--", "curl", "-sS", "-m", "5", "http://"+clusterIP+"/").CombinedOutput()
		return string(out), err == nil && strings.HasPrefix(string(out), "Hello from web-")
	})
	ip := e.until(t, "an EXTERNAL-IP", func(s string) bool { return s != "" }, "get", "svc", "web", "-o", "jsonpath={.status.loadBalancer.ingress[0].ip}")
	if !strings.HasPrefix(ip, "10.240.9.2") {
		t.Errorf("EXTERNAL-IP %s: not from the pool 10.240.9.200-250", ip)
	}
	hc := &http.Client{Timeout: 5 * time.Second}
	testenv.Eventually(t, "the LoadBalancer from the host", wait, func() (string, bool) {
		resp, err := hc.Get("http://" + ip + "/")
		if err != nil {
			return err.Error(), false
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return b.String(), strings.HasPrefix(b.String(), "Hello from web-")
	})
	e.must("delete", "svc,deployment", "web")

	e.must("create", "secret", "generic", "e2e-secret", "--from-literal=password=hunter2")
	p := func(f string) string { return filepath.Join(e.c.PKIDir(), f) }
	raw, err := exec.Command("etcdctl", "--endpoints="+strings.Join(e.c.Topology.EtcdEndpoints(), ","), "--cacert="+p("ca.crt"),
		"--cert="+p("etcd-healthcheck-client.crt"), "--key="+p("etcd-healthcheck-client.key"),
		"get", "/registry/secrets/default/e2e-secret", "--print-value-only").Output()
	if err != nil || !bytes.HasPrefix(raw, []byte("k8s:enc:aescbc:v1:key1:")) || bytes.Contains(raw, []byte("hunter2")) {
		t.Errorf("etcdctl get: %v: %q", err, raw[:min(len(raw), 60)])
	}
	if got := e.must("get", "secret", "e2e-secret", "-o", "jsonpath={.data.password}"); got != "aHVudGVyMg==" {
		t.Errorf("kubectl reads %q", got)
	}
	e.must("delete", "secret", "e2e-secret")

	status, err := exec.Command(filepath.Join(e.bin, "kubik-supervisor"), "--root", e.c.Root(w), "status", "kubelet").CombinedOutput()
	if err != nil || !bytes.Contains(status, []byte("Active: active (running)")) || !bytes.Contains(status, []byte("kubelet.service - Kubernetes Kubelet")) {
		t.Errorf("kubik-supervisor status kubelet: %v\n%s", err, status)
	}
	hostname, err := exec.Command(filepath.Join(e.bin, "ch08-full-cluster"), "shell", "--data-dir", e.dataDir, "cp-2", "hostname").CombinedOutput()
	if err != nil || strings.TrimSpace(string(hostname)) != "cp-2" {
		t.Errorf("shell cp-2 hostname: %v: %s", err, hostname)
	}
}

// testCrashThenDown: after a kill -9 of `up`, every machine keeps
// running (nothing supervises them from outside), and `down` removes all
// of it: processes, containers, mounts, cgroups, namespaces, links, routes.
func testCrashThenDown(t *testing.T, e *e2e) {
	syscall.Kill(e.up.Process.Pid, syscall.SIGKILL)
	<-e.upDone
	if st, err := e.c.Supervisor("w-1").Status(context.Background(), "kubelet"); err != nil || !st.Running() {
		t.Errorf("w-1's kubelet after the crash: %+v %v", st, err)
	}
	out, err := exec.Command(filepath.Join(e.bin, "ch08-full-cluster"), "down", "--data-dir", e.dataDir).CombinedOutput()
	if err != nil {
		t.Fatalf("down: %v\n%s", err, out)
	}
	t.Logf("down: %s", out)
	e.checkNothingLeft()
}

// testLab runs the lab of docs/ch08-full-cluster.md on the test's cluster,
// with the newest and the oldest kubectl the course supports, from a
// directory laid out as the repository is for a reader: bin/ (the
// binaries) and .kubik/ch08 (the data dir, the default of every command).
func testLab(t *testing.T, e *e2e) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".kubik"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"bin": e.bin, ".kubik/ch08": e.dataDir} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, version := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+version, func(t *testing.T) {
			labtest.Run(t, "../docs/ch08-full-cluster.md", labtest.Env{Kubectl: testenv.Kubectl(t, version),
				Kubeconfig: filepath.Join(e.dataDir, "admin.kubeconfig"), Dir: dir, Timeout: 3 * time.Minute})
		})
	}
}
