package replicaset

// Tests in the style of kubernetes/sample-controller: fixtures in, API
// actions out. The fixtures are written to a real apiserver started in the
// test process (controllertest); the controller's sync function is called
// directly, what it did is read back from the apiserver, and the requests it
// sent are checked one by one (ExpectWrites).

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
	"kubik/internal/controllertest"
	"kubik/internal/testenv"
)

type fixture struct {
	*controllertest.Env
	t          *testing.T
	c          *ReplicaSetController
	rsInformer *cache.Informer[appsv1.ReplicaSet, *appsv1.ReplicaSet]
}

// newFixture starts an apiserver and builds the controller as
// system:kube-controller-manager. Its informers are not running: each
// test starts the ones it wants (runInformers).
func newFixture(t *testing.T) *fixture {
	env := controllertest.New(t)
	c, err := NewReplicaSetController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	go c.recorder.Run(env.Ctx)
	return &fixture{Env: env, t: t, c: c, rsInformer: controller.InformerFor[appsv1.ReplicaSet](env.CC.Informers)}
}

func (f *fixture) runInformers(rs, pods bool) {
	if rs {
		go f.rsInformer.Run(f.Ctx)
	}
	if pods {
		go f.c.podInformer.Run(f.Ctx)
	}
}

func (f *fixture) createRS(name string, replicas int32) *appsv1.ReplicaSet {
	f.t.Helper()
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name, "extra": "x"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}}}}
	created, err := rest.Create(f.Ctx, f.Admin, rs)
	if err != nil {
		f.t.Fatal(err)
	}
	testenv.Eventually(f.t, "ReplicaSet in the informer", controllertest.Timeout, func() (string, bool) {
		_, ok := f.rsInformer.GetStore().Get("default", name)
		return "", ok
	})
	return created
}

