package prober

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch05-kubelet/kubelet/probe"
)

// fakeRunner plays the runtime's ExecSync: each call takes the next
// scripted exit code (the last one repeats) and is counted.
type fakeRunner struct {
	exits   []int
	output  string
	calls   int
	lastCmd []string
}

func (f *fakeRunner) run(_ context.Context, _ string, cmd []string, _ time.Duration) ([]byte, error) {
	code := f.exits[min(f.calls, len(f.exits)-1)]
	f.calls++
	f.lastCmd = cmd
	if code == 0 {
		return nil, nil
	}
	return []byte(f.output), &probe.CodeExitError{Code: code, Err: fmt.Errorf("command '%s' exited with %d: %s", strings.Join(cmd, " "), code, f.output)}
}

// fakeStatuses plays the kubelet's status manager: the pods' last
// statuses by UID.
type fakeStatuses map[string]corev1.PodStatus

func (s fakeStatuses) GetPodStatus(uid string) (corev1.PodStatus, bool) {
	st, ok := s[uid]
	return st, ok
}

// probeFixture is a probe manager with a fake runner and clock, and a pod
// whose container "web" (ID c1) started at t0.
type probeFixture struct {
	m        *Manager
	statuses fakeStatuses
	run      *fakeRunner
	pod      *corev1.Pod
	now      time.Time
	t0       time.Time
	events   []string
}

func newProbeFixture(t *testing.T, c corev1.Container, exits ...int) *probeFixture {
	f := &probeFixture{statuses: fakeStatuses{}, run: &fakeRunner{exits: exits, output: "cat: can't open '/tmp/healthy': No such file or directory\n"}}
	f.t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.now = f.t0
	event := func(_ *corev1.Pod, c corev1.Container, eventType, reason, format string, args ...any) {
		f.events = append(f.events, eventType+" "+reason+" "+c.Name+": "+fmt.Sprintf(format, args...))
	}
	f.m = NewManager(f.statuses, f.run.run, nil, event, nil, slog.New(slog.DiscardHandler))
	f.m.now = func() time.Time { return f.now }
	c.Name = "web"
	f.pod = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{c}, RestartPolicy: corev1.RestartPolicyAlways}}
	f.setStatus(false)
	return f
}

// setStatus is the pod's status as the sync loop would write it: web
// running as c1, started or not.
func (f *probeFixture) setStatus(started bool) {
	f.statuses["u1"] = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.0.9",
		ContainerStatuses: []corev1.ContainerStatus{{Name: "web", ContainerID: "containerd://c1", Started: &started,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(f.t0)}}}}}
}

func (f *probeFixture) worker(t probeType) *worker {
	return newWorker(f.m, t, f.pod, f.pod.Spec.Containers[0])
}

func execProbe(period, delay, success, failure int32) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}},
		PeriodSeconds: period, InitialDelaySeconds: delay, SuccessThreshold: success, FailureThreshold: failure, TimeoutSeconds: 1}
}

func TestLivenessFailureThreshold(t *testing.T) {
	f := newProbeFixture(t, corev1.Container{LivenessProbe: execProbe(1, 0, 1, 3)}, 0, 1)
	f.setStatus(true)
	w := f.worker(liveness)
	want := []result{resultSuccess, resultSuccess, resultSuccess, resultFailure}
	for i, r := range want {
		if !w.doProbe(context.Background()) {
			t.Fatalf("probe %d: the worker stopped", i)
		}
		if got, _ := f.m.liveness.get("c1"); got != r {
			t.Fatalf("after probe %d (exit codes 0, 1, 1, 1): liveness %v, want %v", i, got, r)
		}
	}
	// Failed: on hold, no more probing of this container.
	w.doProbe(context.Background())
	if f.run.calls != 4 {
		t.Errorf("ExecSync calls = %d, want 4 (none while on hold)", f.run.calls)
	}
	wantEvent := "Warning Unhealthy web: Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n"
	if len(f.events) != 3 || f.events[0] != wantEvent {
		t.Errorf("events = %q, want 3 × %q", f.events, wantEvent)
	}
}

func TestReadinessSuccessThresholdAndInitialValue(t *testing.T) {
	f := newProbeFixture(t, corev1.Container{ReadinessProbe: execProbe(1, 0, 2, 1)}, 1, 0)
	f.setStatus(true)
	w := f.worker(readiness)
	running := map[string]string{"web": "c1"}
	if p := f.m.Probed(f.pod, running)["c1"]; p.Ready || !p.Started {
		t.Fatalf("before any probe: %+v, want started, not ready", p)
	}
	want := []result{resultFailure, resultFailure, resultSuccess} // exit 1; exit 0 once; twice
	for i, r := range want {
		w.doProbe(context.Background())
		if got, _ := f.m.readiness.get("c1"); got != r {
			t.Fatalf("after probe %d: readiness %v, want %v", i, got, r)
		}
	}
	if p := f.m.Probed(f.pod, running)["c1"]; !p.Ready {
		t.Errorf("after 2 successes (successThreshold 2): %+v, want ready", p)
	}
	// A new container (a restart) starts over: not ready.
	f.statuses["u1"] = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "web",
		ContainerID: "containerd://c2", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(f.t0)}}}}}
	f.run.exits = []int{1}
	w.doProbe(context.Background())
	if _, ok := f.m.readiness.get("c1"); ok {
		t.Error("the old container's result is still cached")
	}
	if got, _ := f.m.readiness.get("c2"); got != resultFailure {
		t.Errorf("new container: readiness %v, want Failure", got)
	}
}

