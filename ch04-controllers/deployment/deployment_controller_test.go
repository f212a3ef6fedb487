package deployment

// Fixtures in, API actions out: a Deployment and its ReplicaSets are
// written to a real in-process apiserver (controllertest), syncDeployment
// is called, and the ReplicaSets, annotations, conditions and events it
// wrote are read back; ExpectWrites checks the requests it sent, as
// upstream's f.expectCreateRSAction / f.expectUpdateDeploymentStatusAction.
// No ReplicaSet controller runs: the tests set the ReplicaSets' status
// themselves, as if it did.

import (
	"fmt"
	"sort"
	"strings"
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
	t  *testing.T
	dc *DeploymentController
}

func newFixture(t *testing.T) *fixture {
	env := controllertest.New(t)
	dc, err := NewDeploymentController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	go dc.recorder.Run(env.Ctx)
	env.Start(t)
	return &fixture{Env: env, t: t, dc: dc}
}

// sync waits until the informers hold the apiserver's current Deployment
// and ReplicaSets, then syncs; ExpectWrites then checks what the sync wrote.
func (f *fixture) sync() {
	f.t.Helper()
	d, err := rest.Get[appsv1.Deployment](f.Ctx, f.Admin, "default", "web")
	if err != nil {
		f.t.Fatal(err)
	}
	rss := f.replicaSets()
	testenv.Eventually(f.t, "informers caught up", controllertest.Timeout, func() (string, bool) {
		cd, ok := f.dc.dInformer.GetStore().Get("default", "web")
		if !ok || cd.ResourceVersion != d.ResourceVersion {
			return "deployment", false
		}
		cached := f.dc.rsInformer.GetStore().ByIndex(cache.NamespaceIndex, "default")
		if len(cached) != len(rss) {
			return "replicasets", false
		}
		for _, rs := range rss {
			c, ok := f.dc.rsInformer.GetStore().Get("default", rs.Name)
			if !ok || c.ResourceVersion != rs.ResourceVersion {
				return "replicaset " + rs.Name, false
			}
		}
		return "", true
	})
	f.ClearActions()
	if err := f.dc.syncDeployment(f.Ctx, "default/web"); err != nil {
		f.t.Fatalf("syncDeployment: %v", err)
	}
}

