package main_test

// End-to-end test of chapter 4's workload, endpoint and node controllers
// with the real kubectl 1.33 against the real ch04 binary and its hollow
// nodes: Jobs that complete and fail (the hollow kubelet's SIMULATED exits:
// command ["true"] / ["false"]), a DaemonSet with a pod on every node, a
// Service's Endpoints and EndpointSlice, and a node whose (simulated)
// kubelet stops: Unknown, tainted, its intolerant pod evicted, and back.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

const workloadManifests = `
apiVersion: batch/v1
kind: Job
metadata: {name: ok}
spec:
  completions: 2
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"]}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: broken}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["false"]}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: ephemeral}
spec:
  ttlSecondsAfterFinished: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"]}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox, command: ["true"]}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: a, image: agent, ports: [{name: metrics, containerPort: 9100}]}]
---
apiVersion: v1
kind: Service
metadata: {name: agent}
spec:
  selector: {app: agent}
  ports: [{name: metrics, port: 80, targetPort: metrics}]
`

// Pods pinned to hollow-node-3: one tolerates its loss for 2 s, the other
// gets the apiserver's default 300 s; and a Deployment whose one pod
// prefers hollow-node-3 and tolerates its loss for 2 s.
const nodeLossManifests = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: mover}
spec:
  replicas: 1
  selector: {matchLabels: {app: mover}}
  template:
    metadata: {labels: {app: mover}}
    spec:
      affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, preference: {matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [hollow-node-3]}]}}]}}
      tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 2}]
      containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: evictee}
spec:
  nodeName: hollow-node-3
  tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 2}]
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: patient}
spec:
  nodeName: hollow-node-3
  containers: [{name: c, image: nginx}]
