package kubelet

import (
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch05-kubelet/kubelet/prober"
)

func testPod(policy corev1.RestartPolicy, inits []string, containers ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u"}}
	p.Spec.RestartPolicy = policy
	for _, n := range inits {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: n, Image: "busybox"})
	}
	for _, n := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: n, Image: "busybox:1.35"})
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
	return p
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func running(name string, attempt uint32) observedContainer {
	return observedContainer{ID: name + "-id", Name: name, Image: "docker.io/library/busybox:1.35", Attempt: attempt, State: stateRunning, StartedAt: t0}
}

func exited(name string, attempt uint32, code int32) observedContainer {
	return observedContainer{ID: name + "-id", Name: name, Attempt: attempt, State: stateExited, StartedAt: t0, FinishedAt: t0.Add(time.Second), ExitCode: code}
}

func conds(st corev1.PodStatus) map[corev1.PodConditionType]string {
	m := map[corev1.PodConditionType]string{}
	for _, c := range st.Conditions {
		m[c.Type] = string(c.Status) + "/" + c.Reason
	}
	return m
}

func TestPodStatus(t *testing.T) {
	now := metav1.NewTime(t0)
	obs := func(cs ...observedContainer) observedPod {
		o := observedPod{SandboxReady: true, PodIP: "10.244.0.5", Containers: map[string][]observedContainer{}, Waiting: map[string]waiting{}}
		for _, c := range cs {
			o.Containers[c.Name] = append(o.Containers[c.Name], c)
		}
		return o
	}

	// Running and ready.
	st := podStatus(testPod(corev1.RestartPolicyAlways, nil, "a"), obs(running("a", 0)), "192.0.2.1", now)
	if st.Phase != corev1.PodRunning || st.PodIP != "10.244.0.5" || st.HostIP != "192.0.2.1" || !st.ContainerStatuses[0].Ready ||
		st.ContainerStatuses[0].ContainerID != "containerd://a-id" {
		t.Errorf("running: %+v", st)
	}
	if c := conds(st); c[corev1.PodReady] != "True/" || c[corev1.ContainersReady] != "True/" || c[corev1.PodInitialized] != "True/" ||
		c[corev1.PodReadyToStartContainers] != "True/" || c[corev1.PodScheduled] != "True/" {
		t.Errorf("running conditions: %v", c)
	}

	// Not created yet: Pending, waiting ContainerCreating.
	st = podStatus(testPod(corev1.RestartPolicyAlways, nil, "a"), obs(), "192.0.2.1", now)
	if st.Phase != corev1.PodPending || st.ContainerStatuses[0].State.Waiting.Reason != "ContainerCreating" {
		t.Errorf("creating: %+v", st)
	}
	if c := conds(st); c[corev1.PodReady] != "False/ContainersNotReady" {
		t.Errorf("creating conditions: %v", c)
	}

	// Exit 3 under Never: Failed, terminated Error.
	st = podStatus(testPod(corev1.RestartPolicyNever, nil, "a"), obs(exited("a", 0, 3)), "192.0.2.1", now)
	if term := st.ContainerStatuses[0].State.Terminated; st.Phase != corev1.PodFailed || term == nil || term.ExitCode != 3 || term.Reason != "Error" {
		t.Errorf("exit 3: %+v", st)
	}
	// Exit 0 under OnFailure: Succeeded, Completed; Ready False/PodCompleted.
	st = podStatus(testPod(corev1.RestartPolicyOnFailure, nil, "a"), obs(exited("a", 0, 0)), "192.0.2.1", now)
	if st.Phase != corev1.PodSucceeded || st.ContainerStatuses[0].State.Terminated.Reason != "Completed" {
		t.Errorf("exit 0: %+v", st)
	}
	if c := conds(st); c[corev1.PodReady] != "False/PodCompleted" || c[corev1.PodInitialized] != "True/PodCompleted" {
		t.Errorf("completed conditions: %v", c)
	}

	// Waiting to restart (CrashLoopBackOff): Running phase under Always,
	// the exit is lastState, restartCount the attempt.
	o := obs(exited("a", 2, 1))
	o.Waiting["a"] = waiting{Reason: "CrashLoopBackOff", Message: "back-off 20s restarting failed container=a pod=p_default(u)"}
	st = podStatus(testPod(corev1.RestartPolicyAlways, nil, "a"), o, "192.0.2.1", now)
	cs := st.ContainerStatuses[0]
	if st.Phase != corev1.PodRunning || cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" || cs.RestartCount != 2 ||
		cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 1 {
		t.Errorf("crash loop: %+v", st)
	}
	// Running again after a restart: the previous exit is lastState.
	st = podStatus(testPod(corev1.RestartPolicyAlways, nil, "a"), obs(running("a", 1), exited("a", 0, 1)), "192.0.2.1", now)
	if cs := st.ContainerStatuses[0]; cs.RestartCount != 1 || cs.LastTerminationState.Terminated == nil || cs.State.Running == nil {
		t.Errorf("restarted: %+v", cs)
	}

	// Init containers: the first runs; the app container waits PodInitializing.
	st = podStatus(testPod(corev1.RestartPolicyAlways, []string{"i1", "i2"}, "a"), obs(running("i1", 0)), "192.0.2.1", now)
	if st.Phase != corev1.PodPending || st.ContainerStatuses[0].State.Waiting.Reason != "PodInitializing" ||
		st.InitContainerStatuses[1].State.Waiting.Reason != "PodInitializing" {
		t.Errorf("initializing: %+v", st)
	}
	if c := conds(st); c[corev1.PodInitialized] != "False/ContainersNotInitialized" {
		t.Errorf("initializing conditions: %v", c)
	}
	for _, c := range st.Conditions {
		if c.Type == corev1.PodInitialized && c.Message != "containers with incomplete status: [i1 i2]" {
			t.Errorf("Initialized message %q", c.Message)
		}
	}
	// A failed init container under Never fails the pod.
	st = podStatus(testPod(corev1.RestartPolicyNever, []string{"i1"}, "a"), obs(exited("i1", 0, 2)), "192.0.2.1", now)
	if st.Phase != corev1.PodFailed {
		t.Errorf("failed init: phase %s", st.Phase)
	}
	// All init containers done: Initialized.
	st = podStatus(testPod(corev1.RestartPolicyAlways, []string{"i1"}, "a"), obs(exited("i1", 0, 0), running("a", 0)), "192.0.2.1", now)
	if c := conds(st); st.Phase != corev1.PodRunning || c[corev1.PodInitialized] != "True/" {
		t.Errorf("initialized: %s %v", st.Phase, c)
	}

	// lastTransitionTime stays while a condition's status does not change.
	p := testPod(corev1.RestartPolicyAlways, nil, "a")
	p.Status = podStatus(p, obs(running("a", 0)), "192.0.2.1", now)
	later := podStatus(p, obs(running("a", 0)), "192.0.2.1", metav1.NewTime(t0.Add(time.Minute)))
	for _, c := range later.Conditions {
		if c.Type == corev1.PodReady && !c.LastTransitionTime.Time.Equal(now.Time) {
			t.Errorf("Ready's lastTransitionTime moved to %v", c.LastTransitionTime)
		}
	}
}

// The container status follows the probes: ready and started as they say.
func TestContainerStatusFromProbes(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "busybox:1.35"}}}}
	obs := observedPod{SandboxReady: true, Containers: map[string][]observedContainer{"web": {{ID: "c1", Name: "web", State: stateRunning}}},
		Probed: map[string]prober.ProbedContainer{"c1": {Started: true, Ready: false}}}
	st := podStatus(pod, obs, "127.0.0.1", metav1.Now())
	cs := st.ContainerStatuses[0]
	if cs.Ready || !*cs.Started {
		t.Errorf("container status ready=%v started=%v, want false true", cs.Ready, *cs.Started)
	}
	for _, c := range st.Conditions {
		if (c.Type == corev1.PodReady || c.Type == corev1.ContainersReady) &&
			(c.Status != corev1.ConditionFalse || c.Reason != "ContainersNotReady" || c.Message != "containers with unready status: [web]") {
			t.Errorf("condition %+v", c)
		}
	}
	obs.Probed["c1"] = prober.ProbedContainer{Started: true, Ready: true}
	if st := podStatus(pod, obs, "127.0.0.1", metav1.Now()); !st.ContainerStatuses[0].Ready {
		t.Error("readiness succeeded, the container is not ready")
	}
}