func (f *fixture) replicaSets() []appsv1.ReplicaSet {
	l, err := rest.List[appsv1.ReplicaSet](f.Ctx, f.Admin, "default", rest.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return l.Items
}

// sizes renders the ReplicaSets as "rev<revision>=<replicas>", by revision.
func (f *fixture) sizes() string {
	rss := f.replicaSets()
	sort.Slice(rss, func(i, j int) bool {
		return rss[i].Annotations[appsv1.RevisionAnnotation] < rss[j].Annotations[appsv1.RevisionAnnotation]
	})
	var out []string
	for _, rs := range rss {
		out = append(out, fmt.Sprintf("rev%s=%d", rs.Annotations[appsv1.RevisionAnnotation], *rs.Spec.Replicas))
	}
	return strings.Join(out, " ")
}

// markAvailable plays the ReplicaSet controller: every ReplicaSet's pods
// exist and are available.
func (f *fixture) markAvailable() {
	for _, rs := range f.replicaSets() {
		n := *rs.Spec.Replicas
		rs.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
			ObservedGeneration: rs.Generation}
		if _, err := rest.UpdateStatus(f.Ctx, f.Admin, &rs); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *fixture) deployment() *appsv1.Deployment {
	d, err := rest.Get[appsv1.Deployment](f.Ctx, f.Admin, "default", "web")
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// statusUpdate is the write of the Deployment's status.
const statusUpdate = "update deployments/status default/web"

func condition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) string {
	c := GetDeploymentCondition(d.Status, t)
	if c == nil {
		return "<none>"
	}
	return fmt.Sprintf("%s %s %s", c.Status, c.Reason, c.Message)
}

// TestRollout: create → first ReplicaSet at full size; change the image →
// a second ReplicaSet one surge pod at a time, the old one scaled down as
// pods become available; annotations, conditions and events as upstream.
func TestRollout(t *testing.T) {
	f := newFixture(t)
	replicas := int32(3)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}}}}
	if _, err := rest.Create(f.Ctx, f.Admin, d); err != nil {
		t.Fatal(err)
	}
	f.sync()
	rss := f.replicaSets()
	if len(rss) != 1 {
		t.Fatalf("%d ReplicaSets, want 1", len(rss))
	}
	first := rss[0]
	// As upstream's TestSyncDeploymentCreatesReplicaSet: the ReplicaSet,
	// the status with the revision annotation and NewReplicaSetCreated,
	// then the status of the rollout.
	f.ExpectWrites(t, "create replicasets default/"+first.Name, statusUpdate, statusUpdate)
	hash := first.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	if first.Name != "web-"+hash || hash != controller.ComputeHash(&f.deployment().Spec.Template, nil) ||
		first.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] != hash ||
		first.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != hash {
		t.Errorf("first ReplicaSet %s: labels %v, selector %v", first.Name, first.Labels, first.Spec.Selector.MatchLabels)
	}
	if *first.Spec.Replicas != 3 || first.Annotations[appsv1.RevisionAnnotation] != "1" ||
		first.Annotations[appsv1.DesiredReplicasAnnotation] != "3" || first.Annotations[appsv1.MaxReplicasAnnotation] != "4" {
		t.Errorf("first ReplicaSet: replicas %d, annotations %v", *first.Spec.Replicas, first.Annotations)
	}
	if ref := metav1.GetControllerOf(&first.ObjectMeta); ref == nil || ref.Kind != "Deployment" || ref.Name != "web" {
		t.Errorf("first ReplicaSet's ownerReferences: %+v", first.OwnerReferences)
	}
	got := f.deployment()
	if got.Annotations[appsv1.RevisionAnnotation] != "1" {
		t.Errorf("deployment annotations %v", got.Annotations)
	}
	if c := condition(got, appsv1.DeploymentProgressing); c != fmt.Sprintf(`True NewReplicaSetCreated Created new replica set "%s"`, first.Name) {
		t.Errorf("Progressing: %s", c)
	}

	// The pods come up: Available, then Progressing NewReplicaSetAvailable,
	// in one status update.
	f.markAvailable()
	f.sync()
	f.ExpectWrites(t, statusUpdate)
	got = f.deployment()
	if c := condition(got, appsv1.DeploymentAvailable); c != "True MinimumReplicasAvailable Deployment has minimum availability." {
		t.Errorf("Available: %s", c)
	}
	if c := condition(got, appsv1.DeploymentProgressing); c != fmt.Sprintf(`True NewReplicaSetAvailable ReplicaSet "%s" has successfully progressed.`, first.Name) {
		t.Errorf("Progressing: %s", c)
	}
	if s := got.Status; s.ObservedGeneration != got.Generation || s.Replicas != 3 || s.UpdatedReplicas != 3 || s.AvailableReplicas != 3 {
		t.Errorf("status %+v", s)
	}
	// Nothing changed since: a sync writes nothing.
	f.sync()
	f.ExpectWrites(t)

	// New image: 25%/25% of 3 is a surge of 1 and none unavailable.
	got.Spec.Template.Spec.Containers[0].Image = "nginx:1.27"
	if _, err := rest.Update(f.Ctx, f.Admin, got); err != nil {
		t.Fatal(err)
	}
	second := "web-" + controller.ComputeHash(&got.Spec.Template, nil)
	want := []string{"rev1=3 rev2=1", "rev1=2 rev2=1", "rev1=2 rev2=2", "rev1=1 rev2=2", "rev1=1 rev2=3", "rev1=0 rev2=3"}
	// Each step scales one ReplicaSet and writes the status once; the
	// first creates the new ReplicaSet (and writes the status twice, as
	// above).
	wantWrites := [][]string{
		{"create replicasets default/" + second, statusUpdate, statusUpdate},
		{"update replicasets default/" + first.Name, statusUpdate},
		{"update replicasets default/" + second, statusUpdate},
		{"update replicasets default/" + first.Name, statusUpdate},
		{"update replicasets default/" + second, statusUpdate},
		{"update replicasets default/" + first.Name, statusUpdate},
	}
	var seen []string
	for i := range want {
		f.sync()
		f.ExpectWrites(t, wantWrites[i]...)
		seen = append(seen, f.sizes())
		f.markAvailable()
	}
	if strings.Join(seen, " | ") != strings.Join(want, " | ") {
		t.Errorf("rollout steps\n got: %s\nwant: %s", strings.Join(seen, " | "), strings.Join(want, " | "))
	}
	f.sync()
	f.ExpectWrites(t, statusUpdate)
	got = f.deployment()
	if got.Annotations[appsv1.RevisionAnnotation] != "2" || !DeploymentComplete(got, &got.Status) {
		t.Errorf("after the rollout: annotations %v status %+v", got.Annotations, got.Status)
	}
	f.sync()
	f.ExpectWrites(t) // complete: nothing to do
	testenv.Eventually(t, "ScalingReplicaSet events", controllertest.Timeout, func() (string, bool) {
		l, _ := rest.List[corev1.Event](f.Ctx, f.Admin, "default", rest.ListOptions{})
		var msgs []string
		for _, e := range l.Items {
			if e.Reason == "ScalingReplicaSet" && e.Source.Component == "deployment-controller" && e.InvolvedObject.Kind == "Deployment" {
				msgs = append(msgs, e.Message)
			}
		}
		all := strings.Join(msgs, "\n")
		return all, strings.Contains(all, "Scaled up replica set "+first.Name+" from 0 to 3") &&
			strings.Contains(all, "Scaled down replica set "+first.Name+" from 3 to 2") &&
			strings.Contains(all, "Scaled down replica set "+first.Name+" from 1 to 0")
	})
}