`

func TestWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	testenv.Kubectl(t, kubectl133)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=3",
		"--node-monitor-period=1s", "--node-monitor-grace-period=15s"}})
	dir := t.TempDir()
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectl133, dir, args...) }
	eventually := func(what string, f func() (string, bool)) { t.Helper(); testenv.Eventually(t, what, 90*time.Second, f) }
	jsonpath := func(what, path string) func() string {
		return func() string { return k("get", what, "-o", "jsonpath="+path) }
	}
	apply := func(name, manifest string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		k("apply", "-f", name)
	}

	// The node lifecycle controller (not chapter 3's stand-in) removes the
	// admission taint from the Ready nodes.
	eventually("nodes Ready and untainted", func() (string, bool) {
		out := k("get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status} {.spec.taints}{"\n"}{end}`)
		return out, out == "hollow-node-1 True \nhollow-node-2 True \nhollow-node-3 True"
	})
	apply("workloads.yaml", workloadManifests)

	// A Job of two completions completes: SuccessCriteriaMet, then Complete.
	eventually("job ok Complete", func() (string, bool) {
		out := jsonpath("job/ok", `{.status.succeeded} {range .status.conditions[*]}{.type}={.status}/{.reason} {end}`)()
		return out, out == "2 SuccessCriteriaMet=True/CompletionsReached Complete=True/CompletionsReached"
	})
	if got := jsonpath("job/ok", "{.status.completionTime} {.status.startTime}")(); len(strings.Fields(got)) != 2 {
		t.Errorf("job ok times: %q", got)
	}
	eventually("job ok events", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.kind=Job,involvedObject.name=ok", "-o", `jsonpath={range .items[*]}{.reason}: {.message}{"\n"}{end}`)
		return out, strings.Count(out, "SuccessfulCreate: Created pod: ok-") == 2 && strings.Contains(out, "Completed: Job completed")
	})
	if fin := k("get", "pods", "-l", "batch.kubernetes.io/job-name=ok", "-o", "jsonpath={.items[*].metadata.finalizers}"); fin != "" {
		t.Errorf("job-tracking finalizers left: %s", fin)
	}

	// ttlSecondsAfterFinished: 0 — deleted (with its pods) once finished.
	eventually("job ephemeral deleted", func() (string, bool) {
		r := c.Kubectl(t, kubectl133, dir, "get", "job", "ephemeral")
		return r.Combined(), r.ExitCode != 0 && strings.Contains(r.Stderr, "NotFound")
	})

	// A failing pod, backoffLimit 1: a second pod after the 10 s back-off,
	// then FailureTarget and Failed with upstream's reason and message.
	eventually("job broken Failed", func() (string, bool) {
		out := jsonpath("job/broken", `{.status.failed} {range .status.conditions[*]}{.type}={.status}/{.reason}/{.message};{end}`)()
		return out, out == "2 FailureTarget=True/BackoffLimitExceeded/Job has reached the specified backoff limit;Failed=True/BackoffLimitExceeded/Job has reached the specified backoff limit;"
	})
	eventually("BackoffLimitExceeded event", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.name=broken,reason=BackoffLimitExceeded", "-o", "jsonpath={.items[*].message}")
		return out, out == "Job has reached the specified backoff limit"
	})

	// The DaemonSet: one pod on every node, and rollout status agrees.
	if out := k("rollout", "status", "ds/agent", "--timeout=90s"); !strings.HasSuffix(out, `daemon set "agent" successfully rolled out`) {
		t.Fatalf("rollout status ds/agent:\n%s", out)
	}
	nodesOf := k("get", "pods", "-l", "app=agent", "-o", `jsonpath={range .items[*]}{.spec.nodeName}{"\n"}{end}`)
	if got := strings.Split(nodesOf, "\n"); !slices.Equal(sorted(got), []string{"hollow-node-1", "hollow-node-2", "hollow-node-3"}) {
		t.Errorf("daemon pods on %q", got)
	}
	if st := jsonpath("ds/agent", "{.status.desiredNumberScheduled} {.status.currentNumberScheduled} {.status.numberReady} {.status.updatedNumberScheduled} {.status.numberAvailable} {.status.numberMisscheduled}")(); st != "3 3 3 3 3 0" {
		t.Errorf("daemonset status: %s", st)
	}

	// The Service: Endpoints and an EndpointSlice with the pods' IPs and
	// the named port resolved (metrics -> 9100).
	podIPs := sorted(strings.Fields(k("get", "pods", "-l", "app=agent", "-o", "jsonpath={.items[*].status.podIP}")))
	eventually("endpoints", func() (string, bool) {
		out := jsonpath("endpoints/agent", "{.subsets[*].addresses[*].ip} {.subsets[*].ports[*].port}")()
		f := strings.Fields(out)
		return out, len(f) == 4 && slices.Equal(sorted(f[:3]), podIPs) && f[3] == "9100"
	})
	eventually("endpointslice", func() (string, bool) {
		out := k("get", "endpointslices", "-l", "kubernetes.io/service-name=agent,endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io",
			"-o", `jsonpath={range .items[*].endpoints[*]}{.addresses[0]}/{.conditions.ready}/{.nodeName}{"\n"}{end}`)
		var ips []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Split(l, "/"); len(f) == 3 && f[1] == "true" && strings.HasPrefix(f[2], "hollow-node-") {
				ips = append(ips, f[0])
			}
		}
		return out, slices.Equal(sorted(ips), podIPs)
	})

	// A new template rolls out node by node (maxUnavailable 1): every pod
	// replaced, with a new controller-revision-hash.
	oldHash := k("get", "pods", "-l", "app=agent", "-o", `jsonpath={.items[0].metadata.labels.controller-revision-hash}`)
	k("set", "image", "ds/agent", "a=agent:2")
	if out := k("rollout", "status", "ds/agent", "--timeout=90s"); !strings.HasSuffix(out, `daemon set "agent" successfully rolled out`) {
		t.Fatalf("rollout status after set image:\n%s", out)
	}
	eventually("daemon pods replaced", func() (string, bool) {
		out := k("get", "pods", "-l", "app=agent", "-o", `jsonpath={range .items[*]}{.spec.containers[0].image} {.metadata.labels.controller-revision-hash} {.status.phase} {.metadata.deletionTimestamp}{"\n"}{end}`)
		lines := strings.Split(out, "\n")
		for _, l := range lines {
			if f := strings.Fields(l); len(f) != 3 || f[0] != "agent:2" || f[1] == oldHash || f[2] != "Running" {
				return out, false
			}
		}
		return out, len(lines) == 3
	})

	// hollow-node-3's kubelet stops (SIMULATED): Unknown after the grace
	// period, tainted, its intolerant pod evicted, the others kept.
	apply("nodeloss.yaml", nodeLossManifests)
	eventually("pinned pods Running", func() (string, bool) {
		out := k("get", "pods", "evictee", "patient", "-o", "jsonpath={.items[*].status.phase}")
		return out, out == "Running Running"
	})
	moverPods := func() string {
		return k("get", "pods", "-l", "app=mover", "-o", `jsonpath={range .items[*]}{.spec.nodeName} {.status.phase} {.metadata.deletionTimestamp}{"\n"}{end}`)
	}
	eventually("mover's pod Running on hollow-node-3", func() (string, bool) {
		out := moverPods()
		return out, out == "hollow-node-3 Running"
	})
	k("annotate", "node", "hollow-node-3", "kubik.io/simulate-kubelet-stopped=true")
	eventually("hollow-node-3 Unknown", func() (string, bool) {
		out := jsonpath("node/hollow-node-3", `{range .status.conditions[*]}{.type}={.status}/{.reason}/{.message};{end}`)()
		for _, ty := range []string{"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"} {
			if !strings.Contains(out, ty+"=Unknown/NodeStatusUnknown/Kubelet stopped posting node status.;") {
				return out, false
			}
		}
		return out, true
	})
	eventually("hollow-node-3 tainted", func() (string, bool) {
		out := jsonpath("node/hollow-node-3", `{range .spec.taints[*]}{.key}:{.effect} {end}`)()
		return out, sameWords(out, "node.kubernetes.io/unreachable:NoExecute node.kubernetes.io/unreachable:NoSchedule")
	})
	eventually("evictee evicted", func() (string, bool) {
		out := jsonpath("pod/evictee", `{.metadata.deletionTimestamp}|{.status.conditions[?(@.type=="DisruptionTarget")].reason}`)()
		return out, strings.HasSuffix(out, "|DeletionByTaintManager") && !strings.HasPrefix(out, "|")
	})
	// The Deployment's pod was evicted too; its ReplicaSet made another,
	// and the scheduler put it on a node that is still there.
	eventually("mover's pod rescheduled elsewhere", func() (string, bool) {
		out := moverPods()
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] != "hollow-node-3" && f[1] == "Running" {
				return out, true
			}
		}
		return out, false
	})
	// One event, or one more per restart of a controller manager that lost
	// its Lease on a loaded machine (its recorder starts afresh): each says
	// exactly this.
	eventually("TaintManagerEviction event", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.name=evictee,reason=TaintManagerEviction", "-o", `jsonpath={range .items[*]}{.message}{"\n"}{end}`)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines {
			if l != "Marking for deletion Pod default/evictee" {
				return out, false
			}
		}
		return out, len(lines) > 0
	})
	eventually("patient marked not Ready, not evicted", func() (string, bool) {
		out := jsonpath("pod/patient", `{.status.conditions[?(@.type=="Ready")].status}|{.metadata.deletionTimestamp}`)()
		return out, out == "False|"
	})
	if out := k("get", "pods", "-l", "app=agent", "--field-selector", "spec.nodeName=hollow-node-3", "-o", "jsonpath={.items[*].metadata.deletionTimestamp}"); out != "" {
		t.Errorf("the daemon pod (tolerates unreachable) was evicted: %s", out)
	}

	// The kubelet comes back: Ready, untainted, the pending eviction of
	// the patient pod cancelled, the evicted pod's deletion finished.
	k("annotate", "node", "hollow-node-3", "kubik.io/simulate-kubelet-stopped-")
	eventually("hollow-node-3 back", func() (string, bool) {
		out := jsonpath("node/hollow-node-3", `{.status.conditions[?(@.type=="Ready")].status} {.spec.taints}`)()
		return out, out == "True"
	})
	eventually("eviction cancelled", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.name=patient,reason=TaintManagerEviction", "-o", "jsonpath={.items[*].message}")
		return out, out == "Cancelling deletion of Pod default/patient"
	})
	eventually("evictee gone", func() (string, bool) {
		r := c.Kubectl(t, kubectl133, dir, "get", "pod", "evictee")
		return r.Combined(), r.ExitCode != 0 && strings.Contains(r.Stderr, "NotFound")
	})
	// The kubelet reports its running pod as it sees it: ready again.
	eventually("patient Ready again", func() (string, bool) {
		out := jsonpath("pod/patient", `{.status.conditions[?(@.type=="Ready")].status}`)()
		return out, out == "True"
	})

	// The CronJob (created at the start) has run at a minute's turn: a Job
	// named after the scheduled minute, seen completed.
	eventually("cronjob ran", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.kind=CronJob,involvedObject.name=tick", "-o", `jsonpath={range .items[*]}{.reason}: {.message}{"\n"}{end}`)
		return out, strings.Contains(out, "SuccessfulCreate: Created job tick-") && strings.Contains(out, "SawCompletedJob: Saw completed job: tick-")
	})
	st := jsonpath("cronjob/tick", "{.status.lastScheduleTime} {.status.lastSuccessfulTime}")()
	sched, err := time.Parse(time.RFC3339, strings.Fields(st + " x")[0])
	if err != nil || sched.Second() != 0 {
		t.Fatalf("cronjob status: %q", st)
	}
	if name := fmt.Sprintf("tick-%d", sched.Unix()/60); !strings.Contains(k("get", "jobs", "-o", "name"), "job.batch/"+name) {
		t.Errorf("no job %s", name)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func sameWords(a, b string) bool {
	return slices.Equal(sorted(strings.Fields(a)), sorted(strings.Fields(b)))
}
