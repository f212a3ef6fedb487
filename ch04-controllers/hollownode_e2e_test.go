package main_test

// End to end with kubectl 1.33 against the ch04 binary and one hollow node:
// a pod resized in place (pods/<name>/resize) has its status resources
// follow, a resize the node cannot take is PodResizePending (Infeasible;
// Deferred until another pod leaves), and a Job of `sh -c "exit 0"`
// completes (the hollow kubelet's SIMULATED exits).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

const resizeManifests = `
apiVersion: v1
kind: Pod
metadata: {name: r}
spec:
  containers:
  - name: c
    image: nginx
    resources:
      requests: {cpu: 500m, memory: 100Mi}
      limits: {cpu: "1", memory: 200Mi}
`

const bigPod = `
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  containers:
  - name: c
    image: nginx
    resources:
      requests: {cpu: "3"}
`

func TestHollowNodeResizeAndExit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	testenv.Kubectl(t, kubectl133)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=1"}})
	dir := t.TempDir()
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectl133, dir, args...) }
	eventually := func(what string, f func() (string, bool)) { t.Helper(); testenv.Eventually(t, what, 90*time.Second, f) }
	apply := func(name, manifest string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		k("apply", "-f", name)
	}
	resize := func(requests, limits string) {
		t.Helper()
		k("patch", "pod", "r", "--subresource", "resize", "--patch",
			`{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"`+requests+`"},"limits":{"cpu":"`+limits+`"}}}]}}`)
	}
	// status: generation, observedGeneration, the container's status
	// resources, and the resize conditions.
	status := func() string {
		return k("get", "pod", "r", "-o", `jsonpath={.metadata.generation} {.status.observedGeneration} `+
			`{.status.containerStatuses[0].resources} `+
			`{range .status.conditions[?(@.type=="PodResizePending")]}{.reason}/{.message}/{.observedGeneration}{end}`+
			`{range .status.conditions[?(@.type=="PodResizeInProgress")]}InProgress{end}`)
	}
	for _, sa := range []string{"default"} { // the service account controller makes it; pods wait for it
		eventually("serviceaccount "+sa, func() (string, bool) {
			r := c.Kubectl(t, kubectl133, dir, "get", "serviceaccount", sa)
			return r.Combined(), r.ExitCode == 0
		})
	}

	apply("r.yaml", resizeManifests)
	eventually("pod r Running with its resources in status", func() (string, bool) {
		out := status()
		return out, out == `1 1 {"limits":{"cpu":"1","memory":"200Mi"},"requests":{"cpu":"500m","memory":"100Mi"}}`
	})
	if a := k("get", "pod", "r", "-o", "jsonpath={.status.containerStatuses[0].allocatedResources}"); a != "" {
		t.Errorf("allocatedResources %s: upstream's kubelet reports it only with InPlacePodVerticalScalingAllocatedStatus", a)
	}

	// A resize that fits: the status follows, no condition is left.
	resize("800m", "1500m")
	eventually("resize to 800m/1500m applied", func() (string, bool) {
		out := status()
		return out, out == `2 2 {"limits":{"cpu":"1500m","memory":"200Mi"},"requests":{"cpu":"800m","memory":"100Mi"}}`
	})

	// More than the other pods leave: Deferred, until they go. (The
	// scheduler counts r with its new spec: big must be placed first.)
	apply("big.yaml", bigPod)
	eventually("pod big Running", func() (string, bool) {
		out := k("get", "pod", "big", "-o", "jsonpath={.status.phase}")
		return out, out == "Running"
	})
	resize("1500m", "2")
	eventually("resize to 1500m Deferred", func() (string, bool) {
		out := status()
		return out, out == `3 3 {"limits":{"cpu":"1500m","memory":"200Mi"},"requests":{"cpu":"800m","memory":"100Mi"}} `+
			`Deferred/Node didn't have enough resource: cpu, requested: 1500, used: 3000, capacity: 4000/3`
	})
	k("delete", "pod", "big", "--wait=false")
	eventually("deferred resize applied once big is gone", func() (string, bool) {
		out := status()
		return out, out == `3 3 {"limits":{"cpu":"2","memory":"200Mi"},"requests":{"cpu":"1500m","memory":"100Mi"}}`
	})

	// More than the node has: Infeasible, the old resources stay.
	resize("5", "5")
	eventually("resize to 5 CPUs Infeasible", func() (string, bool) {
		out := status()
		return out, out == `4 4 {"limits":{"cpu":"2","memory":"200Mi"},"requests":{"cpu":"1500m","memory":"100Mi"}} `+
			`Infeasible/Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000/4`
	})

	// A Job of `sh -c "exit 0"` completes; `sh -c "exit 3"` fails its pod with exit code 3.
	k("create", "job", "zero", "--image=busybox", "--", "sh", "-c", "exit 0")
	eventually("job zero Complete", func() (string, bool) {
		out := k("get", "job", "zero", "-o", `jsonpath={.status.succeeded} {.status.conditions[?(@.type=="Complete")].status}`)
		return out, out == "1 True"
	})
	k("run", "three", "--image=busybox", "--restart=Never", "--", "/bin/sh", "-c", "exit 3")
	eventually("pod three Failed with exit code 3", func() (string, bool) {
		out := k("get", "pod", "three", "-o", `jsonpath={.status.phase} {.status.containerStatuses[0].state.terminated.exitCode} {.status.containerStatuses[0].state.terminated.reason}`)
		return out, out == "Failed 3 Error"
	})
	if out := k("get", "pods", "three"); !strings.Contains(out, "Error") {
		t.Errorf("kubectl get pods three:\n%s", out)
	}
}
