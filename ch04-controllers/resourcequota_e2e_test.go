package main_test

// End-to-end test of the ResourceQuota controller with the real kubectl
// 1.33 (and 1.27 for describe): `kubectl create quota`, `kubectl describe quota` showing what the
// namespace uses as a real cluster does, a pod over the quota refused with
// upstream's message, and usage given back when a pod goes.

import (
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

func TestResourceQuota(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	testenv.Kubectl(t, kubectl133)
	testenv.Kubectl(t, kubectl127)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=1"}})
	dir := t.TempDir()
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectl133, dir, args...) }
	describe := func(want string) {
		t.Helper()
		testenv.Eventually(t, "describe quota q", 90*time.Second, func() (string, bool) {
			out := k("describe", "quota", "q")
			return out, out == want
		})
		if out := c.MustKubectl(t, kubectl127, dir, "describe", "quota", "q"); out != want {
			t.Errorf("kubectl 1.27 describe quota q:\n%s", out)
		}
	}
	// kube-root-ca.crt is the namespace's first ConfigMap.
	testenv.Eventually(t, "kube-root-ca.crt", 90*time.Second, func() (string, bool) {
		r := c.Kubectl(t, kubectl133, dir, "get", "configmap", "kube-root-ca.crt")
		return r.Combined(), r.ExitCode == 0
	})
	if out := k("create", "quota", "q", "--hard=pods=2,count/configmaps=3"); out != "resourcequota/q created" {
		t.Fatalf("create quota: %s", out)
	}
	describe(`Name:             q
Namespace:        default
Resource          Used  Hard
--------          ----  ----
count/configmaps  1     3
pods              0     2`)

	k("run", "p1", "--image=busybox", "--restart=Never")
	k("run", "p2", "--image=busybox", "--restart=Never")
	k("create", "configmap", "settings")
	describe(`Name:             q
Namespace:        default
Resource          Used  Hard
--------          ----  ----
count/configmaps  2     3
pods              2     2`)

	r := c.Kubectl(t, kubectl133, dir, "run", "p3", "--image=busybox", "--restart=Never")
	if want := `Error from server (Forbidden): pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`; r.ExitCode == 0 || strings.TrimSpace(r.Stderr) != want {
		t.Errorf("a third pod: exit %d\n%s\nwant: %s", r.ExitCode, r.Combined(), want)
	}

	// A pod gone: its share is given back.
	k("delete", "pod", "p1", "--wait=true")
	describe(`Name:             q
Namespace:        default
Resource          Used  Hard
--------          ----  ----
count/configmaps  2     3
pods              1     2`)
	if out := k("get", "resourcequota", "q", "-o", "jsonpath={.status.hard} {.status.used}"); out != `{"count/configmaps":"3","pods":"2"} {"count/configmaps":"2","pods":"1"}` {
		t.Errorf("status: %s", out)
	}
}
