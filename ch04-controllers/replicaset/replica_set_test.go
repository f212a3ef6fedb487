package replicaset

// Tests in the style of kubernetes/sample-controller: fixtures in, API
// actions out. The fixtures are written to a real apiserver started in the
// test process (clienttest); the controller's sync function is called
// directly, and what it did is read back from the apiserver.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/clienttest"
)

type fixture struct {
	t     *testing.T
	ctx   context.Context
	admin *rest.Client
	c     *ReplicaSetController
}

// newFixture starts an apiserver and builds the controller as
// system:kube-controller-manager. Its informers are not running: each
// test starts the ones it wants (runInformers).
func newFixture(t *testing.T) *fixture {
	env := clienttest.Start(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kcm := env.Client(t, pki.ControllerManager)
	cc := &controller.ControllerContext{Client: kcm, Informers: controller.NewSharedInformers(kcm, slog.New(slog.DiscardHandler)),
		Log: slog.New(slog.DiscardHandler)}
	c, err := NewReplicaSetController(cc)
	if err != nil {
		t.Fatal(err)
	}
	go c.recorder.Run(ctx)
	return &fixture{t: t, ctx: ctx, admin: env.Client(t, pki.Admin), c: c}
}

func (f *fixture) runInformers(rs, pods bool) {
	if rs {
		go f.c.rsInformer.Run(f.ctx)
	}
	if pods {
		go f.c.podInformer.Run(f.ctx)
	}
}

// eventually polls cond (the informers deliver asynchronously); the
// generous limit only bounds a failing test.
func (f *fixture) eventually(what string, cond func() (string, bool)) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, ok := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s; last seen: %s", what, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (f *fixture) createRS(name string, replicas int32) *appsv1.ReplicaSet {
	f.t.Helper()
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name, "extra": "x"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}}}}
	created, err := rest.Create(f.ctx, f.admin, rs)
	if err != nil {
		f.t.Fatal(err)
	}
	f.eventually("ReplicaSet in the informer", func() (string, bool) {
		_, ok := f.c.rsInformer.GetStore().Get("default", name)
		return "", ok
	})
	return created
}

