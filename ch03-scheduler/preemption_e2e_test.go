package main_test

// End-to-end test of preemption with the real kubectl 1.33 against the
// real ch03 binary and its three hollow nodes (4 CPU each): low-priority
// pods fill the nodes; a high-priority pod that fits nowhere evicts one of
// them (condition DisruptionTarget, graceful delete, event Preempted), is
// nominated to that node, waits while its victim terminates (without
// evicting more), and lands there once the victim is gone. Two of the
// three low pods are covered by a PodDisruptionBudget that allows no
// disruption (no disruption controller runs, so its status says 0 allowed,
// as on a real cluster before that controller has counted), so the victim
// is the first: preemption picks the node with the fewest budget violations. A pod with
// preemptionPolicy Never preempts nobody and stays Pending.
//
// The low-priority pods carry a finalizer, so that the victim stays
// visible (Terminating) until the test removes it: that is the moment to
// look at what the scheduler did.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

func TestPreemption(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 3 cluster")
	}
	testenv.Kubectl(t, kubectlVersion)
	bin := testenv.Build(t, "kubik/ch03-scheduler")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=3"}})
	dir := t.TempDir()
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectlVersion, dir, args...) }
	eventually := func(what string, f func() (string, bool)) { t.Helper(); testenv.Eventually(t, what, 30*time.Second, f) }
	// apply writes a pod manifest and creates it.
	apply := func(name, class, cpu string, finalizer bool) {
		t.Helper()
		fin := ""
		if finalizer {
			fin = "\n  finalizers: [example.com/hold]"
		}
		manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s%s
spec:
  priorityClassName: %s
  containers:
  - name: app
    image: nginx
    resources:
      requests:
        cpu: "%s"
`, name, fin, class, cpu)
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		k("apply", "-f", name+".yaml")
	}
	podField := func(name, jsonpath string) string {
		t.Helper()
		r := c.Kubectl(t, kubectlVersion, dir, "get", "pod", name, "-o", "jsonpath="+jsonpath)
		if r.ExitCode != 0 {
			return "<" + strings.TrimSpace(r.Stderr) + ">"
		}
		return strings.TrimSpace(r.Stdout)
	}
	events := func(pod, reason string) string {
		return k("get", "events", "--field-selector", "involvedObject.name="+pod+",reason="+reason,
			"--sort-by=.metadata.creationTimestamp", "-o", `jsonpath={range .items[*]}{.message}{"\n"}{end}`)
	}

	eventually("nodes Ready and untainted", func() (string, bool) {
		out := k("get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status} {.spec.taints}{"\n"}{end}`)
		return out, out == "hollow-node-1 True \nhollow-node-2 True \nhollow-node-3 True"
	})
	k("create", "priorityclass", "low", "--value=100")
	k("create", "priorityclass", "high", "--value=1000")
	k("create", "priorityclass", "high-never", "--value=1000", "--preemption-policy=Never")

	// Fill the nodes: 3 CPU each, one per node.
	for _, n := range []string{"low-1", "low-2", "low-3"} {
		apply(n, "low", "3", true)
	}
	eventually("low pods Running on three nodes", func() (string, bool) {
		out := k("get", "pods", "-o", `jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{"\n"}{end}`)
		seen := map[string]bool{}
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[1] == "Running" {
				seen[f[0]] = true
			}
		}
		return out, len(seen) == 3
	})

	k("label", "pod", "low-2", "low-3", "app=db")
	k("create", "pdb", "db", "--selector=app=db", "--min-available=1")

	// preemptionPolicy Never: Pending, and nobody is evicted. (The ".." is
	// framework.FitError's separator after the PostFilter message, as in
	// e2e_test.go; upstream dropped the second period in v1.30.)
	apply("polite", "high-never", "2", false)
	const neverMsg = "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."
	eventually("polite pod Pending, not preempting", func() (string, bool) {
		out := podField("polite", `{.status.phase}|{.status.conditions[?(@.type=="PodScheduled")].message}`)
		return out, out == "Pending|"+neverMsg
	})

	// A high-priority pod: one low pod is evicted for it.
	apply("urgent", "high", "3", false)
	uid := podField("urgent", "{.metadata.uid}")
	var victim, node string
	eventually("one victim terminating", func() (string, bool) {
		out := k("get", "pods", "-o", `jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.metadata.deletionTimestamp}{"\n"}{end}`)
		var terminating []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 3 {
				terminating = append(terminating, l)
				victim, node = f[0], f[1]
			}
		}
		return out, len(terminating) == 1 && strings.HasPrefix(victim, "low-")
	})
	// (Without the budget, the newest pod, low-3, would go: among equal
	// candidates upstream picks the node whose victims started last.)
	if victim != "low-1" {
		t.Errorf("victim %s: want low-1, the one pod no PodDisruptionBudget covers", victim)
	}
	t.Logf("victim %s on %s", victim, node)
	if got := podField(victim, `{.status.conditions[?(@.type=="DisruptionTarget")].status}|{.status.conditions[?(@.type=="DisruptionTarget")].reason}|{.status.conditions[?(@.type=="DisruptionTarget")].message}`); got != "True|PreemptionByScheduler|default-scheduler: preempting to accommodate a higher priority pod" {
		t.Errorf("victim's DisruptionTarget condition: %q", got)
	}
	eventually("urgent nominated to the victim's node", func() (string, bool) {
		out := podField("urgent", "{.status.phase} {.status.nominatedNodeName}")
		return out, out == "Pending "+node
	})
	// kubectl shows it in the NOMINATED NODE column.
	if wide := k("get", "pod", "urgent", "-o", "wide"); !strings.Contains(wide, "NOMINATED NODE") ||
		!strings.Contains(strings.Split(wide, "\n")[1], "Pending") || !strings.Contains(strings.Split(wide, "\n")[1], node) {
		t.Errorf("kubectl get pod urgent -o wide:\n%s", wide)
	}
	eventually("Preempted event on the victim", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.name="+victim+",reason=Preempted",
			"-o", `jsonpath={range .items[*]}{.type}|{.action}|{.reportingComponent}|{.related.name}|{.message}{"\n"}{end}`)
		return out, out == "Normal|Preempting|default-scheduler|urgent|Preempted by pod "+uid+" on node "+node
	})
	// Preemption succeeded: the event tells only why no node fit (upstream
	// adds no "preemption: ..." then).
	eventually("urgent's FailedScheduling event", func() (string, bool) {
		out := events("urgent", "FailedScheduling")
		return out, out == "0/3 nodes are available: 3 Insufficient cpu."
	})

	// A node update sends the pending pods round again: urgent sees its
	// victim still terminating on its nominated node, and waits instead of
	// evicting another pod.
	k("label", "node", "hollow-node-1", "poked=yes")
	const waitMsg = "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to a terminating pod on the nominated node."
	eventually("urgent waits for its victim", func() (string, bool) {
		out := events("urgent", "FailedScheduling")
		return out, out == "0/3 nodes are available: 3 Insufficient cpu.\n"+waitMsg
	})
	if out := k("get", "pods", "-o", `jsonpath={range .items[*]}{.metadata.name}={.metadata.deletionTimestamp} {end}`); strings.Count(out, "=2") != 1 {
		t.Errorf("more than one victim: %s", out)
	}

	// The victim goes: urgent lands on its node; polite still waits.
	k("patch", "pod", victim, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	eventually("urgent Running on the victim's node", func() (string, bool) {
		out := podField("urgent", "{.spec.nodeName} {.status.phase}")
		return out, out == node+" Running"
	})
	if got := podField(victim, "{.metadata.name}"); !strings.Contains(got, "NotFound") {
		t.Errorf("victim still there: %s", got)
	}
	if got := podField("polite", "{.status.phase} {.spec.nodeName}"); got != "Pending" {
		t.Errorf("polite: %q", got)
	}
	for _, n := range []string{"low-1", "low-2", "low-3"} {
		if n != victim {
			k("patch", "pod", n, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
		}
	}
}