func (f *fixture) pods(selector string) []corev1.Pod {
	f.t.Helper()
	l, err := rest.List[corev1.Pod](f.Ctx, f.Admin, "default", rest.ListOptions{LabelSelector: selector})
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

// sync runs syncReplicaSet once the informer holds the apiserver's
// current ReplicaSet (what its last sync wrote, so the next compares its
// status with that, not an older one); ExpectWrites then checks what it
// wrote.
func (f *fixture) sync(key string) {
	f.t.Helper()
	ns, name, _ := strings.Cut(key, "/")
	rs, err := rest.Get[appsv1.ReplicaSet](f.Ctx, f.Admin, ns, name)
	if err != nil {
		f.t.Fatal(err)
	}
	testenv.Eventually(f.t, "ReplicaSet current in the informer", controllertest.Timeout, func() (string, bool) {
		c, ok := f.rsInformer.GetStore().Get(ns, name)
		if !ok {
			return "not there", false
		}
		return "resourceVersion " + c.ResourceVersion, c.ResourceVersion == rs.ResourceVersion
	})
	f.ClearActions()
	if err := f.c.syncReplicaSet(f.Ctx, key); err != nil {
		f.t.Fatalf("syncReplicaSet(%s): %v", key, err)
	}
}

func (f *fixture) podsSeen(n int) {
	f.t.Helper()
	testenv.Eventually(f.t, fmt.Sprintf("%d pods in the informer", n), controllertest.Timeout, func() (string, bool) {
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
	// Exactly the 3 creations, and one status update.
	f.ExpectWrites(t, "create pods default", "create pods default", "create pods default", statusUpdate("web"))
	for range 2 {
		f.sync("default/web")
		f.ExpectWrites(t) // no pod seen, none created: the expectations hold them
	}
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
	f.ExpectWrites(t, statusUpdate("web")) // the pods counted, none created
	if n := len(f.pods("app=web")); n != 3 {
		t.Errorf("%d pods after the watch caught up, want 3", n)
	}
	got, _ := rest.Get[appsv1.ReplicaSet](f.Ctx, f.Admin, "default", "web")
	if got.Status.Replicas != 3 || got.Status.FullyLabeledReplicas != 3 || got.Status.ObservedGeneration != got.Generation {
		t.Errorf("status: %+v", got.Status)
	}
	// Events: SuccessfulCreate "Created pod: <name>" from replicaset-controller.
	testenv.Eventually(f.t, "3 SuccessfulCreate events", controllertest.Timeout, func() (string, bool) {
		l, _ := rest.List[corev1.Event](f.Ctx, f.Admin, "default", rest.ListOptions{})
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

// statusUpdate is the write of ReplicaSet default/<name>'s status.
func statusUpdate(name string) string { return "update replicasets/status default/" + name }

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
	f.ExpectWrites(t, "create pods default", "create pods default", "create pods default", "create pods default", statusUpdate("api"))
	f.podsSeen(4)
	pods := f.pods("app=api")
	// pods[0]: left unscheduled; pods[1]: Running, not ready; pods[2,3]: Running and Ready.
	now := metav1.Now()
	for i, p := range pods[1:] {
		bind(t, f, &p, "node-1")
		p2, _ := rest.Get[corev1.Pod](f.Ctx, f.Admin, "default", p.Name)
		p2.Status.Phase = corev1.PodRunning
		if i > 0 {
			p2.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		}
		if _, err := rest.UpdateStatus(f.Ctx, f.Admin, p2); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(f.t, "2 ready pods in the informer", controllertest.Timeout, func() (string, bool) {
		n := 0
		for _, p := range f.c.podInformer.GetStore().List() {
			if controller.IsPodReady(p) {
				n++
			}
		}
		return fmt.Sprint(n), n == 2
	})
	two := int32(2)
	rs, _ := rest.Get[appsv1.ReplicaSet](f.Ctx, f.Admin, "default", "api")
	rs.Spec.Replicas = &two
	if _, err := rest.Update(f.Ctx, f.Admin, rs); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(f.t, "replicas 2 in the informer", controllertest.Timeout, func() (string, bool) {
		rs, _ := f.rsInformer.GetStore().Get("default", "api")
		return "", *rs.Spec.Replicas == 2
	})
	f.sync("default/api")
	f.ExpectWrites(t, "delete pods default/"+pods[0].Name, "delete pods default/"+pods[1].Name, statusUpdate("api"))
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
	f.ExpectWrites(t, statusUpdate("api"))
	got, _ := rest.Get[appsv1.ReplicaSet](f.Ctx, f.Admin, "default", "api")
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
	if err := rest.CreateSubresource[corev1.Pod](f.Ctx, f.Admin, "default", p.Name, "binding", b, nil); err != nil {
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
		if _, err := rest.Create(f.Ctx, f.Admin, p); err != nil {
			t.Fatal(err)
		}
	}
	t1 := true
	mk("orphan", nil)
	mk("foreign", &metav1.OwnerReference{APIVersion: "v1", Kind: "ReplicationController", Name: "other", UID: "other-uid", Controller: &t1})
	f.podsSeen(2)
	rs := f.createRS("db", 2)
	f.sync("default/db")
	// The orphan adopted (a patch of its ownerReferences), one pod created.
	f.ExpectWrites(t, "patch pods default/orphan", "create pods default", statusUpdate("db"))
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
	if _, err := rest.Patch[corev1.Pod](f.Ctx, f.Admin, "default", "orphan", rest.MergePatchType, patch, ""); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(f.t, "relabelled pod in the informer", controllertest.Timeout, func() (string, bool) {
		p, _ := f.c.podInformer.GetStore().Get("default", "orphan")
		return "", p.Labels["app"] == "other"
	})
	f.sync("default/db")
	f.ExpectWrites(t, "patch pods default/orphan", "create pods default", statusUpdate("db")) // released, replaced
	released, _ := rest.Get[corev1.Pod](f.Ctx, f.Admin, "default", "orphan")
	if len(released.OwnerReferences) != 0 {
		t.Errorf("released pod still has ownerReferences %+v", released.OwnerReferences)
	}
	f.podsSeen(4)
	f.sync("default/db")
	f.ExpectWrites(t, statusUpdate("db")) // the replacement counted, nothing more
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
