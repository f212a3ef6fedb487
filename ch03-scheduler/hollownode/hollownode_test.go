package hollownode

import (
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

func TestSimulatedExit(t *testing.T) {
	for _, tc := range []struct {
		command, args []string
		policy        corev1.RestartPolicy
		code          int32
		exits         bool
	}{
		{[]string{"true"}, nil, corev1.RestartPolicyNever, 0, true},
		{[]string{"/bin/true"}, nil, corev1.RestartPolicyOnFailure, 0, true},
		{[]string{"false"}, nil, corev1.RestartPolicyNever, 1, true},
		{[]string{"false"}, nil, corev1.RestartPolicyOnFailure, 0, false}, // restarts in place on a kubelet
		{[]string{"true"}, nil, corev1.RestartPolicyAlways, 0, false},
		{[]string{"sh", "-c", "exit 0"}, nil, corev1.RestartPolicyNever, 0, true},
		{[]string{"sh", "-c", "exit 0"}, nil, corev1.RestartPolicyOnFailure, 0, true},
		{[]string{"/bin/sh", "-c", "exit 3"}, nil, corev1.RestartPolicyNever, 3, true},
		{[]string{"sh"}, []string{"-c", " exit  7 "}, corev1.RestartPolicyNever, 7, true},
		{[]string{"sh", "-c", "exit"}, nil, corev1.RestartPolicyNever, 0, true},
		{[]string{"sh", "-c", "false"}, nil, corev1.RestartPolicyNever, 1, true},
		{[]string{"sh", "-c", "exit 256"}, nil, corev1.RestartPolicyNever, 0, false},
		{[]string{"sh", "-c", "exit -1"}, nil, corev1.RestartPolicyNever, 0, false},
		{[]string{"sh", "-c", "exit x"}, nil, corev1.RestartPolicyNever, 0, false},
		{[]string{"sh", "-c", "sleep 1; exit 0"}, nil, corev1.RestartPolicyNever, 0, false},
		{[]string{"bash", "-c", "exit 0"}, nil, corev1.RestartPolicyNever, 0, false},
		{[]string{"sleep", "3600"}, nil, corev1.RestartPolicyNever, 0, false},
		{nil, nil, corev1.RestartPolicyNever, 0, false},
	} {
		p := &corev1.Pod{Spec: corev1.PodSpec{RestartPolicy: tc.policy,
			Containers: []corev1.Container{{Name: "c", Command: tc.command, Args: tc.args}}}}
		code, exits := simulatedExit(p)
		if code != tc.code || exits != tc.exits {
			t.Errorf("%q %q under %s: (%d, %v), want (%d, %v)", tc.command, tc.args, tc.policy, code, exits, tc.code, tc.exits)
		}
	}
}

func list(cpu, mem string) corev1.ResourceList {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		l[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return l
}

// runningPod is a pod the node reported Running with requests cpu/mem.
func runningPod(name, cpu, mem string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: name + "-uid", Generation: 1},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: list(cpu, mem), Limits: list(cpu, mem)}}}},
	}
	p.Status = runningStatus(p, "127.0.1.1", "10.244.1.2", metav1.Now())
	return p
}

func TestRunningStatusReportsResources(t *testing.T) {
	p := runningPod("a", "100m", "200Mi")
	cs := p.Status.ContainerStatuses[0]
	if cs.Resources == nil || !sameList(cs.Resources.Requests, list("100m", "200Mi")) ||
		!sameList(cs.Resources.Limits, list("100m", "200Mi")) {
		t.Fatalf("resources = %+v", cs.Resources)
	}
	if cs.AllocatedResources != nil {
		t.Errorf("allocatedResources = %v: upstream's kubelet reports it only with InPlacePodVerticalScalingAllocatedStatus", cs.AllocatedResources)
	}
	if p.Status.ObservedGeneration != 1 {
		t.Errorf("observedGeneration = %d", p.Status.ObservedGeneration)
	}
	best := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	best.Status = runningStatus(best, "127.0.1.1", "10.244.1.3", metav1.Now())
	if r := best.Status.ContainerStatuses[0].Resources; r == nil || r.Limits != nil || r.Requests != nil {
		t.Errorf("BestEffort container resources = %+v, want {}", r)
	}
	if resizeRequested(p) || resizeRequested(best) {
		t.Error("resize requested right after start")
	}
}

func resize(p *corev1.Pod, cpu, mem string) *corev1.Pod {
	r := *p
	r.Generation++
	r.Spec.Containers = []corev1.Container{p.Spec.Containers[0]}
	r.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: list(cpu, mem), Limits: list(cpu, mem)}
	return &r
}

