package daemonset

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/controller/history"
	"kubik/internal/controllertest"
)

// historiesCached: the cache holds the ControllerRevisions the API holds.
func historiesCached(env *controllertest.Env, c *DaemonSetsController) bool {
	l, err := rest.List[appsv1.ControllerRevision](env.Ctx, env.Admin, "default", rest.ListOptions{})
	if err != nil {
		return false
	}
	want := map[string]string{}
	for _, r := range l.Items {
		want[r.Name] = r.ResourceVersion
	}
	got := map[string]string{}
	for _, r := range c.histories.GetStore().List() {
		got[r.Name] = r.ResourceVersion
	}
	return maps.Equal(want, got)
}

// historyEnv is an apiserver with two schedulable nodes and a DaemonSet
// "agent" of image agent:1 keeping limit old revisions, updated OnDelete
// (so its pods stay on their revision).
func historyEnv(t *testing.T, limit int32) (*controllertest.Env, *DaemonSetsController, func() *appsv1.DaemonSet) {
	env := controllertest.New(t)
	c := newController(env.CC, workqueue.NewFakeClock(time.Now()))
	go c.recorder.Run(env.Ctx)
	env.Start(t)
	for _, n := range []string{"n1", "n2"} {
		created, err := rest.Create(env.Ctx, env.Admin, node(n, nil))
		if err != nil {
			t.Fatal(err)
		}
		created.Spec.Taints = nil // admission's not-ready taint
		if _, err := rest.Update(env.Ctx, env.Admin, created); err != nil {
			t.Fatal(err)
		}
	}
	labels := map[string]string{"app": "agent"}
	if _, err := rest.Create(env.Ctx, env.Admin, &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default", Annotations: map[string]string{"kubernetes.io/change-cause": "first"}},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, RevisionHistoryLimit: &limit,
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "agent:1"}}}}}}); err != nil {
		t.Fatal(err)
	}
	sync := func() *appsv1.DaemonSet {
		t.Helper()
		cur, _ := rest.Get[appsv1.DaemonSet](env.Ctx, env.Admin, "default", "agent")
		controllertest.Eventually(t, "caches current", func() bool {
			x, ok := c.dsets.GetStore().Get("default", "agent")
			nodes := c.nodes.GetStore().List()
			return ok && x.ResourceVersion == cur.ResourceVersion && len(nodes) == 2 && len(nodes[0].Spec.Taints)+len(nodes[1].Spec.Taints) == 0 &&
				c.expectations.SatisfiedExpectations("default/agent") && historiesCached(env, c)
		})
		env.ClearActions()
		if _, err := c.syncDaemonSet(env.Ctx, "default/agent"); err != nil {
			t.Fatal(err)
		}
		cur, _ = rest.Get[appsv1.DaemonSet](env.Ctx, env.Admin, "default", "agent")
		return cur
	}
	return env, c, sync
}

// revisions are the ControllerRevisions in the API, by revision number.
func revisions(t *testing.T, env *controllertest.Env) map[int64]appsv1.ControllerRevision {
	t.Helper()
	l, err := rest.List[appsv1.ControllerRevision](env.Ctx, env.Admin, "default", rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]appsv1.ControllerRevision{}
	for _, r := range l.Items {
		out[r.Revision] = r
	}
	return out
}

