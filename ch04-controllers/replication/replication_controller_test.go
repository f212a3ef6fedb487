package replication

// Fixtures in, API actions out, as the ReplicaSet controller's tests: the
// same controller, with ReplicationControllers for ReplicaSets.

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/controllertest"
	"kubik/internal/testenv"
)

type fixture struct {
	*controllertest.Env
	t  *testing.T
	rm *ReplicationManager
}

func newFixture(t *testing.T) *fixture {
	env := controllertest.New(t)
	rm, err := NewReplicationManager(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	return &fixture{Env: env, t: t, rm: rm}
}

func (f *fixture) createRC(name string, replicas int32) *corev1.ReplicationController {
	f.t.Helper()
	rc := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.ReplicationControllerSpec{Replicas: &replicas, Selector: map[string]string{"app": name},
			Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}}}}
	created, err := rest.Create(f.Ctx, f.Admin, rc)
	if err != nil {
		f.t.Fatal(err)
	}
	return created
}

// sync runs one sync once the informer holds the apiserver's current
// ReplicationController.
func (f *fixture) sync(name string) {
	f.t.Helper()
	rc, err := rest.Get[corev1.ReplicationController](f.Ctx, f.Admin, "default", name)
	if err != nil {
		f.t.Fatal(err)
	}
	inf := controller.InformerFor[corev1.ReplicationController](f.CC.Informers)
	testenv.Eventually(f.t, "ReplicationController current in the informer", controllertest.Timeout, func() (string, bool) {
		c, ok := inf.GetStore().Get("default", name)
		if !ok {
			return "not there", false
		}
		return "resourceVersion " + c.ResourceVersion, c.ResourceVersion == rc.ResourceVersion
	})
	f.ClearActions()
	if err := f.rm.Sync(f.Ctx, "default/"+name); err != nil {
		f.t.Fatalf("sync %s: %v", name, err)
	}
}

func (f *fixture) podsSeen(n int) {
	f.t.Helper()
	inf := controller.InformerFor[corev1.Pod](f.CC.Informers)
	testenv.Eventually(f.t, fmt.Sprintf("%d pods in the informer", n), controllertest.Timeout, func() (string, bool) {
		active := controller.FilterActivePods(inf.GetStore().List())
		return fmt.Sprint(len(active)), len(active) == n
	})
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

const statusUpdate = "update replicationcontrollers/status default/web"

// TestReplicationControllerCreatesOwnedPods: pods made from the template,
// owned by the ReplicationController, status written to it, events from
// a settled controller writes nothing.
func TestReplicationControllerCreatesOwnedPods(t *testing.T) {
	f := newFixture(t)
	rc := f.createRC("web", 2)
	f.sync("web")
	f.ExpectWrites(t, "create pods default", "create pods default", statusUpdate)
	f.podsSeen(2)
	f.sync("web")
	f.ExpectWrites(t, statusUpdate) // status.replicas 0 → 2
	f.sync("web")
	f.ExpectWrites(t) // settled: no terminatingReplicas to write over and over

	for _, p := range f.pods("app=web") {
		ref := metav1.GetControllerOf(&p.ObjectMeta)
		if !strings.HasPrefix(p.Name, "web-") || ref == nil || ref.Kind != "ReplicationController" ||
			ref.APIVersion != "v1" || ref.UID != rc.UID || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("pod %s: ownerReferences %+v", p.Name, p.OwnerReferences)
		}
	}
	got, _ := rest.Get[corev1.ReplicationController](f.Ctx, f.Admin, "default", "web")
	if got.Status.Replicas != 2 || got.Status.FullyLabeledReplicas != 2 || got.Status.ObservedGeneration != got.Generation {
		t.Errorf("status: %+v", got.Status)
	}
}

