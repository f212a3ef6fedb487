package main_test

// End-to-end test of the DaemonSet controller's history with the real
// kubectl 1.33 (and 1.27 for the history): every template a
// ControllerRevision, `kubectl rollout history ds` listing them and
// `kubectl rollout undo ds` putting an old template back, as against a
// real cluster. The same cluster shows the pod garbage collector finishing
// an unscheduled terminating pod and the ttl controller's node annotation.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

const historyDaemonSet = `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: logger}
spec:
  selector: {matchLabels: {app: logger}}
  template:
    metadata: {labels: {app: logger}}
    spec:
      containers: [{name: log, image: "logger:1"}]
`

const stuckPod = `
apiVersion: v1
kind: Pod
metadata: {name: stuck, finalizers: [example.com/keep]}
spec:
  nodeSelector: {no-such: node}
  containers: [{name: c, image: busybox}]
`

func TestDaemonSetHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	testenv.Kubectl(t, kubectl133)
	testenv.Kubectl(t, kubectl127)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=2"}})
	dir := t.TempDir()
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectl133, dir, args...) }
	expect := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ds.yaml"), []byte(historyDaemonSet), 0o644); err != nil {
		t.Fatal(err)
	}
	k("apply", "-f", "ds.yaml")
	// Meanwhile, for the pod garbage collector: a pod no node will take,
	// deleted but kept by a finalizer — terminating and unscheduled.
	if err := os.WriteFile(filepath.Join(dir, "stuck.yaml"), []byte(stuckPod), 0o644); err != nil {
		t.Fatal(err)
	}
	k("apply", "-f", "stuck.yaml")
	k("delete", "pod", "stuck", "--wait=false")
	rolledOut := func() {
		t.Helper()
		r := c.Kubectl(t, kubectl133, dir, "rollout", "status", "ds/logger", "--timeout=50s")
		if r.ExitCode != 0 || !strings.HasSuffix(strings.TrimSpace(r.Stdout), `daemon set "logger" successfully rolled out`) {
			state := c.Kubectl(t, kubectl133, dir, "get", "ds,controllerrevisions,pods", "-o", "yaml")
			t.Fatalf("rollout status: exit %d\n%s\nstate:\n%s", r.ExitCode, r.Combined(), state.Combined())
		}
	}
	rolledOut()
	expect(k("set", "image", "ds/logger", "log=logger:2"), "daemonset.apps/logger image updated")
	rolledOut()

	for _, v := range []string{kubectl133, kubectl127} {
		expect(c.MustKubectl(t, v, dir, "rollout", "history", "ds/logger"), "daemonset.apps/logger \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>")
	}
	rev1 := k("rollout", "history", "ds/logger", "--revision=1")
	if !strings.HasPrefix(rev1, `daemonset.apps/logger with revision #1`) || !strings.Contains(rev1, "Image:\tlogger:1") {
		t.Errorf("revision 1:\n%s", rev1)
	}
	// The revisions' names and the pods' label: <name>-<hash>, <hash>.
	names := k("get", "controllerrevisions", "-l", "app=logger", "-o", `jsonpath={range .items[*]}{.revision} {.metadata.name} {.metadata.labels.controller-revision-hash}{"\n"}{end}`)
	for _, line := range strings.Split(names, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "logger-"+f[2] {
			t.Errorf("revision %q", line)
		}
	}

	expect(k("rollout", "undo", "ds/logger"), "daemonset.apps/logger rolled back")
	rolledOut()
	expect(k("get", "ds/logger", "-o", "jsonpath={.spec.template.spec.containers[0].image}"), "logger:1")
	testenv.Eventually(t, "pods back on logger:1", 90*time.Second, func() (string, bool) {
		out := k("get", "pods", "-l", "app=logger", "-o", "jsonpath={.items[*].spec.containers[0].image}")
		return out, out == "logger:1 logger:1"
	})
	expect(k("rollout", "history", "ds/logger"), "daemonset.apps/logger \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>")
	// kubectl compares the DaemonSet with the revision's data itself.
	expect(k("rollout", "undo", "ds/logger", "--to-revision=3"), "daemonset.apps/logger skipped rollback (current template already matches revision 3)")

	// The pod garbage collector marked the stuck pod Failed and force
	// deleted it (within its 20 s period).
	testenv.Eventually(t, "stuck pod collected", 90*time.Second, func() (string, bool) {
		out := k("get", "pod", "stuck", "-o", "jsonpath={.status.phase} {.metadata.deletionGracePeriodSeconds}")
		return out, out == "Failed 0"
	})

	// The same cluster shows the ttl controller's work: a small cluster's
	// nodes may not cache objects (TTL 0).
	testenv.Eventually(t, "node ttl annotations", 90*time.Second, func() (string, bool) {
		out := k("get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name}={.metadata.annotations.node\.alpha\.kubernetes\.io/ttl} {end}`)
		return out, out == "hollow-node-1=0 hollow-node-2=0"
	})
}