func TestDaemonSetHistory(t *testing.T) {
	env, _, sync := historyEnv(t, 0)
	ds := sync()
	hash1 := controller.ComputeHash(&ds.Spec.Template, nil)
	revs := revisions(t, env)
	r1, ok := revs[1]
	if len(revs) != 1 || !ok {
		t.Fatalf("revisions after the first sync: %v", slices.Collect(maps.Keys(revs)))
	}
	want, _ := history.TemplatePatch(&ds.Spec.Template)
	ref := metav1.GetControllerOf(&r1.ObjectMeta)
	if r1.Name != "agent-"+hash1 || r1.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash1 || r1.Labels["app"] != "agent" ||
		string(r1.Data.Raw) != string(want) || ref == nil || ref.UID != ds.UID || r1.Annotations["kubernetes.io/change-cause"] != "first" {
		t.Fatalf("revision 1: %+v data %s", r1.ObjectMeta, r1.Data.Raw)
	}
	var data map[string]map[string]map[string]any
	if err := json.Unmarshal(r1.Data.Raw, &data); err != nil || data["spec"]["template"]["$patch"] != "replace" {
		t.Fatalf("data %s: %v", r1.Data.Raw, err)
	}
	l, _ := rest.List[corev1.Pod](env.Ctx, env.Admin, "default", rest.ListOptions{LabelSelector: appsv1.DefaultDaemonSetUniqueLabelKey + "=" + hash1})
	if len(l.Items) != 2 {
		t.Fatalf("%d pods labelled with revision 1's hash, want 2", len(l.Items))
	}

	// A new template: revision 2. Revision 1 is over the limit (0) but pods
	// still carry its hash, so it stays.
	ds.Spec.Template.Spec.Containers[0].Image = "agent:2"
	if _, err := rest.Update(env.Ctx, env.Admin, ds); err != nil {
		t.Fatal(err)
	}
	ds = sync()
	revs = revisions(t, env)
	r2 := revs[2]
	if len(revs) != 2 || r2.Name != "agent-"+controller.ComputeHash(&ds.Spec.Template, nil) {
		t.Fatalf("revisions after the update: %v (2: %s)", slices.Collect(maps.Keys(revs)), r2.Name)
	}

	// kubectl rollout undo: revision 1's data patched back. Revision 1
	// becomes revision 3; revision 2, which no pod carries, is deleted.
	if _, err := rest.Patch[appsv1.DaemonSet](env.Ctx, env.Admin, "default", "agent", rest.StrategicMergePatchType, r1.Data.Raw, ""); err != nil {
		t.Fatal(err)
	}
	ds = sync()
	if ds.Spec.Template.Spec.Containers[0].Image != "agent:1" {
		t.Fatalf("rolled back to %s", ds.Spec.Template.Spec.Containers[0].Image)
	}
	env.ExpectWrites(t, "update controllerrevisions default/"+r1.Name, "delete controllerrevisions default/"+r2.Name, statusUpdate)
	revs = revisions(t, env)
	if r3, ok := revs[3]; len(revs) != 1 || !ok || r3.Name != r1.Name {
		t.Fatalf("revisions after the rollback: %v", revs)
	}
	if m, _ := Match(ds, &r1); !m {
		t.Error("the rolled-back DaemonSet does not match revision 1's data")
	}
}

// Two revisions of the current template (one made by an older
// controller): the newest is kept, pods carrying the other's hash are
// relabelled, the other is deleted. A revision without the hash label gets
// its name. Upstream: dedupCurHistories.
func TestDaemonSetDedupCurHistories(t *testing.T) {
	env, _, sync := historyEnv(t, 10)
	sync()
	ds := sync() // the pods in the cache: the status settled
	revs := revisions(t, env)
	r1 := revs[1]
	dup := metav1.DeepCopy(&r1)
	dup.ObjectMeta = metav1.ObjectMeta{Name: "agent-old", Namespace: "default", Labels: map[string]string{"app": "agent"},
		OwnerReferences: []metav1.OwnerReference{controller.NewControllerRef(&ds.ObjectMeta, "apps/v1", "DaemonSet")}}
	dup.Revision = 5
	if _, err := rest.Create(env.Ctx, env.Admin, dup); err != nil {
		t.Fatal(err)
	}
	sync()
	// The status may be written too, or not: the sync computes it from the
	// pod cache, which may or may not have seen the relabelled pods yet.
	var writes []string
	for _, a := range env.Actions.Writes() {
		if w := a.String(); w != statusUpdate {
			writes = append(writes, w)
		}
	}
	slices.Sort(writes)
	want := []string{"update controllerrevisions default/agent-old", // the missing label
		"patch pods default/" + podNames(t, env)[0], "patch pods default/" + podNames(t, env)[1],
		"delete controllerrevisions default/" + r1.Name}
	slices.Sort(want)
	if !slices.Equal(writes, want) {
		t.Errorf("writes besides the status:\n got: %v\nwant: %v", writes, want)
	}
	revs = revisions(t, env)
	if kept, ok := revs[5]; len(revs) != 1 || !ok || kept.Name != "agent-old" || kept.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != "agent-old" {
		t.Fatalf("revisions: %v", revs)
	}
	l, _ := rest.List[corev1.Pod](env.Ctx, env.Admin, "default", rest.ListOptions{LabelSelector: appsv1.DefaultDaemonSetUniqueLabelKey + "=agent-old"})
	if len(l.Items) != 2 {
		t.Errorf("%d pods relabelled, want 2", len(l.Items))
	}
}