func TestCanResizePod(t *testing.T) {
	allocatable := list("4", "8Gi")
	other := runningPod("other", "3", "1Gi")
	done := runningPod("done", "3", "1Gi")
	done.Status.Phase = corev1.PodSucceeded
	p := runningPod("p", "500m", "1Gi")
	for _, tc := range []struct {
		name, cpu, mem  string
		others          []*corev1.Pod
		reason, message string
	}{
		{"fits", "1", "2Gi", []*corev1.Pod{other}, "", ""},
		{"over capacity cpu", "5", "1Gi", nil, corev1.PodReasonInfeasible,
			"Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000"},
		{"over capacity memory first", "5", "9Gi", nil, corev1.PodReasonInfeasible,
			"Node didn't have enough capacity: memory, requested: 9663676416, capacity: 8589934592"},
		{"others use the room", "1500m", "1Gi", []*corev1.Pod{other}, corev1.PodReasonDeferred,
			"Node didn't have enough resource: cpu, requested: 1500, used: 3000, capacity: 4000"},
		{"memory", "1", "7500Mi", []*corev1.Pod{other}, corev1.PodReasonDeferred,
			"Node didn't have enough resource: memory, requested: 7864320000, used: 1073741824, capacity: 8589934592"},
		{"finished pods free their room", "1500m", "1Gi", []*corev1.Pod{done}, "", ""},
	} {
		r := resize(p, tc.cpu, tc.mem)
		reason, message := canResizePod(r, allocatable, append([]*corev1.Pod{r}, tc.others...))
		if reason != tc.reason || message != tc.message {
			t.Errorf("%s: (%q, %q), want (%q, %q)", tc.name, reason, message, tc.reason, tc.message)
		}
	}
}

func TestResizeFollowsAndConditions(t *testing.T) {
	p := resize(runningPod("p", "500m", "1Gi"), "1", "1Gi")
	if !resizeRequested(p) {
		t.Fatal("resize not seen")
	}
	// Allocated = status: the other pods count with what they were given.
	if got := allocatedPod(p).Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]; got.String() != "500m" {
		t.Errorf("allocated cpu = %s", got.String())
	}

	t0 := metav1.NewTime(time.Now().Add(-time.Minute).Truncate(time.Second))
	pending := *p
	pending.Status = resizedStatus(p, corev1.PodReasonDeferred, "no room", t0)
	c := pendingResize(&pending)
	if c == nil || c.Status != corev1.ConditionTrue || c.Reason != corev1.PodReasonDeferred || c.Message != "no room" ||
		c.ObservedGeneration != 2 || !c.LastTransitionTime.Equal(t0.Time) {
		t.Fatalf("PodResizePending = %+v", c)
	}
	if pending.Status.Conditions[0].Type != corev1.PodResizePending {
		t.Errorf("conditions = %+v: PodResizePending first, as the kubelet lists it", pending.Status.Conditions)
	}
	if got := pending.Status.ContainerStatuses[0].Resources.Requests[corev1.ResourceCPU]; got.String() != "500m" {
		t.Errorf("pending resize changed status resources: cpu %s", got.String())
	}
	// The same reason again keeps the transition time.
	now := metav1.Now()
	again := resizedStatus(&pending, corev1.PodReasonDeferred, "still no room", now)
	if c := again.Conditions[0]; !c.LastTransitionTime.Equal(t0.Time) || c.Message != "still no room" {
		t.Errorf("repeated Deferred = %+v", c)
	}
	infeasible := resizedStatus(&pending, corev1.PodReasonInfeasible, "too big", now)
	if c := infeasible.Conditions[0]; !c.LastTransitionTime.Equal(now.Time) {
		t.Errorf("Infeasible after Deferred kept the old transition time: %+v", c)
	}

	// It fits: the status follows, no resize condition is left.
	pending.Status = resizedStatus(&pending, "", "", now)
	if pendingResize(&pending) != nil {
		t.Errorf("conditions after resize = %+v", pending.Status.Conditions)
	}
	if got := pending.Status.ContainerStatuses[0].Resources.Requests[corev1.ResourceCPU]; got.String() != "1" {
		t.Errorf("status cpu after resize = %s", got.String())
	}
	if pending.Status.ObservedGeneration != 2 || resizeRequested(&pending) {
		t.Errorf("observedGeneration %d, resize still requested %v", pending.Status.ObservedGeneration, resizeRequested(&pending))
	}
	if cpu := p.Status.ContainerStatuses[0].Resources.Requests[corev1.ResourceCPU]; cpu.String() != "500m" {
		t.Error("resizedStatus modified its input")
	}
}
