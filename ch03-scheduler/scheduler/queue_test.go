package scheduler

import (
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/scheduler/framework"
	"kubik/ch03-scheduler/scheduler/plugins"
)

// fakeClock is the queue's time, moved by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time       { return c.t }
func (c *fakeClock) step(d time.Duration) { c.t = c.t.Add(d) }
func newTestQueue() (*SchedulingQueue, *fakeClock) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	q := NewSchedulingQueue(plugins.PrioritySort{}.Less)
	q.now = clock.now
	return q, clock
}

func queuedPod(name string, priority int32) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name},
		Spec: corev1.PodSpec{Priority: &priority}}
}

func pop(t *testing.T, q *SchedulingQueue) (*framework.QueuedPodInfo, int64) {
	t.Helper()
	if a, _, _ := q.Lens(); a == 0 {
		t.Fatal("Pop on an empty activeQ would block")
	}
	return q.Pop()
}

// Higher priority first; equal priority: the one queued earlier.
func TestQueueOrder(t *testing.T) {
	q, clock := newTestQueue()
	q.Add(queuedPod("low-old", 0))
	clock.step(time.Second)
	q.Add(queuedPod("high", 100))
	clock.step(time.Second)
	q.Add(queuedPod("low-new", 0))
	var got []string
	for range 3 {
		p, _ := pop(t, q)
		got = append(got, p.Pod.Name)
	}
	if want := []string{"high", "low-old", "low-new"}; !equalStrings(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// A pod that failed waits 1s, 2s, 4s, 8s, then 10s at most before its next
// attempt (upstream's podInitialBackoff/podMaxBackoff).
func TestQueueBackoffDoubles(t *testing.T) {
	q, clock := newTestQueue()
	q.Add(queuedPod("p", 0))
	for _, want := range []time.Duration{1, 2, 4, 8, 10, 10} {
		p, cycle := pop(t, q)
		q.MoveAllToActiveOrBackoffQueue("NodeAdd") // an event during the attempt: to backoffQ, not unschedulable
		q.AddUnschedulable(p, cycle, true)
		clock.step(want*time.Second - time.Millisecond)
		q.flushBackoffQCompleted()
		if a, b, _ := q.Lens(); a != 0 || b != 1 {
			t.Fatalf("attempt %d: %v after the failure: active %d backoff %d, want still backing off", p.Attempts, want*time.Second-time.Millisecond, a, b)
		}
		clock.step(time.Millisecond)
		q.flushBackoffQCompleted()
		if a, b, _ := q.Lens(); a != 1 || b != 0 {
			t.Fatalf("attempt %d: after %v: active %d backoff %d, want active", p.Attempts, want*time.Second, a, b)
		}
	}
}

// No node fits and nothing happened meanwhile: the pod waits in
// unschedulablePods until an event moves it, or 5 minutes pass.
func TestQueueUnschedulableWaitsForAnEvent(t *testing.T) {
	q, clock := newTestQueue()
	q.Add(queuedPod("a", 0))
	q.Add(queuedPod("b", 0))
	pa, ca := pop(t, q)
	pb, cb := pop(t, q)
	q.AddUnschedulable(pa, ca, true)
	q.AddUnschedulable(pb, cb, true)
	if a, b, u := q.Lens(); a != 0 || b != 0 || u != 2 {
		t.Fatalf("after failures: %d %d %d, want 0 0 2", a, b, u)
	}
	clock.step(PodMaxInUnschedulablePodsDuration - time.Second)
	q.flushUnschedulablePodsLeftover()
	if _, _, u := q.Lens(); u != 2 {
		t.Fatalf("moved before %v", PodMaxInUnschedulablePodsDuration)
	}
	// An event moves them all (their backoff is over by now).
	q.MoveAllToActiveOrBackoffQueue("NodeAdd")
	if a, _, u := q.Lens(); a != 2 || u != 0 {
		t.Fatalf("after NodeAdd: active %d unschedulable %d", a, u)
	}

	// The same pods fail again; 5 minutes later they are retried anyway.
	pa, ca = pop(t, q)
	pb, cb = pop(t, q)
	q.AddUnschedulable(pa, ca, true)
	q.AddUnschedulable(pb, cb, true)
	clock.step(PodMaxInUnschedulablePodsDuration)
	q.flushUnschedulablePodsLeftover()
	if a, b, u := q.Lens(); a+b != 2 || u != 0 {
		t.Fatalf("after %v: active %d backoff %d unschedulable %d", PodMaxInUnschedulablePodsDuration, a, b, u)
	}
}

// An event only some plugins care about moves only the pods they rejected.
func TestQueueMovePodsRejectedBy(t *testing.T) {
	q, clock := newTestQueue()
	q.Add(queuedPod("affine", 0))
	q.Add(queuedPod("big", 0))
	for range 2 {
		p, cycle := pop(t, q)
		plugin := "NodeResourcesFit"
		if p.Pod.Name == "affine" {
			plugin = "InterPodAffinity"
		}
		p.UnschedulablePlugins = map[string]bool{plugin: true}
		q.AddUnschedulable(p, cycle, true)
	}
	clock.step(PodMaxBackoff)
	q.MovePodsRejectedBy("AssignedPodAdd", "InterPodAffinity", "PodTopologySpread")
	if a, _, u := q.Lens(); a != 1 || u != 1 {
		t.Fatalf("active %d unschedulable %d, want 1 and 1", a, u)
	}
	if p, _ := pop(t, q); p.Pod.Name != "affine" {
		t.Errorf("moved %s, want affine", p.Pod.Name)
	}
}

// A pod whose spec changes while it waits (a toleration added) is retried.
func TestQueueUpdateRetriesUnschedulable(t *testing.T) {
	q, clock := newTestQueue()
	old := queuedPod("p", 0)
	q.Add(old)
	p, cycle := pop(t, q)
	q.AddUnschedulable(p, cycle, true)
	clock.step(PodMaxBackoff)

	status := *old
	status.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}
	q.Update(old, &status) // only status: nothing the scheduler looks at
	if _, _, u := q.Lens(); u != 1 {
		t.Fatal("a status change retried the pod")
	}
	tolerant := status
	tolerant.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
	q.Update(&status, &tolerant)
	if a, _, u := q.Lens(); a != 1 || u != 0 {
		t.Fatalf("after a spec change: active %d unschedulable %d", a, u)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A pod with scheduling gates waits outside the queue, untried, until an
// update removes its last gate (upstream's SchedulingGates PreEnqueue).
func TestQueueGatedPods(t *testing.T) {
	q, _ := newTestQueue()
	q.PreEnqueue = func(p *corev1.Pod) *framework.Status { return plugins.SchedulingGates{}.PreEnqueue(t.Context(), p) }
	gated := queuedPod("gated", 0)
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/a"}, {Name: "example.com/b"}}
	q.Add(gated)
	q.Add(queuedPod("free", 0))
	if p, _ := pop(t, q); p.Pod.Name != "free" {
		t.Fatalf("popped %s", p.Pod.Name)
	}
	// A cluster event does not let it in.
	q.MoveAllToActiveOrBackoffQueue("NodeAdd")
	if a, b, u := q.Lens(); a+b+u != 0 || len(q.gated) != 1 {
		t.Fatalf("gated pod queued: active %d backoff %d unschedulable %d gated %d", a, b, u, len(q.gated))
	}
	// One gate removed: still waiting.
	one := *gated
	one.Spec.SchedulingGates = gated.Spec.SchedulingGates[1:]
	q.Update(gated, &one)
	if a, _, _ := q.Lens(); a != 0 || len(q.gated) != 1 {
		t.Fatalf("pod with one gate left: active %d gated %d", a, len(q.gated))
	}
	// The last one removed: in.
	none := one
	none.Spec.SchedulingGates = nil
	q.Update(&one, &none)
	if p, _ := pop(t, q); p.Pod.Name != "gated" || len(q.gated) != 0 {
		t.Fatalf("popped %s, gated %d", p.Pod.Name, len(q.gated))
	}
	// Deleted while gated: forgotten.
	q.Add(gated)
	q.Delete(gated)
	if len(q.gated) != 0 {
		t.Fatal("a deleted gated pod is still held")
	}
}

// A pod PreEnqueue turned away for a while (its preemption still evicting)
// is asked about again when a cluster event moves pods, and Activate moves
// a waiting pod straight back (through PreEnqueue).
func TestQueuePreEnqueueRecheckAndActivate(t *testing.T) {
	q, _ := newTestQueue()
	waiting := map[string]bool{"p": true}
	q.PreEnqueue = func(p *corev1.Pod) *framework.Status {
		if waiting[p.Name] {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for the preemption for this pod to be finished")
		}
		return nil
	}
	p := queuedPod("p", 0)
	q.Add(p)
	q.MoveAllToActiveOrBackoffQueue("AssignedPodDelete")
	if a, _, _ := q.Lens(); a != 0 || len(q.gated) != 1 {
		t.Fatalf("still preempting: active %d gated %d", a, len(q.gated))
	}
	waiting["p"] = false
	q.MoveAllToActiveOrBackoffQueue("AssignedPodDelete")
	got, cycle := pop(t, q)
	if got.Pod.Name != "p" {
		t.Fatalf("popped %s", got.Pod.Name)
	}
	// Unschedulable again; Activate brings it back without an event.
	q.AddUnschedulable(got, cycle, true)
	if _, _, u := q.Lens(); u != 1 {
		t.Fatalf("unschedulable %d", u)
	}
	q.Activate(p)
	if a, _, u := q.Lens(); a != 1 || u != 0 {
		t.Fatalf("after Activate: active %d unschedulable %d", a, u)
	}
}
