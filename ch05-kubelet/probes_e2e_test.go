//go:build linux

package main_test

// End-to-end test of probes and lifecycle hooks on the real node: a
// liveness probe that starts failing (the container is killed and
// restarted), a readiness probe that flips the pod's READY column, a
// tcpSocket probe, a startup probe that holds the liveness probe back,
// a postStart hook that fails, and preStop hooks seen by a listener pod.

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func TestProbes(t *testing.T) {
	n := startNode(t)
	n.eventually("ServiceAccount default", func() (string, bool) {
		r := n.c.Kubectl(t, kubectl133, n.dir, "get", "serviceaccount/default", "-o", "name")
		return r.Combined(), r.ExitCode == 0
	})
	// events lists the kubelet's events about a pod: reason/type: message.
	events := func(pod string) string {
		return n.k("get", "events", "--field-selector", "involvedObject.name="+pod, "-o",
			`jsonpath={range .items[*]}{.reason}/{.type}/{.involvedObject.fieldPath}: {.message}{"\n"}{end}`)
	}
	field := func(pod, jsonpath string) string { return n.k("get", "pod", pod, "-o", "jsonpath="+jsonpath) }

	n.apply("probes.yaml", `apiVersion: v1
kind: Pod
metadata: {name: liveness}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: liveness
    image: busybox:1.35
    command: [sh, -c, 'touch /tmp/healthy; sleep 5; rm /tmp/healthy; sleep 600']
    livenessProbe:
      exec: {command: [cat, /tmp/healthy]}
      periodSeconds: 1
      failureThreshold: 2
---
apiVersion: v1
kind: Pod
metadata: {name: tcp}
spec:
  containers:
  - name: demo
    image: kubik.local/demo:1.0
    ports: [{name: http, containerPort: 8080}]
    readinessProbe:
      tcpSocket: {port: http}
      periodSeconds: 1
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 1
---
apiVersion: v1
kind: Pod
metadata: {name: startup}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: slow
    image: busybox:1.35
    command: [sh, -c, 'sleep 10; touch /tmp/started; sleep 600']
    startupProbe:
      exec: {command: [cat, /tmp/started]}
      periodSeconds: 1
      failureThreshold: 60
    livenessProbe:
      exec: {command: [cat, /tmp/started]}
      periodSeconds: 1
      failureThreshold: 1
---
apiVersion: v1
kind: Pod
metadata: {name: poststart}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: hook
    image: busybox:1.35
    command: [sleep, "600"]
    lifecycle:
      postStart:
        exec: {command: [sh, -c, 'echo no; exit 3']}
`)

	// (4) Hooks: a listener pod (busybox httpd -vv) logs the URL of each
	// request; a pod's httpGet postStart and preStop hooks GET from it
	// (404s: a hook's status code does not matter), another pod's exec
	// preStop runs wget.
	n.apply("listener.yaml", `apiVersion: v1
kind: Pod
metadata: {name: listener}
spec:
  containers:
  - name: httpd
    image: busybox:1.35
    command: [httpd, -f, -vv, -p, "8080", -h, /www]
`)
	var ip string
	n.eventually("listener Running", func() (string, bool) {
		out := field("listener", "{.status.phase} {.status.podIP}")
		f := strings.Fields(out)
		if len(f) == 2 && f[0] == "Running" {
			ip = f[1]
		}
		return out, ip != ""
	})
	uid := field("listener", "{.metadata.uid}")
	listenerLog := func() string { return criContainerLog(t, n.rt, uid) }

	n.apply("hooks.yaml", `apiVersion: v1
kind: Pod
metadata: {name: hooks-http}
spec:
  terminationGracePeriodSeconds: 3
  containers:
  - name: main
    image: busybox:1.35
    command: [sleep, "600"]
    lifecycle:
      postStart: {httpGet: {host: `+ip+`, port: 8080, path: /poststart-hello}}
      preStop: {httpGet: {host: `+ip+`, port: 8080, path: /prestop-bye}}
`)
	n.eventually("hooks-http's postStart GET", func() (string, bool) {
		out := listenerLog()
		return out, strings.Contains(out, "url:/poststart-hello")
	})
	n.eventually("hooks-http Running", func() (string, bool) {
		out := field("hooks-http", "{.status.phase} {.status.containerStatuses[0].ready}")
		return out, out == "Running true"
	})
	n.k("delete", "pod", "hooks-http") // waits until it is gone
	if out := listenerLog(); !strings.Contains(out, "url:/prestop-bye") {
		t.Errorf("hooks-http's preStop GET did not reach the listener; its log:\n%s", out)
	}

	n.apply("hooks-exec.yaml", `apiVersion: v1
kind: Pod
metadata: {name: hooks-exec}
spec:
  terminationGracePeriodSeconds: 3
  containers:
  - name: main
    image: busybox:1.35
    command: [sleep, "600"]
    lifecycle:
      preStop: {exec: {command: [sh, -c, 'wget -q -O- http://`+ip+`:8080/prestop-exec-bye; true']}}
  - name: bad
    image: busybox:1.35
    command: [sleep, "600"]
    lifecycle:
      preStop: {exec: {command: [sh, -c, 'exit 1']}}
`)
	n.eventually("hooks-exec Running", func() (string, bool) {
		out := n.k("get", "pod", "hooks-exec")
		return out, regexp.MustCompile(`(?m)^hooks-exec\s+2/2\s+Running\s`).MatchString(out)
	})
	n.k("delete", "pod", "hooks-exec")
	if out := listenerLog(); !strings.Contains(out, "url:/prestop-exec-bye") {
		t.Errorf("hooks-exec's preStop did not reach the listener; its log:\n%s", out)
	}
	n.eventually("FailedPreStopHook event", func() (string, bool) {
		out := events("hooks-exec")
		return out, strings.Contains(out, "FailedPreStopHook/Warning/spec.containers{bad}: PreStopHook failed")
	})

	// (1) Liveness: healthy for 5 s, then cat fails; the container is
	// killed and restarted, again and again.
	n.eventually("liveness restarted", func() (string, bool) {
		out := field("liveness", "{.status.containerStatuses[0].restartCount}")
		c, _ := strconv.Atoi(out)
		return out, c >= 1
	})
	n.eventually("liveness events", func() (string, bool) {
		out := events("liveness")
		return out, strings.Contains(out, "Unhealthy/Warning/spec.containers{liveness}: Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory") &&
			strings.Contains(out, "Killing/Normal/spec.containers{liveness}: Container liveness failed liveness probe, will be restarted")
	})
	// The killed attempt is the last state: SIGTERM is ignored by a shell
	// as PID 1, so the runtime SIGKILLs it after the grace period.
	if out := field("liveness", "{.status.containerStatuses[0].lastState.terminated.exitCode}"); out != "137" {
		t.Errorf("liveness lastState exit code %q, want 137", out)
	}

	// (2) Readiness: not ready until /ready exists (httpd answers 404),
	// ready while it does, not ready again once it is gone. (Created
	// now: the first 15 s are the window the test sees it not ready in.)
	n.apply("readiness.yaml", `apiVersion: v1
kind: Pod
metadata: {name: readiness}
spec:
  containers:
  - name: web
    image: busybox:1.35
    command: [sh, -c, 'httpd -p 8080 -h /www; sleep 15; touch /www/ready; sleep 15; rm /www/ready; sleep 600']
    ports: [{name: http, containerPort: 8080}]
    readinessProbe:
      httpGet: {path: /ready, port: http}
      periodSeconds: 1
`)
	readyCol := regexp.MustCompile(`(?m)^readiness\s+(\d/\d)\s+Running\s+0\s`)
	ready := func(want string) func() (string, bool) {
		return func() (string, bool) {
			out := n.k("get", "pod", "readiness")
			m := readyCol.FindStringSubmatch(out)
			return out, m != nil && m[1] == want
		}
	}
	n.eventually("readiness Running 0/1", ready("0/1"))
	if out := field("readiness", `{.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="ContainersReady")].message}`); out != "False containers with unready status: [web]" {
		t.Errorf("readiness Ready condition before /ready exists: %q", out)
	}
	n.eventually("readiness Running 1/1", ready("1/1"))
	if out := field("readiness", `{.status.conditions[?(@.type=="Ready")].status} {.status.containerStatuses[0].ready}`); out != "True true" {
		t.Errorf("readiness Ready condition with /ready: %q", out)
	}
	n.eventually("readiness Running 0/1 again", ready("0/1"))
	n.eventually("readiness event", func() (string, bool) {
		out := events("readiness")
		return out, strings.Contains(out, "Unhealthy/Warning/spec.containers{web}: Readiness probe failed: HTTP probe failed with statuscode: 404")
	})

	// A tcpSocket readiness probe on a named port and an httpGet liveness
	// probe on the demo app: ready, never restarted.
	n.eventually("tcp 1/1", func() (string, bool) {
		out := n.k("get", "pod", "tcp")
		return out, regexp.MustCompile(`(?m)^tcp\s+1/1\s+Running\s+0\s`).MatchString(out)
	})

	// (3) Startup: for 10 s the startup probe fails and holds the liveness
	// probe (failureThreshold 1) back; then the container is started and
	// ready, never killed.
	n.eventually("startup started", func() (string, bool) {
		out := field("startup", "{.status.containerStatuses[0].started} {.status.containerStatuses[0].ready} {.status.containerStatuses[0].restartCount}")
		return out, out == "true true 0"
	})
	out := events("startup")
	if !strings.Contains(out, "Unhealthy/Warning/spec.containers{slow}: Startup probe failed: cat: can't open '/tmp/started': No such file or directory") ||
		strings.Contains(out, "Liveness probe failed") || strings.Contains(out, "Killing") {
		t.Errorf("startup's events:\n%s", out)
	}

	// (5) A failing postStart hook: the container is killed and restarted.
	n.eventually("poststart restarted twice", func() (string, bool) {
		out := field("poststart", "{.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].state.waiting.reason}")
		c, _ := strconv.Atoi(strings.Fields(out + " x")[0])
		return out, c >= 2
	})
	n.eventually("poststart events", func() (string, bool) {
		out := events("poststart")
		return out, strings.Contains(out, "FailedPostStartHook/Warning/spec.containers{hook}: PostStartHook failed") &&
			strings.Contains(out, "Killing/Normal/spec.containers{hook}: FailedPostStartHook")
	})
	t.Logf("kubectl get pods:\n%s", n.k("get", "pods"))
	t.Logf("kubectl describe pod liveness:\n%s", n.k("describe", "pod", "liveness"))
	d := n.k("describe", "pod", "poststart")
	t.Logf("kubectl describe pod poststart:\n%s", d)
	if !regexp.MustCompile(`Warning\s+FailedPostStartHook\s+.*kubelet\s+PostStartHook failed`).MatchString(d) {
		t.Errorf("kubectl describe pod poststart:\n%s", d)
	}

}

// criContainerLog reads the log file of the pod's (first) container as the
// runtime writes it (CRI format: "<time> stdout F <line>").
func criContainerLog(t *testing.T, rt cri.RuntimeServiceClient, uid string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := rt.ListContainers(ctx, &cri.ListContainersRequest{Filter: &cri.ContainerFilter{
		LabelSelector: map[string]string{"io.kubernetes.pod.uid": uid}}})
	if err != nil || len(resp.Containers) == 0 {
		t.Fatalf("the pod's containers: %v %v", resp, err)
	}
	st, err := rt.ContainerStatus(ctx, &cri.ContainerStatusRequest{ContainerId: resp.Containers[0].Id})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(st.Status.LogPath)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