func TestInitialDelay(t *testing.T) {
	f := newProbeFixture(t, corev1.Container{LivenessProbe: execProbe(1, 10, 1, 1)}, 1)
	f.setStatus(true)
	w := f.worker(liveness)
	f.now = f.t0.Add(9 * time.Second)
	w.doProbe(context.Background())
	if f.run.calls != 0 {
		t.Fatalf("probed %d times 9 s into an initialDelaySeconds of 10", f.run.calls)
	}
	f.now = f.t0.Add(10 * time.Second)
	w.doProbe(context.Background())
	if got, _ := f.m.liveness.get("c1"); f.run.calls != 1 || got != resultFailure {
		t.Errorf("after the delay: %d calls, liveness %v; want 1, Failure", f.run.calls, got)
	}
}

func TestStartupGatesLivenessAndReadiness(t *testing.T) {
	c := corev1.Container{StartupProbe: execProbe(1, 0, 1, 30), LivenessProbe: execProbe(1, 0, 1, 1), ReadinessProbe: execProbe(1, 0, 1, 1)}
	f := newProbeFixture(t, c, 1, 1, 0)
	live, ready, start := f.worker(liveness), f.worker(readiness), f.worker(startup)
	running := map[string]string{"web": "c1"}

	// Not started: liveness and readiness wait, startup probes.
	for range 2 {
		live.doProbe(context.Background())
		ready.doProbe(context.Background())
		start.doProbe(context.Background())
	}
	if f.run.calls != 2 {
		t.Fatalf("ExecSync calls = %d, want 2 (the startup probe's only)", f.run.calls)
	}
	if p := f.m.Probed(f.pod, running)["c1"]; p.Started || p.Ready {
		t.Fatalf("startup failing: %+v, want not started, not ready", p)
	}
	if got, _ := f.m.liveness.get("c1"); got != resultSuccess {
		t.Errorf("liveness before start = %v, want its initial Success (no kill)", got)
	}
	start.doProbe(context.Background()) // exit 0
	if p := f.m.Probed(f.pod, running)["c1"]; !p.Started || p.Ready {
		t.Fatalf("startup succeeded: %+v, want started, not ready yet", p)
	}
	// The sync loop writes started: true; now the others probe, startup rests.
	f.setStatus(true)
	calls := f.run.calls
	start.doProbe(context.Background())
	ready.doProbe(context.Background())
	if f.run.calls != calls+1 {
		t.Errorf("after start: %d more calls, want 1 (readiness only)", f.run.calls-calls)
	}
	if p := f.m.Probed(f.pod, running)["c1"]; !p.Ready {
		t.Errorf("readiness succeeded: %+v, want ready", p)
	}
}

func TestStartupFailureThreshold(t *testing.T) {
	f := newProbeFixture(t, corev1.Container{StartupProbe: execProbe(1, 0, 1, 2)}, 1)
	w := f.worker(startup)
	w.doProbe(context.Background())
	if got, _ := f.m.startup.get("c1"); got != resultUnknown {
		t.Fatalf("after 1 failure of 2: %v, want UNKNOWN", got)
	}
	w.doProbe(context.Background())
	if got, _ := f.m.startup.get("c1"); got != resultFailure {
		t.Fatalf("after 2 failures: %v, want Failure", got)
	}
	if !strings.HasPrefix(f.events[0], "Warning Unhealthy web: Startup probe failed: cat: can't open") {
		t.Errorf("event %q", f.events[0])
	}
}

func TestWorkerStopsWhenPodIsDone(t *testing.T) {
	f := newProbeFixture(t, corev1.Container{ReadinessProbe: execProbe(1, 0, 1, 1)}, 0)
	f.statuses["u1"] = corev1.PodStatus{Phase: corev1.PodSucceeded}
	if f.worker(readiness).doProbe(context.Background()) {
		t.Error("the worker of a Succeeded pod keeps going")
	}
	// An exited container under restartPolicy Never: done too.
	f.pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	f.statuses["u1"] = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "web",
		ContainerID: "containerd://c1", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}}}}
	w := f.worker(readiness)
	if w.doProbe(context.Background()) {
		t.Error("the worker of an exited container that never restarts keeps going")
	}
	if got, _ := f.m.readiness.get("c1"); got != resultFailure {
		t.Errorf("exited container: readiness %v, want Failure", got)
	}
}

func TestProbeErroredEvent(t *testing.T) {
	f := newProbeFixture(t, corev1.Container{LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
		TCPSocket: &corev1.TCPSocketAction{}}, PeriodSeconds: 1, FailureThreshold: 1, SuccessThreshold: 1}})
	_, err := f.m.prober.probe(context.Background(), liveness, f.pod, corev1.PodStatus{}, f.pod.Spec.Containers[0], "c1")
	want := "Warning Unhealthy web: Liveness probe errored and resulted in unknown state: invalid port number: 0"
	if err == nil || len(f.events) != 1 || f.events[0] != want {
		t.Errorf("err %v, events %q; want %q", err, f.events, want)
	}
}

// An exec probe's $(VAR) come from the container's plain env only.
func TestExecProbeExpandsStaticEnv(t *testing.T) {
	p := execProbe(1, 0, 1, 1)
	p.Exec.Command = []string{"cat", "$(FILE)", "$(FROM_CM)", "$$(FILE)"}
	f := newProbeFixture(t, corev1.Container{LivenessProbe: p, Env: []corev1.EnvVar{{Name: "FILE", Value: "/tmp/x"},
		{Name: "FROM_CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{Key: "k"}}}}}, 0)
	f.m.prober.probe(context.Background(), liveness, f.pod, corev1.PodStatus{}, f.pod.Spec.Containers[0], "c1")
	if got := strings.Join(f.run.lastCmd, " "); got != "cat /tmp/x  $(FILE)" {
		t.Errorf("command run: %q", got)
	}
}