// TestPausedAndScaling: a paused Deployment gets Progressing Unknown
// DeploymentPaused and no new ReplicaSet for a template change, but is
// scaled; resuming gives DeploymentResumed and the rollout.
func TestPausedAndScaling(t *testing.T) {
	f := newFixture(t)
	replicas := int32(2)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}}}}
	if _, err := rest.Create(f.Ctx, f.Admin, d); err != nil {
		t.Fatal(err)
	}
	f.sync()
	f.markAvailable()
	f.sync()
	got := f.deployment()
	got.Spec.Paused = true
	got.Spec.Template.Spec.Containers[0].Image = "nginx:1.27"
	five := int32(5)
	got.Spec.Replicas = &five
	if _, err := rest.Update(f.Ctx, f.Admin, got); err != nil {
		t.Fatal(err)
	}
	f.sync()
	first := f.replicaSets()[0].Name
	// The DeploymentPaused condition, the scale, the status of the scale:
	// no new ReplicaSet.
	f.ExpectWrites(t, statusUpdate, "update replicasets default/"+first, statusUpdate)
	if c := condition(f.deployment(), appsv1.DeploymentProgressing); c != "Unknown DeploymentPaused Deployment is paused" {
		t.Errorf("Progressing when paused: %s", c)
	}
	if s := f.sizes(); s != "rev1=5" {
		t.Errorf("paused and scaled to 5: %s, want rev1=5", s)
	}
	f.sync()
	f.ExpectWrites(t) // paused and scaled already: nothing to do
	f.markAvailable()
	got = f.deployment()
	got.Spec.Paused = false
	if _, err := rest.Update(f.Ctx, f.Admin, got); err != nil {
		t.Fatal(err)
	}
	f.sync()
	f.ExpectWrites(t, statusUpdate, // DeploymentResumed
		"create replicasets default/web-"+controller.ComputeHash(&got.Spec.Template, nil), statusUpdate,
		"update replicasets default/"+first, statusUpdate)
	// 25% of 5: a surge of 2 (rounded up), 1 unavailable (rounded down).
	if s := f.sizes(); s != "rev1=4 rev2=2" {
		t.Errorf("resumed: %s, want rev1=4 rev2=2", s)
	}
	// DeploymentResumed, then NewReplicaSetCreated, then (the old pods
	// became available meanwhile) ReplicaSetUpdated, all in one sync.
	if c := condition(f.deployment(), appsv1.DeploymentProgressing); !strings.HasPrefix(c, `True ReplicaSetUpdated ReplicaSet "web-`) {
		t.Errorf("Progressing after resume: %s", c)
	}
}