func (f *fixture) pods(selector string) []corev1.Pod {
	f.t.Helper()
	l, err := rest.List[corev1.Pod](f.ctx, f.admin, "default", rest.ListOptions{LabelSelector: selector})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range l.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

func (f *fixture) sync(key string) {
	f.t.Helper()
	if err := f.c.syncReplicaSet(f.ctx, key); err != nil {
		f.t.Fatalf("syncReplicaSet(%s): %v", key, err)
	}
}

func (f *fixture) podsSeen(n int) {
	f.t.Helper()
	f.eventually(fmt.Sprintf("%d pods in the informer", n), func() (string, bool) {
		active := controller.FilterActivePods(f.c.podInformer.GetStore().List())
		return fmt.Sprint(len(active)), len(active) == n
	})
}

// TestSlowWatchNeverCreatesExtraPods: the pod informer is not running (a
// watch infinitely slow), so the cache never shows the pods the first sync
// created; the expectations keep the next syncs from creating them again.
func TestSlowWatchNeverCreatesExtraPods(t *testing.T) {
	f := newFixture(t)
	f.runInformers(true, false)
	rs := f.createRS("web", 3)
	f.sync("default/web")
	f.sync("default/web")
	f.sync("default/web")
	pods := f.pods("app=web")
	if len(pods) != 3 {
		t.Fatalf("%d pods created, want 3", len(pods))
	}
	for _, p := range pods {
		ref := metav1.GetControllerOf(&p.ObjectMeta)
		if !strings.HasPrefix(p.Name, "web-") || ref == nil || ref.UID != rs.UID || ref.Kind != "ReplicaSet" {
			t.Errorf("pod %s: ownerReferences %+v", p.Name, p.OwnerReferences)
		}
	}
	if add, _ := mustExpectations(t, f.c, "default/web"); add != 3 {
		t.Errorf("outstanding creations: %d, want 3", add)
	}
	// The watch catches up: the 3 creations are observed, nothing more is made.
	f.runInformers(false, true)
	f.podsSeen(3)
	if !f.c.expectations.SatisfiedExpectations("default/web") {
		t.Error("expectations not satisfied after the informer saw the 3 pods")
	}
	f.sync("default/web")
	if n := len(f.pods("app=web")); n != 3 {
		t.Errorf("%d pods after the watch caught up, want 3", n)
	}
	got, _ := rest.Get[appsv1.ReplicaSet](f.ctx, f.admin, "default", "web")
	if got.Status.Replicas != 3 || got.Status.FullyLabeledReplicas != 3 || got.Status.ObservedGeneration != got.Generation {
		t.Errorf("status: %+v", got.Status)
	}
	// Events: SuccessfulCreate "Created pod: <name>" from replicaset-controller.
	f.eventually("3 SuccessfulCreate events", func() (string, bool) {
		l, _ := rest.List[corev1.Event](f.ctx, f.admin, "default", rest.ListOptions{})
		n := 0
		var seen []string
		for _, e := range l.Items {
			seen = append(seen, e.Reason+" "+e.Message+" "+e.Source.Component)
			if e.Reason == "SuccessfulCreate" && strings.HasPrefix(e.Message, "Created pod: web-") &&
				e.Source.Component == "replicaset-controller" && e.ReportingController == "replicaset-controller" &&
				e.InvolvedObject.Kind == "ReplicaSet" && e.InvolvedObject.Name == "web" {
				n++
			}
		}
		return strings.Join(seen, "; "), n == 3
	})
}

func mustExpectations(t *testing.T, c *ReplicaSetController, key string) (int64, int64) {
	t.Helper()
	e, ok := c.expectations.GetExpectations(key)
	if !ok {
		t.Fatalf("no expectations for %s", key)
	}
	return e.GetExpectations()
}

// TestScaleDownDeletesLeastValuable: of 4 pods, scaling to 2 deletes the
// unscheduled one and the not-ready one, keeping the two Running and Ready.
func TestScaleDownDeletesLeastValuable(t *testing.T) {
	f := newFixture(t)
	f.runInformers(true, true)
	f.createRS("api", 4)
	f.sync("default/api")
	f.podsSeen(4)
	pods := f.pods("app=api")
	// pods[0]: left unscheduled; pods[1]: Running, not ready; pods[2,3]: Running and Ready.
	now := metav1.Now()
	for i, p := range pods[1:] {
		bind(t, f, &p, "node-1")
		p2, _ := rest.Get[corev1.Pod](f.ctx, f.admin, "default", p.Name)
		p2.Status.Phase = corev1.PodRunning
		if i > 0 {
			p2.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		}
		if _, err := rest.UpdateStatus(f.ctx, f.admin, p2); err != nil {
			t.Fatal(err)
		}
	}
	f.eventually("2 ready pods in the informer", func() (string, bool) {
		n := 0
		for _, p := range f.c.podInformer.GetStore().List() {
			if controller.IsPodReady(p) {
				n++
			}
		}
		return fmt.Sprint(n), n == 2
	})
	two := int32(2)
	rs, _ := rest.Get[appsv1.ReplicaSet](f.ctx, f.admin, "default", "api")
	rs.Spec.Replicas = &two
	if _, err := rest.Update(f.ctx, f.admin, rs); err != nil {
		t.Fatal(err)
	}
	f.eventually("replicas 2 in the informer", func() (string, bool) {
		rs, _ := f.c.rsInformer.GetStore().Get("default", "api")
		return "", *rs.Spec.Replicas == 2
	})
	f.sync("default/api")
	left := f.pods("app=api")
	if len(left) != 2 {
		t.Fatalf("%d pods left, want 2", len(left))
	}
	for _, p := range left {
		if p.Name == pods[0].Name || p.Name == pods[1].Name {
			t.Errorf("kept %s, which should have been deleted first", p.Name)
		}
	}
	f.podsSeen(2)
	f.sync("default/api")
	got, _ := rest.Get[appsv1.ReplicaSet](f.ctx, f.admin, "default", "api")
	if got.Status.Replicas != 2 || got.Status.ReadyReplicas != 2 || got.Status.AvailableReplicas != 2 {
		t.Errorf("status: %+v", got.Status)
	}
	// The unscheduled pod went at once; the bound one waits for its kubelet
	// (none here) to finish the graceful deletion: terminating.
	if tr := got.Status.TerminatingReplicas; tr == nil || *tr != 1 {
		t.Errorf("terminatingReplicas: %v, want 1", tr)
	}
}

func bind(t *testing.T, f *fixture, p *corev1.Pod, node string) {
	t.Helper()
	b := map[string]any{"apiVersion": "v1", "kind": "Binding", "metadata": map[string]string{"name": p.Name},
		"target": map[string]string{"kind": "Node", "name": node}}
	if err := rest.CreateSubresource[corev1.Pod](f.ctx, f.admin, "default", p.Name, "binding", b, nil); err != nil {
		t.Fatal(err)
	}
}

// TestAdoptionAndRelease: a matching orphan is adopted (one pod fewer is
// created); an owned pod relabelled out of the selector is released and
// replaced; a pod owned by another controller is left alone.
func TestAdoptionAndRelease(t *testing.T) {
	f := newFixture(t)
	f.runInformers(true, true)
	mk := func(name string, owner *metav1.OwnerReference) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "db"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "db"}}}}
		if owner != nil {
			p.OwnerReferences = []metav1.OwnerReference{*owner}
		}
		if _, err := rest.Create(f.ctx, f.admin, p); err != nil {
			t.Fatal(err)
		}
	}
	t1 := true
	mk("orphan", nil)
	mk("foreign", &metav1.OwnerReference{APIVersion: "v1", Kind: "ReplicationController", Name: "other", UID: "other-uid", Controller: &t1})
	f.podsSeen(2)
	rs := f.createRS("db", 2)
	f.sync("default/db")
	pods := f.pods("app=db")
	owned := 0
	for _, p := range pods {
		ref := metav1.GetControllerOf(&p.ObjectMeta)
		switch {
		case p.Name == "foreign":
			if ref.UID != "other-uid" {
				t.Errorf("foreign pod's owner changed: %+v", ref)
			}
		case ref != nil && ref.UID == rs.UID:
			owned++
			if ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
				t.Errorf("%s: ownerReference without blockOwnerDeletion", p.Name)
			}
		}
	}
	if len(pods) != 3 || owned != 2 {
		t.Fatalf("%d pods (want 3: orphan adopted, one created, foreign), %d owned by the ReplicaSet (want 2)", len(pods), owned)
	}

	// Relabel the adopted pod: released (ownerReference removed) and replaced.
	f.podsSeen(3)
	patch := []byte(`{"metadata":{"labels":{"app":"other"}}}`)
	if _, err := rest.Patch[corev1.Pod](f.ctx, f.admin, "default", "orphan", rest.MergePatchType, patch, ""); err != nil {
		t.Fatal(err)
	}
	f.eventually("relabelled pod in the informer", func() (string, bool) {
		p, _ := f.c.podInformer.GetStore().Get("default", "orphan")
		return "", p.Labels["app"] == "other"
	})
	f.sync("default/db")
	released, _ := rest.Get[corev1.Pod](f.ctx, f.admin, "default", "orphan")
	if len(released.OwnerReferences) != 0 {
		t.Errorf("released pod still has ownerReferences %+v", released.OwnerReferences)
	}
	f.podsSeen(4)
	f.sync("default/db")
	if n := len(f.pods("app=db")); n != 3 {
		t.Errorf("%d app=db pods after the release, want 3 (2 owned + foreign)", n)
	}
}

