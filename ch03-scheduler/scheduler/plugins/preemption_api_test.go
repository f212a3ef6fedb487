package plugins

import (
	"context"
	"fmt"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/schedulingv1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/scheduler/framework"
	"kubik/internal/clienttest"
)

// recordedEvent is one Eventf call.
type recordedEvent struct {
	regarding, related, eventType, reason, action, note string
}

type fakeRecorder struct{ events []recordedEvent }

func (f *fakeRecorder) Eventf(regarding, related *corev1.Pod, eventType, reason, action, note string, args ...any) {
	rel := ""
	if related != nil {
		rel = related.Name
	}
	f.events = append(f.events, recordedEvent{regarding.Name, rel, eventType, reason, action, fmt.Sprintf(note, args...)})
}

// TestPreemptionAPI: the eviction through a real apiserver, as
// system:kube-scheduler (its RBAC role must allow it): the victim gets the
// condition DisruptionTarget and a graceful delete, the event Preempted
// is recorded, a lower-priority pod nominated to the node loses its
// nomination; and the next attempt waits for the terminating victim.
func TestPreemptionAPI(t *testing.T) {
	env := clienttest.Start(t, nil)
	ctx := t.Context()
	admin := env.Client(t, pki.Admin)
	sched := env.Client(t, pki.Scheduler)
	for name, value := range map[string]int32{"low": 100, "high": 1000} {
		if _, err := rest.Create(ctx, admin, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}); err != nil {
			t.Fatal(err)
		}
	}
	create := func(name, class, cpu, nodeName string) *corev1.Pod {
		t.Helper()
		p := pod(cpu, "")
		p.Name, p.UID = name, ""
		p.Spec.Containers[0].Image = "nginx"
		p.Spec.PriorityClassName = class
		p.Spec.NodeName = nodeName
		created, err := rest.Create(ctx, admin, p)
		if err != nil {
			t.Fatal(err)
		}
		return created
	}
	victim := create("victim", "low", "3", "n1")
	create("waiting", "low", "1", "")
	waiting, err := rest.Patch[corev1.Pod](ctx, admin, "default", "waiting", rest.MergePatchType,
		[]byte(`{"status":{"nominatedNodeName":"n1"}}`), "status")
	if err != nil || waiting.Status.NominatedNodeName != "n1" {
		t.Fatalf("nominating waiting: %v", err)
	}
	preemptor := create("preemptor", "high", "2", "")

	fw, pl, _ := preemptionFramework(t, fakeNominator{"n1": {waiting}})
	pl.PreemptPod = nil // the real one
	rec := &fakeRecorder{}
	fw.SetHandle(framework.Handle{ClientSet: sched, EventRecorder: rec, PodNominator: fakeNominator{"n1": {waiting}}})

	run := func(victim *corev1.Pod) (*framework.PostFilterResult, *framework.Status) {
		nodes := []*framework.NodeInfo{framework.NewNodeInfo(node("n1", nil, "4", "8Gi"), victim)}
		state := framework.NewCycleState()
		fw.RunPreFilterPlugins(ctx, state, preemptor, nodes)
		statuses := framework.NodeToStatus{"n1": fw.RunFilterPlugins(ctx, state, preemptor, nodes[0])}
		return fw.RunPostFilterPlugins(context.Background(), state, preemptor, nodes, statuses)
	}
	res, st := run(victim)
	if !st.IsSuccess() || res == nil || res.NominatedNodeName != "n1" {
		t.Fatalf("PostFilter: %v %q, %+v", st.Code(), st.Message(), res)
	}
	pl.waitForEvictions() // they run in a goroutine

	got, err := rest.Get[corev1.Pod](ctx, admin, "default", "victim")
	if err != nil {
		t.Fatal(err)
	}
	if got.DeletionTimestamp == nil || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 30 {
		t.Errorf("victim not deleted gracefully: %v %v", got.DeletionTimestamp, got.DeletionGracePeriodSeconds)
	}
	var cond *corev1.PodCondition
	for i := range got.Status.Conditions {
		if got.Status.Conditions[i].Type == corev1.DisruptionTarget {
			cond = &got.Status.Conditions[i]
		}
	}
	if cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason != "PreemptionByScheduler" ||
		cond.Message != "default-scheduler: preempting to accommodate a higher priority pod" {
		t.Errorf("DisruptionTarget condition: %+v", cond)
	}
	want := recordedEvent{"victim", "preemptor", "Normal", "Preempted", "Preempting",
		fmt.Sprintf("Preempted by pod %v on node n1", preemptor.UID)}
	if len(rec.events) != 1 || rec.events[0] != want {
		t.Errorf("events %+v, want %+v", rec.events, want)
	}
	if w, _ := rest.Get[corev1.Pod](ctx, admin, "default", "waiting"); w == nil || w.Status.NominatedNodeName != "" {
		t.Errorf("the lower-priority nominated pod keeps its nomination: %+v", w.Status)
	}

	// The next attempt, nominated to n1: its victim is still terminating.
	preemptor.Status.NominatedNodeName = "n1"
	res, st = run(got)
	if st.Code() != framework.Unschedulable || st.Message() != "preemption: not eligible due to a terminating pod on the nominated node." || res != nil {
		t.Errorf("second attempt: %v %q %+v", st.Code(), st.Message(), res)
	}
	if len(rec.events) != 1 {
		t.Errorf("evicted again: %+v", rec.events)
	}
}