// TestReplicationManagerRun: the running controller (its workers and its
// event recorder) brings a ReplicationController to its replicas, with
// SuccessfulCreate events from replication-controller.
func TestReplicationManagerRun(t *testing.T) {
	f := newFixture(t)
	go f.rm.Run(f.Ctx, 2)
	f.createRC("web", 2)
	controllertest.Eventually(t, "status.replicas 2", func() bool {
		rc, err := rest.Get[corev1.ReplicationController](f.Ctx, f.Admin, "default", "web")
		return err == nil && rc.Status.Replicas == 2 && len(f.pods("app=web")) == 2
	})
	testenv.Eventually(t, "2 SuccessfulCreate events of the ReplicationController", controllertest.Timeout, func() (string, bool) {
		l, _ := rest.List[corev1.Event](f.Ctx, f.Admin, "default", rest.ListOptions{})
		n := 0
		var seen []string
		for _, e := range l.Items {
			seen = append(seen, e.Reason+" "+e.Message+" "+e.Source.Component+" "+e.InvolvedObject.Kind)
			if e.Reason == "SuccessfulCreate" && strings.HasPrefix(e.Message, "Created pod: web-") &&
				e.Source.Component == "replication-controller" && e.InvolvedObject.Kind == "ReplicationController" &&
				e.InvolvedObject.APIVersion == "v1" && e.InvolvedObject.Name == "web" {
				n++
			}
		}
		return strings.Join(seen, "; "), n == 2
	})
}

// TestReplicationControllerScaleAndAdopt: a matching orphan is adopted
// (one pod fewer created), scaling down deletes a pod, and a pod relabelled
// out of the selector is released.
func TestReplicationControllerScaleAndAdopt(t *testing.T) {
	f := newFixture(t)
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := rest.Create(f.Ctx, f.Admin, orphan); err != nil {
		t.Fatal(err)
	}
	f.podsSeen(1)
	f.createRC("web", 3)
	f.sync("web")
	f.ExpectWrites(t, "patch pods default/orphan", "create pods default", "create pods default", statusUpdate)
	f.podsSeen(3)

	rc, _ := rest.Get[corev1.ReplicationController](f.Ctx, f.Admin, "default", "web")
	one := int32(1)
	rc.Spec.Replicas = &one
	if _, err := rest.Update(f.Ctx, f.Admin, rc); err != nil {
		t.Fatal(err)
	}
	f.sync("web")
	writes := f.Actions.Writes()
	deletes := 0
	for _, a := range writes {
		if strings.HasPrefix(a.String(), "delete pods default/") {
			deletes++
		}
	}
	if deletes != 2 {
		t.Errorf("scale 3 → 1: %v, want 2 pod deletions", writes)
	}
	f.podsSeen(1)
	left := f.pods("app=web")
	if len(left) != 1 {
		t.Fatalf("%d pods left", len(left))
	}
	patch := []byte(`{"metadata":{"labels":{"app":"other"}}}`)
	if _, err := rest.Patch[corev1.Pod](f.Ctx, f.Admin, "default", left[0].Name, rest.MergePatchType, patch, ""); err != nil {
		t.Fatal(err)
	}
	inf := controller.InformerFor[corev1.Pod](f.CC.Informers)
	controllertest.Eventually(t, "relabelled pod in the informer", func() bool {
		p, _ := inf.GetStore().Get("default", left[0].Name)
		return p.Labels["app"] == "other"
	})
	f.sync("web")
	f.ExpectWrites(t, "patch pods default/"+left[0].Name, "create pods default", statusUpdate) // released, replaced
	released, _ := rest.Get[corev1.Pod](f.Ctx, f.Admin, "default", left[0].Name)
	if len(released.OwnerReferences) != 0 {
		t.Errorf("released pod keeps %+v", released.OwnerReferences)
	}
}

// TestConversionRoundTrip: a ReplicationController seen as a ReplicaSet
// and back is the same object.
func TestConversionRoundTrip(t *testing.T) {
	two := int32(2)
	rc := &corev1.ReplicationController{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "u", ResourceVersion: "7", Generation: 3},
		Spec: corev1.ReplicationControllerSpec{Replicas: &two, MinReadySeconds: 5, Selector: map[string]string{"app": "web"},
			Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}}},
		Status: corev1.ReplicationControllerStatus{Replicas: 2, FullyLabeledReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1,
			ObservedGeneration: 3, Conditions: []corev1.ReplicationControllerCondition{{Type: corev1.ReplicationControllerReplicaFailure,
				Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "quota"}}},
	}
	rs := convertRCtoRS(rc)
	if rs.Spec.Selector.MatchLabels["app"] != "web" || *rs.Spec.Replicas != 2 || rs.Status.Conditions[0].Reason != "FailedCreate" {
		t.Fatalf("as a ReplicaSet: %+v", rs)
	}
	if back := convertRStoRC(rs); !reflect.DeepEqual(back, rc) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, rc)
	}
}
