package main_test

// End-to-end test of chapter 3 with the real kubectl 1.33 against the real
// ch03 binary and its three hollow nodes: pods get a node and become
// Running with an IP, a nodeSelector is obeyed, a pod too big for any node
// stays Pending with upstream's FailedScheduling text, taints keep pods
// away unless tolerated, a gated pod waits for its gates, a pod waits for
// its claim to be bound and goes where its volume is.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

const kubectlVersion = "1.33"

func TestScheduling(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 3 cluster")
	}
	testenv.Kubectl(t, kubectlVersion)
	bin := testenv.Build(t, "kubik/ch03-scheduler")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=3"}})
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectlVersion, "", args...) }
	eventually := func(what string, f func() (string, bool)) { t.Helper(); testenv.Eventually(t, what, 20*time.Second, f) }

	// Three Ready hollow nodes, the not-ready taint removed by the stand-in.
	eventually("nodes Ready and untainted", func() (string, bool) {
		out := k("get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status} {.spec.taints}{"\n"}{end}`)
		return out, out == "hollow-node-1 True \nhollow-node-2 True \nhollow-node-3 True"
	})
	if got := k("get", "lease", "-n", "kube-node-lease", "-o", "name"); got != "lease.coordination.k8s.io/hollow-node-1\nlease.coordination.k8s.io/hollow-node-2\nlease.coordination.k8s.io/hollow-node-3" {
		t.Errorf("node leases: %q", got)
	}

	// Replicas (chapter 3 has no Deployment controller yet: pods made by
	// hand) become Running on hollow nodes with pod IPs.
	for _, n := range []string{"web-1", "web-2", "web-3"} {
		k("run", n, "--image=nginx", "--labels=app=web")
	}
	eventually("web pods Running", func() (string, bool) {
		out := k("get", "pods", "-l", "app=web", "-o", `jsonpath={range .items[*]}{.status.phase} {.spec.nodeName} {.status.podIP}{"\n"}{end}`)
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) != 3 || f[0] != "Running" || !strings.HasPrefix(f[1], "hollow-node-") || !strings.HasPrefix(f[2], "10.244.") {
				return out, false
			}
		}
		return out, len(strings.Split(out, "\n")) == 3
	})
	wide := k("get", "pods", "-o", "wide")
	if !strings.Contains(wide, "hollow-node-") || !strings.Contains(wide, "10.244.") || !strings.Contains(wide, "1/1     Running") {
		t.Errorf("kubectl get pods -o wide:\n%s", wide)
	}
	if ev := k("get", "events", "--field-selector", "involvedObject.name=web-1,reason=Scheduled", "-o", "jsonpath={.items[*].message}"); !strings.HasPrefix(ev, "Successfully assigned default/web-1 to hollow-node-") {
		t.Errorf("Scheduled event: %q", ev)
	}

	// A nodeSelector picks the labelled node.
	k("label", "node", "hollow-node-2", "disktype=ssd")
	k("run", "ssd", "--image=nginx", `--overrides={"apiVersion":"v1","spec":{"nodeSelector":{"disktype":"ssd"}}}`)
	eventually("ssd pod on hollow-node-2", func() (string, bool) {
		out := k("get", "pod", "ssd", "-o", "jsonpath={.spec.nodeName} {.status.phase}")
		return out, out == "hollow-node-2 Running"
	})

	// More CPU than any node has (4): Pending, with upstream's message.
	k("run", "big", "--image=nginx", `--overrides={"apiVersion":"v1","spec":{"containers":[{"name":"big","image":"nginx","resources":{"requests":{"cpu":"10"}}}]}}`)
	const bigMsg = "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	eventually("big pod unschedulable", func() (string, bool) {
		out := k("get", "pod", "big", "-o", `jsonpath={.status.phase}|{.status.conditions[?(@.type=="PodScheduled")].reason}|{.status.conditions[?(@.type=="PodScheduled")].message}`)
		return out, out == "Pending|Unschedulable|"+bigMsg
	})
	eventually("FailedScheduling event", func() (string, bool) {
		out := k("describe", "pod", "big")
		return out, strings.Contains(out, "FailedScheduling") && strings.Contains(out, bigMsg)
	})

	// Taints: every node tainted; only a tolerating pod gets in.
	for _, n := range []string{"hollow-node-1", "hollow-node-2", "hollow-node-3"} {
		k("taint", "node", n, "dedicated=gpu:NoSchedule")
	}
	k("run", "plain", "--image=nginx")
	k("run", "tolerant", "--image=nginx", `--overrides={"apiVersion":"v1","spec":{"tolerations":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]}}`)
	eventually("tolerant pod Running", func() (string, bool) {
		out := k("get", "pod", "tolerant", "-o", "jsonpath={.status.phase}")
		return out, out == "Running"
	})
	const taintMsg = "0/3 nodes are available: 3 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	eventually("plain pod kept out by the taint", func() (string, bool) {
		out := k("get", "pod", "plain", "-o", `jsonpath={.status.phase}|{.status.conditions[?(@.type=="PodScheduled")].message}`)
		return out, out == "Pending|"+taintMsg
	})
	// Removing the taint from one node lets it in (a node update moves the
	// unschedulable pod back to the active queue).
	k("taint", "node", "hollow-node-3", "dedicated-")
	eventually("plain pod Running on hollow-node-3", func() (string, bool) {
		out := k("get", "pod", "plain", "-o", "jsonpath={.spec.nodeName} {.status.phase}")
		return out, out == "hollow-node-3 Running"
	})

	// Scheduling gates: the pod is not tried until its last gate is gone —
	// STATUS SchedulingGated, no node, no FailedScheduling event. The
	// witness: a pod created after it, which would queue behind it (same
	// priority, later), is bound while the gated one is not.
	k("run", "gated", "--image=nginx", `--overrides={"apiVersion":"v1","spec":{"schedulingGates":[{"name":"example.com/quota"}]}}`)
	k("run", "after-gated", "--image=nginx")
	eventually("the pod created after the gated one bound", func() (string, bool) {
		out := k("get", "pod", "after-gated", "-o", "jsonpath={.spec.nodeName}")
		return out, out != ""
	})
	if out := k("get", "pod", "gated", "--no-headers"); !strings.Contains(out, "SchedulingGated") {
		t.Errorf("kubectl get pod gated: %q", out)
	}
	if out := k("get", "pod", "gated", "-o", `jsonpath={.spec.nodeName}|{.status.conditions[?(@.type=="PodScheduled")].reason}`); out != "|SchedulingGated" {
		t.Errorf("gated pod: %q", out)
	}
	if ev := k("get", "events", "--field-selector", "involvedObject.name=gated", "-o", "jsonpath={.items[*].reason}"); ev != "" {
		t.Errorf("events of the gated pod: %q", ev)
	}
	k("patch", "pod", "gated", "--type=json", `-p=[{"op":"remove","path":"/spec/schedulingGates"}]`)
	eventually("ungated pod Running", func() (string, bool) {
		out := k("get", "pod", "gated", "-o", "jsonpath={.status.phase}")
		return out, out == "Running"
	})

	// A claim nobody bound yet: unschedulable everywhere. Chapter 3 has no
	// PersistentVolume controller, so the test binds it as that
	// controller would; the claim's update brings the pod back, and the
	// volume's node affinity picks the node.
	k("taint", "node", "hollow-node-1", "dedicated-")
	k("taint", "node", "hollow-node-2", "dedicated-")
	apply := func(manifest string) {
		t.Helper()
		f := filepath.Join(t.TempDir(), "manifest.yaml")
		if err := os.WriteFile(f, []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		k("apply", "-f", f)
	}
	apply(`apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`)
	k("run", "db", "--image=nginx", `--overrides={"apiVersion":"v1","spec":{"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data"}}],"containers":[{"name":"db","image":"nginx","volumeMounts":[{"name":"data","mountPath":"/data"}]}]}}`)
	const pvcMsg = "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	eventually("db pod waits for its claim", func() (string, bool) {
		out := k("get", "pod", "db", "-o", `jsonpath={.status.phase}|{.status.conditions[?(@.type=="PodScheduled")].message}`)
		return out, out == "Pending|"+pvcMsg
	})
	apply(`apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-data
spec:
  storageClassName: ""
  capacity:
    storage: 1Gi
  accessModes: [ReadWriteOnce]
  hostPath:
    path: /tmp/pv-data
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: kubernetes.io/hostname, operator: In, values: [hollow-node-3]}
`)
	k("patch", "pvc", "data", "--type=merge", `-p={"metadata":{"annotations":{"pv.kubernetes.io/bind-completed":"yes"}},"spec":{"volumeName":"pv-data"}}`)
	eventually("db pod Running on the volume's node", func() (string, bool) {
		out := k("get", "pod", "db", "-o", "jsonpath={.spec.nodeName} {.status.phase}")
		return out, out == "hollow-node-3 Running"
	})

	// Graceful deletion is finished by the hollow node.
	k("delete", "pod", "web-1", "--wait=true", "--timeout=20s")

	// The scheduler holds its Lease.
	if got := k("get", "lease", "-n", "kube-system", "kube-scheduler", "-o", "jsonpath={.spec.holderIdentity}"); got == "" {
		t.Errorf("lease kube-system/kube-scheduler has no holder")
	}
}
