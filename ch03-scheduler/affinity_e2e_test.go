package main_test

// End-to-end test of inter-pod affinity and pod topology spread with the
// real kubectl 1.33 against the ch03 binary and its three hollow nodes
// (each labelled kubernetes.io/hostname=<its name>): anti-affinity puts one
// pod per node and keeps a fourth Pending with upstream's message, affinity
// follows its target, a DoNotSchedule constraint spreads six pods 2/2/2.

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

// podManifest is a pod with one nginx container, labels and extra spec
// fields (YAML, indented under spec).
func podManifest(name, labels, spec string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  labels: {%s}
spec:
  containers:
  - name: c
    image: nginx
%s
---
`, name, labels, spec)
}

const antiAffinitySpec = `  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels: {app: anti}
        topologyKey: kubernetes.io/hostname`

const affinitySpec = `  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels: {app: %s}
        topologyKey: kubernetes.io/hostname`

const spreadSpec = `  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: %s
    whenUnsatisfiable: DoNotSchedule
    labelSelector:
      matchLabels: {app: spread}`

func TestInterPodAffinityAndTopologySpread(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 3 cluster")
	}
	testenv.Kubectl(t, kubectlVersion)
	bin := testenv.Build(t, "kubik/ch03-scheduler")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=3"}})
	dir := t.TempDir()
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectlVersion, dir, args...) }
	apply := func(name string, manifests ...string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(manifests, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		k("apply", "-f", name)
	}
	eventually := func(what string, f func() (string, bool)) { t.Helper(); testenv.Eventually(t, what, 30*time.Second, f) }
	// nodesOf returns "pod node" lines of the pods with label selector sel,
	// and whether all of them are bound.
	nodesOf := func(sel string) (map[string]string, string, bool) {
		out := k("get", "pods", "-l", sel, "-o", `jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}`)
		m := map[string]string{}
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 2 {
				m[f[0]] = f[1]
			} else if len(f) == 1 {
				return m, out, false
			}
		}
		return m, out, true
	}
	pending := func(pod, wantMsg string) {
		t.Helper()
		eventually(pod+" Pending with PodScheduled=False", func() (string, bool) {
			out := k("get", "pod", pod, "-o", `jsonpath={.spec.nodeName}|{.status.phase}|{.status.conditions[?(@.type=="PodScheduled")].reason}|{.status.conditions[?(@.type=="PodScheduled")].message}`)
			return out, out == "|Pending|Unschedulable|"+wantMsg
		})
		eventually(pod+" FailedScheduling event", func() (string, bool) {
			out := k("get", "events", "--field-selector", "involvedObject.name="+pod+",reason=FailedScheduling", "-o", "jsonpath={.items[*].message}")
			return out, strings.Contains(out, wantMsg)
		})
	}

	eventually("nodes Ready and untainted", func() (string, bool) {
		out := k("get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.metadata.labels.kubernetes\.io/hostname} {.status.conditions[?(@.type=="Ready")].status} {.spec.taints}{"\n"}{end}`)
		return out, out == "hollow-node-1 hollow-node-1 True \nhollow-node-2 hollow-node-2 True \nhollow-node-3 hollow-node-3 True"
	})

	// Required anti-affinity on kubernetes.io/hostname: one pod per node.
	apply("anti.yaml", podManifest("anti-1", "app: anti", antiAffinitySpec), podManifest("anti-2", "app: anti", antiAffinitySpec),
		podManifest("anti-3", "app: anti", antiAffinitySpec))
	eventually("anti-affinity pods on three different nodes", func() (string, bool) {
		m, out, ok := nodesOf("app=anti")
		nodes := slices.Sorted(maps.Values(m))
		return out, ok && slices.Equal(nodes, []string{"hollow-node-1", "hollow-node-2", "hollow-node-3"})
	})
	// A fourth has nowhere to go. Preemption cannot help: the pods in the
	// way have the same priority.
	apply("anti4.yaml", podManifest("anti-4", "app: anti", antiAffinitySpec))
	pending("anti-4", "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. "+
		"no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.")

	// Required affinity: followers land on the node of their target (three
	// of them, so that luck would be a 1-in-27 chance).
	apply("target.yaml", podManifest("target", "app: target", ""))
	var targetNode string
	eventually("target bound", func() (string, bool) {
		targetNode = k("get", "pod", "target", "-o", "jsonpath={.spec.nodeName}")
		return targetNode, targetNode != ""
	})
	f := fmt.Sprintf(affinitySpec, "target")
	apply("followers.yaml", podManifest("follower-1", "app: follower", f), podManifest("follower-2", "app: follower", f),
		podManifest("follower-3", "app: follower", f))
	eventually("followers on the target's node "+targetNode, func() (string, bool) {
		m, out, ok := nodesOf("app=follower")
		if !ok || len(m) != 3 {
			return out, false
		}
		for _, n := range m {
			if n != targetNode {
				return out, false
			}
		}
		return out, true
	})
	// Affinity to pods that do not exist (and not to itself): Pending.
	apply("orphan.yaml", podManifest("orphan", "app: orphan", fmt.Sprintf(affinitySpec, "nobody")))
	pending("orphan", "0/3 nodes are available: 3 node(s) didn't match pod affinity rules. "+
		"no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")

	// Topology spread, DoNotSchedule, maxSkew 1 over hostnames: 2/2/2.
	s := fmt.Sprintf(spreadSpec, "kubernetes.io/hostname")
	var spreadPods []string
	for i := 1; i <= 6; i++ {
		spreadPods = append(spreadPods, podManifest(fmt.Sprintf("spread-%d", i), "app: spread", s))
	}
	apply("spread.yaml", spreadPods...)
	eventually("six spread pods 2/2/2", func() (string, bool) {
		m, out, ok := nodesOf("app=spread")
		count := map[string]int{}
		for _, n := range m {
			count[n]++
		}
		return out, ok && len(m) == 6 && count["hollow-node-1"] == 2 && count["hollow-node-2"] == 2 && count["hollow-node-3"] == 2
	})
	// A constraint on a label no node has: Pending, and removing pods
	// would not help.
	apply("zonal.yaml", podManifest("zonal", "app: spread", fmt.Sprintf(spreadSpec, "topology.kubernetes.io/zone")))
	pending("zonal", "0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints (missing required label). "+
		"no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
}