func podNames(t *testing.T, env *controllertest.Env) []string {
	l, err := rest.List[corev1.Pod](env.Ctx, env.Admin, "default", rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range l.Items {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}

func TestGetPatch(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: map[string]string{"not": "in the patch"}},
		Spec: appsv1.DaemonSetSpec{MinReadySeconds: 5, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
			Spec: corev1.PodSpec{TerminationGracePeriodSeconds: new(int64(30)), Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}
	got, err := history.TemplatePatch(&ds.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"x"}},"spec":{"containers":[{"image":"i","name":"c","resources":{}}],"terminationGracePeriodSeconds":30}}}}`
	if string(got) != want {
		t.Errorf("TemplatePatch:\n got %s\nwant %s", got, want)
	}
}

// A revision name taken by another template: status.collisionCount goes
// up and the next sync names the revision with the new hash. Upstream:
// snapshot's collision handling.
func TestDaemonSetHashCollision(t *testing.T) {
	env, c, _ := historyEnv(t, 10)
	ds, _ := rest.Get[appsv1.DaemonSet](env.Ctx, env.Admin, "default", "agent")
	hash := controller.ComputeHash(&ds.Spec.Template, nil)
	if _, err := rest.Create(env.Ctx, env.Admin, &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "agent-" + hash, Namespace: "default", Labels: map[string]string{"app": "other"}},
		Data:       appsv1.RawExtension{Raw: []byte(`{"other":true}`)}, Revision: 1}); err != nil {
		t.Fatal(err)
	}
	syncOnce := func() error {
		t.Helper()
		cur, _ := rest.Get[appsv1.DaemonSet](env.Ctx, env.Admin, "default", "agent")
		controllertest.Eventually(t, "caches current", func() bool {
			x, ok := c.dsets.GetStore().Get("default", "agent")
			return ok && x.ResourceVersion == cur.ResourceVersion && historiesCached(env, c) && len(c.nodes.GetStore().List()) == 2
		})
		_, err := c.syncDaemonSet(env.Ctx, "default/agent")
		return err
	}
	if err := syncOnce(); err == nil {
		t.Fatal("the first sync hit the collision without an error")
	}
	ds, _ = rest.Get[appsv1.DaemonSet](env.Ctx, env.Admin, "default", "agent")
	if ds.Status.CollisionCount == nil || *ds.Status.CollisionCount != 1 {
		t.Fatalf("collisionCount %v", ds.Status.CollisionCount)
	}
	if err := syncOnce(); err != nil {
		t.Fatal(err)
	}
	want := "agent-" + controller.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	r, err := rest.Get[appsv1.ControllerRevision](env.Ctx, env.Admin, "default", want)
	if err != nil {
		t.Fatalf("revision %s: %v", want, err)
	}
	if r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != strings.TrimPrefix(want, "agent-") || metav1.GetControllerOf(&r.ObjectMeta) == nil {
		t.Errorf("revision %s: %+v", want, r.ObjectMeta)
	}
	if other, _ := rest.Get[appsv1.ControllerRevision](env.Ctx, env.Admin, "default", "agent-"+hash); string(other.Data.Raw) != `{"other":true}` {
		t.Errorf("the other revision changed: %s", other.Data.Raw)
	}
}
