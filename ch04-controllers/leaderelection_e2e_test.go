package main_test

// Leader election of kube-controller-manager end to end: chapter 3's
// cluster (apiserver, scheduler, hollow nodes) and two controller-manager
// processes (ch04-controllers/cmd/kube-controller-manager). One holds the
// Lease kube-system/kube-controller-manager and reconciles; the other
// waits and runs no controller. The leader is killed with SIGKILL; once
// the lease expires (15 s) the standby takes over and the next change —
// a Deployment scaled up — is reconciled by it.

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"kubik/internal/leaderelectiontest"
	"kubik/internal/testenv"
)

func TestControllerManagerFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster and two controller managers")
	}
	testenv.Kubectl(t, kubectl133)
	ch03 := testenv.Build(t, "kubik/ch03-scheduler")
	kcmBin := testenv.Build(t, "kubik/ch04-controllers/cmd/kube-controller-manager")
	c := testenv.Start(t, ch03, testenv.Options{Args: []string{"--hollow-nodes=2"}})
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectl133, "", args...) }
	eventually := func(what string, timeout time.Duration, f func() (string, bool)) {
		t.Helper()
		testenv.Eventually(t, what, timeout, f)
	}

	kc := filepath.Join(t.TempDir(), "kube-controller-manager.kubeconfig")
	if out, err := exec.Command(ch03, "kubeconfig", "--data-dir", c.DataDir, "--component", "kube-controller-manager", "--out", kc).CombinedOutput(); err != nil {
		t.Fatalf("kubeconfig: %v\n%s", err, out)
	}
	start := func() *testenv.Process {
		return testenv.StartProcess(t, kcmBin, "--kubeconfig", kc, "--leader-elect=true", "--controllers=deployment,replicaset,serviceaccount")
	}
	a, b := start(), start()
	holder := func() string {
		return k("get", "lease", "kube-controller-manager", "-n", "kube-system", "-o", "jsonpath={.spec.holderIdentity}")
	}
	leader, standby := leaderelectiontest.WaitForLeader(t, "one controller manager leads", holder, a, b)

	// The leader reconciles: a Deployment becomes available.
	k("create", "deployment", "web", "--image=nginx", "--replicas=2")
	available := func(n string) {
		t.Helper()
		eventually("web has "+n+" available replicas", 60*time.Second, func() (string, bool) {
			out := k("get", "deployment", "web", "-o", "jsonpath={.status.availableReplicas}")
			return out, out == n
		})
	}
	available("2")
	if leaderelectiontest.Acquired(standby) != "" {
		t.Fatalf("both controller managers acquired the lease:\n%s\n---\n%s", a.Logs.String(), b.Logs.String())
	}

	// The leader dies without releasing the lease; the standby takes it
	// when it expires and reconciles the next change.
	leader.Kill()
	leaderelectiontest.WaitForTakeover(t, holder, standby)
	k("scale", "deployment", "web", "--replicas=3")
	available("3")
}
