package main_test

// Leader election end to end, as in a real control plane: two kube-scheduler
// processes (ch03-scheduler/cmd/kube-scheduler) against one apiserver (the
// chapter 2 binary). One holds the Lease kube-system/kube-scheduler and
// schedules; the other waits. The leader is killed with SIGKILL — it cannot
// release the lease — and the standby takes over once the lease expires
// (leaseDurationSeconds 15), then schedules the next pod.

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"kubik/internal/leaderelectiontest"
	"kubik/internal/testenv"
)

func TestLeaderElectionFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an apiserver and two schedulers")
	}
	testenv.Kubectl(t, kubectlVersion)
	apiserver := testenv.Build(t, "kubik/ch02-etcd-store")
	schedBin := testenv.Build(t, "kubik/ch03-scheduler/cmd/kube-scheduler")
	c := testenv.Start(t, apiserver, testenv.Options{})
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectlVersion, "", args...) }

	// The scheduler's own identity, issued from the cluster CA.
	kc := filepath.Join(t.TempDir(), "kube-scheduler.kubeconfig")
	if out, err := exec.Command(apiserver, "kubeconfig", "--data-dir", c.DataDir, "--component", "kube-scheduler", "--out", kc).CombinedOutput(); err != nil {
		t.Fatalf("kubeconfig: %v\n%s", err, out)
	}

	// Two Ready nodes for the pods, registered by hand (no kubelets: the
	// pods stay Pending, but bound).
	k("create", "serviceaccount", "default")
	nodes := filepath.Join(t.TempDir(), "nodes.yaml")
	if err := os.WriteFile(nodes, []byte("apiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k("create", "-f", nodes)
	k("taint", "nodes", "--all", "node.kubernetes.io/not-ready:NoSchedule-")
	for _, n := range []string{"node-1", "node-2"} {
		k("patch", "node", n, "--subresource=status", "--type=merge", "-p",
			`{"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}]}}`)
	}

	// Two candidates.
	start := func() *testenv.Process {
		return testenv.StartProcess(t, schedBin, "--kubeconfig", kc, "--leader-elect=true")
	}
	a, b := start(), start()
	holder := func() string {
		return k("get", "lease", "kube-scheduler", "-n", "kube-system", "-o", "jsonpath={.spec.holderIdentity}")
	}
	leader, standby := leaderelectiontest.WaitForLeader(t, "one scheduler leads", holder, a, b)
	if leaderelectiontest.Acquired(standby) != "" {
		t.Fatalf("both schedulers acquired the lease:\n%s\n---\n%s", a.Logs.String(), b.Logs.String())
	}
	transitions := k("get", "lease", "kube-scheduler", "-n", "kube-system", "-o", "jsonpath={.spec.leaseTransitions}")

	bound := func(pod string) {
		t.Helper()
		k("run", pod, "--image=nginx")
		testenv.Eventually(t, pod+" bound", 30*time.Second, func() (string, bool) {
			out := k("get", "pod", pod, "-o", "jsonpath={.spec.nodeName}")
			return out, out == "node-1" || out == "node-2"
		})
	}
	bound("before")

	// The leader dies without a word; the lease runs out; the standby leads.
	leader.Kill()
	leaderelectiontest.WaitForTakeover(t, holder, standby)
	if got := k("get", "lease", "kube-scheduler", "-n", "kube-system", "-o", "jsonpath={.spec.leaseTransitions}"); got <= transitions && len(got) <= len(transitions) {
		t.Errorf("leaseTransitions %s after failover, was %s", got, transitions)
	}
	bound("after")
}