func TestSlowStartBatch(t *testing.T) {
	var calls atomic.Int32
	fail := errors.New("quota exceeded")
	fn := func() error {
		if calls.Add(1) > 3 {
			return fail
		}
		return nil
	}
	// Batches 1, 2 (3 calls, all fine), then 4 failing: stop there.
	n, err := slowStartBatch(10, SlowStartInitialBatchSize, fn)
	if n != 3 || err != fail || calls.Load() != 7 {
		t.Errorf("successes %d, err %v, calls %d; want 3, %v, 7", n, err, calls.Load(), fail)
	}
	calls.Store(-100)
	if n, err := slowStartBatch(10, 1, fn); n != 10 || err != nil {
		t.Errorf("all succeed: %d, %v", n, err)
	}
}

func TestCalculateStatusReplicaFailure(t *testing.T) {
	three := int32(3)
	rs := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: &three,
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x", "v": "1"}}}}}
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x", "v": "1"}}},
		{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}}},
	}
	s := calculateStatus(rs, pods, nil, errors.New(`pods "x-" is forbidden: exceeded quota`))
	c := GetCondition(s, appsv1.ReplicaSetReplicaFailure)
	if s.Replicas != 2 || s.FullyLabeledReplicas != 1 || c == nil || c.Status != corev1.ConditionTrue ||
		c.Reason != "FailedCreate" || c.Message != `pods "x-" is forbidden: exceeded quota` {
		t.Fatalf("status %+v", s)
	}
	rs.Status = s
	if s := calculateStatus(rs, pods, nil, nil); GetCondition(s, appsv1.ReplicaSetReplicaFailure) != nil {
		t.Error("ReplicaFailure not removed after a sync without error")
	}
}
