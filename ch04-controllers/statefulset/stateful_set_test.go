package statefulset

// Tests in the style of kubernetes/sample-controller: fixtures in, API
// actions out. The fixtures are written to a real apiserver started in the
// test process (controllertest), the controller's informers fill from it,
// sync is called directly, and the writes it sent are checked one by one
// (ExpectWrites). Pods are made Running and Ready by the test, as a
// kubelet would.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
	"kubik/internal/testenv"
)

type fixture struct {
	*controllertest.Env
	t   *testing.T
	ssc *StatefulSetController
}

func newFixture(t *testing.T) *fixture {
	env := controllertest.New(t)
	ssc, err := NewStatefulSetController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	go ssc.recorder.Run(env.Ctx)
	env.Start(t)
	return &fixture{Env: env, t: t, ssc: ssc}
}

// createSet creates the StatefulSet web: replicas pods of nginx with the
// claim template "data", changed by mutate.
func (f *fixture) createSet(replicas int32, mutate func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	f.t.Helper()
	set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{Replicas: &replicas, ServiceName: "nginx",
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1",
					VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}}}},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}},
		}}
	if mutate != nil {
		mutate(set)
	}
	created, err := rest.Create(f.Ctx, f.Admin, set)
	if err != nil {
		f.t.Fatal(err)
	}
	return created
}

// settle waits until the informers hold what the apiserver holds (names
// and resourceVersions) for the kinds the controller reads.
func (f *fixture) settle() {
	f.t.Helper()
	testenv.Eventually(f.t, "informers in step with the apiserver", controllertest.Timeout, func() (string, bool) {
		for _, c := range []struct {
			kind        string
			api, cached func() []string
		}{
			{"pods", listRVs[corev1.Pod](f), cachedRVs(f.ssc.pods.GetStore().List)},
			{"claims", listRVs[corev1.PersistentVolumeClaim](f), cachedRVs(f.ssc.claims.GetStore().List)},
			{"revisions", listRVs[appsv1.ControllerRevision](f), cachedRVs(f.ssc.revisions.GetStore().List)},
			{"sets", listRVs[appsv1.StatefulSet](f), cachedRVs(f.ssc.sets.GetStore().List)},
		} {
			if a, b := c.api(), c.cached(); !slices.Equal(a, b) {
				return fmt.Sprintf("%s: apiserver %v, cache %v", c.kind, a, b), false
			}
		}
		return "", true
	})
}

func listRVs[T any, PT rest.Object[T]](f *fixture) func() []string {
	return func() []string {
		l, err := rest.List[T, PT](f.Ctx, f.Admin, "default", rest.ListOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		var out []string
		for i := range l.Items {
			m := PT(&l.Items[i]).GetObjectMeta()
			out = append(out, m.Name+"@"+m.ResourceVersion)
		}
		slices.Sort(out)
		return out
	}
}

func cachedRVs[T any, PT rest.Object[T]](list func() []PT) func() []string {
	return func() []string {
		var out []string
		for _, o := range list() {
			m := o.GetObjectMeta()
			out = append(out, m.Name+"@"+m.ResourceVersion)
		}
		slices.Sort(out)
		return out
	}
}

// sync waits for the caches, then runs one sync of default/web.
func (f *fixture) sync() {
	f.t.Helper()
	f.settle()
	f.ClearActions()
	if err := f.ssc.sync(f.Ctx, "default/web"); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

// expect is ExpectWrites with "$update" standing for the name of the
// set's update revision.
func (f *fixture) expect(want ...string) {
	f.t.Helper()
	rev := f.get().Status.UpdateRevision
	for i := range want {
		want[i] = strings.ReplaceAll(want[i], "$update", rev)
	}
	f.ExpectWrites(f.t, want...)
}

func (f *fixture) get() *appsv1.StatefulSet {
	f.t.Helper()
	set, err := rest.Get[appsv1.StatefulSet](f.Ctx, f.Admin, "default", "web")
	if err != nil {
		f.t.Fatal(err)
	}
	return set
}

func (f *fixture) update(mutate func(*appsv1.StatefulSet)) {
	f.t.Helper()
	set := f.get()
	mutate(set)
	if _, err := rest.Update(f.Ctx, f.Admin, set); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) pod(name string) *corev1.Pod {
	f.t.Helper()
	p, err := rest.Get[corev1.Pod](f.Ctx, f.Admin, "default", name)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// podNames are the pods in the apiserver, with their revision label.
func (f *fixture) podNames() []string {
	f.t.Helper()
	l, err := rest.List[corev1.Pod](f.Ctx, f.Admin, "default", rest.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, p := range l.Items {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

func (f *fixture) claimNames() []string {
	f.t.Helper()
	l, err := rest.List[corev1.PersistentVolumeClaim](f.Ctx, f.Admin, "default", rest.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, c := range l.Items {
		out = append(out, c.Name)
	}
	slices.Sort(out)
	return out
}

// setPhase reports the pod as a kubelet would: Running and Ready, or
// another phase.
func (f *fixture) setPhase(name string, phase corev1.PodPhase) {
	f.t.Helper()
	p := f.pod(name)
	status := corev1.ConditionFalse
	if phase == corev1.PodRunning {
		status = corev1.ConditionTrue
	}
	p.Status.Phase = phase
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Now()}}
	if _, err := rest.UpdateStatus(f.Ctx, f.Admin, p); err != nil {
		f.t.Fatal(err)
	}
}

// bringUp syncs and makes each new pod ready until n pods are.
func (f *fixture) bringUp(n int) {
	f.t.Helper()
	for range 2*n + 2 {
		f.sync()
		ready := 0
		for _, name := range f.podNames() {
			if p := f.pod(name); isRunningAndReady(p) {
				ready++
			} else if p.DeletionTimestamp == nil {
				f.setPhase(name, corev1.PodRunning)
				ready++
			}
		}
		if ready == n && len(f.podNames()) == n {
			f.sync() // the status of n ready pods
			return
		}
	}
	f.t.Fatalf("pods %v: not %d ready", f.podNames(), n)
}

func (f *fixture) expectPods(want ...string) {
	f.t.Helper()
	if got := f.podNames(); !slices.Equal(got, want) {
		f.t.Errorf("pods %v, want %v", got, want)
	}
}

func (f *fixture) waitEvent(reason, message string) {
	f.t.Helper()
	testenv.Eventually(f.t, "event "+reason+" "+message, controllertest.Timeout, func() (string, bool) {
		l, err := rest.List[corev1.Event](f.Ctx, f.Admin, "default", rest.ListOptions{})
		if err != nil {
			return err.Error(), false
		}
		var seen []string
		for _, e := range l.Items {
			if e.Reason == reason && e.Message == message && e.InvolvedObject.Kind == "StatefulSet" &&
				e.Source.Component == ControllerName {
				return "", true
			}
			seen = append(seen, e.Reason+": "+e.Message)
		}
		return strings.Join(seen, "; "), false
	})
}

// TestOrderedReadyCreatesInOrder: one pod at a time, its claim first, the
// next only once the previous is Running and Ready.
func TestOrderedReadyCreatesInOrder(t *testing.T) {
	f := newFixture(t)
	f.createSet(3, nil)
	f.sync()
	f.expect("create controllerrevisions default/$update", "create persistentvolumeclaims default/data-web-0",
		"create pods default/web-0", "update statefulsets/status default/web")
	f.expectPods("web-0")
	if got := f.claimNames(); !slices.Equal(got, []string{"data-web-0"}) {
		t.Errorf("claims %v", got)
	}
	set := f.get()
	pod := f.pod("web-0")
	ref := metav1.GetControllerOf(&pod.ObjectMeta)
	if ref == nil || ref.Kind != "StatefulSet" || ref.UID != set.UID {
		t.Errorf("controllerRef %+v", ref)
	}
	if pod.Spec.Hostname != "web-0" || pod.Spec.Subdomain != "nginx" ||
		pod.Labels[appsv1.StatefulSetPodNameLabel] != "web-0" || pod.Labels[appsv1.PodIndexLabel] != "0" ||
		pod.Labels[appsv1.StatefulSetRevisionLabel] != set.Status.UpdateRevision || pod.Labels["app"] != "nginx" {
		t.Errorf("identity: hostname %q subdomain %q labels %v (update revision %q)", pod.Spec.Hostname, pod.Spec.Subdomain, pod.Labels, set.Status.UpdateRevision)
	}
	if len(pod.Spec.Volumes) != 1 || pod.Spec.Volumes[0].PersistentVolumeClaim == nil || pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "data-web-0" {
		t.Errorf("volumes %+v", pod.Spec.Volumes)
	}
	if !strings.HasPrefix(set.Status.UpdateRevision, "web-") || set.Status.CurrentRevision != set.Status.UpdateRevision ||
		set.Status.CollisionCount == nil || *set.Status.CollisionCount != 0 || set.Status.ObservedGeneration != set.Generation {
		t.Errorf("status %+v", set.Status)
	}
	f.waitEvent("SuccessfulCreate", "create Claim data-web-0 Pod web-0 in StatefulSet web success")
	f.waitEvent("SuccessfulCreate", "create Pod web-0 in StatefulSet web successful")

	// web-0 Pending: nothing but the status (replicas 1).
	f.sync()
	f.expect("update statefulsets/status default/web")
	f.sync()
	f.expect()
	f.expectPods("web-0")

	f.setPhase("web-0", corev1.PodRunning)
	f.sync()
	f.expect("create persistentvolumeclaims default/data-web-1", "create pods default/web-1", "update statefulsets/status default/web")
	f.expectPods("web-0", "web-1")

	f.bringUp(3)
	f.expectPods("web-0", "web-1", "web-2")
	if s := f.get().Status; s.Replicas != 3 || s.ReadyReplicas != 3 || s.AvailableReplicas != 3 || s.CurrentReplicas != 3 || s.UpdatedReplicas != 3 {
		t.Errorf("status %+v", s)
	}
}

// TestParallelCreatesAll: podManagementPolicy Parallel creates every pod
// in one sync; spec.ordinals.start numbers them.
func TestParallelCreatesAll(t *testing.T) {
	f := newFixture(t)
	f.createSet(3, func(s *appsv1.StatefulSet) {
		s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: 5}
	})
	f.sync()
	f.expect("create controllerrevisions default/$update",
		"create persistentvolumeclaims default/data-web-5", "create persistentvolumeclaims default/data-web-6", "create persistentvolumeclaims default/data-web-7",
		"create pods default/web-5", "create pods default/web-6", "create pods default/web-7", "update statefulsets/status default/web")
	f.expectPods("web-5", "web-6", "web-7")
	if got := f.claimNames(); !slices.Equal(got, []string{"data-web-5", "data-web-6", "data-web-7"}) {
		t.Errorf("claims %v", got)
	}
	if got := f.pod("web-6").Labels[appsv1.PodIndexLabel]; got != "6" {
		t.Errorf("pod-index %q", got)
	}
}

// TestScaleDownInReverseOrder: the highest ordinal goes first, one at a
// time; the claims stay (whenScaled Retain).
func TestScaleDownInReverseOrder(t *testing.T) {
	f := newFixture(t)
	f.createSet(3, nil)
	f.bringUp(3)
	f.update(func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr(int32(1)) })
	f.sync()
	f.expect("delete pods default/web-2", "update statefulsets/status default/web")
	f.expectPods("web-0", "web-1")
	f.waitEvent("SuccessfulDelete", "delete Pod web-2 in StatefulSet web successful")
	f.sync()
	f.expect("delete pods default/web-1", "update statefulsets/status default/web")
	f.expectPods("web-0")
	if got := f.claimNames(); !slices.Equal(got, []string{"data-web-0", "data-web-1", "data-web-2"}) {
		t.Errorf("claims %v", got)
	}
}

// TestOrderedReadyScaleDownWaitsForUnhealthy: a scale-down waits while a
// remaining pod is not ready.
func TestOrderedReadyScaleDownWaitsForUnhealthy(t *testing.T) {
	f := newFixture(t)
	f.createSet(3, nil)
	f.bringUp(3)
	f.setPhase("web-0", corev1.PodPending)
	f.update(func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr(int32(2)) })
	f.sync()
	f.expect("update statefulsets/status default/web")
	f.expectPods("web-0", "web-1", "web-2")
	f.setPhase("web-0", corev1.PodRunning)
	f.sync()
	f.expect("delete pods default/web-2", "update statefulsets/status default/web")
}

// TestFailedPodIsRecreated: a failed pod is deleted, then created again
// with the same name and claim.
func TestFailedPodIsRecreated(t *testing.T) {
	f := newFixture(t)
	f.createSet(1, nil)
	f.bringUp(1)
	old := f.pod("web-0")
	f.setPhase("web-0", corev1.PodFailed)
	f.sync()
	f.expect("delete pods default/web-0", "update statefulsets/status default/web")
	f.sync()
	f.expect("create pods default/web-0", "update statefulsets/status default/web")
	if p := f.pod("web-0"); p.UID == old.UID {
		t.Error("web-0 was not recreated")
	}
}

// TestRollingUpdateWithPartition: pods at or above the partition are
// replaced highest first, one at a time; below it they keep the current
// revision until the partition goes down.
func TestRollingUpdateWithPartition(t *testing.T) {
	f := newFixture(t)
	f.createSet(3, nil)
	f.bringUp(3)
	rev1 := f.get().Status.CurrentRevision
	f.update(func(s *appsv1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(1))}
	})
	f.sync()
	f.expect("create controllerrevisions default/$update", "delete pods default/web-2", "update statefulsets/status default/web")
	set := f.get()
	rev2 := set.Status.UpdateRevision
	if rev2 == rev1 || set.Status.CurrentRevision != rev1 {
		t.Fatalf("revisions: current %s update %s (first %s)", set.Status.CurrentRevision, rev2, rev1)
	}
	f.sync()
	f.expect("create pods default/web-2", "update statefulsets/status default/web")
	if p := f.pod("web-2"); getPodRevision(p) != rev2 || p.Spec.Containers[0].Image != "nginx:2" {
		t.Errorf("web-2 at %s with %s", getPodRevision(p), p.Spec.Containers[0].Image)
	}
	// web-2 not ready yet: web-1 waits.
	f.sync()
	f.expect("update statefulsets/status default/web")
	f.setPhase("web-2", corev1.PodRunning)
	f.sync()
	f.expect("delete pods default/web-1", "update statefulsets/status default/web")
	f.bringUp(3)
	if got := getPodRevision(f.pod("web-0")); got != rev1 {
		t.Errorf("web-0 below the partition at %s", got)
	}
	s := f.get().Status
	if s.CurrentRevision != rev1 || s.UpdateRevision != rev2 || s.UpdatedReplicas != 2 || s.CurrentReplicas != 1 {
		t.Errorf("partitioned status %+v", s)
	}
	f.update(func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr(int32(0)) })
	f.sync()
	f.expect("delete pods default/web-0", "update statefulsets/status default/web")
	f.bringUp(3)
	s = f.get().Status
	if s.CurrentRevision != rev2 || s.UpdateRevision != rev2 || s.UpdatedReplicas != 3 || s.CurrentReplicas != 3 {
		t.Errorf("completed status %+v", s)
	}
}

// TestMaxUnavailable: maxUnavailable 2 replaces two pods at once.
func TestMaxUnavailable(t *testing.T) {
	f := newFixture(t)
	f.createSet(4, func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement })
	f.bringUp(4)
	f.update(func(s *appsv1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{
			Partition: ptr(int32(0)), MaxUnavailable: ptr(intstr.FromInt(2))}
	})
	f.sync()
	f.expect("create controllerrevisions default/$update", "delete pods default/web-3", "delete pods default/web-2",
		"update statefulsets/status default/web")
	// Both recreated (Parallel), not ready: nothing more is deleted.
	f.sync()
	f.expect("create pods default/web-2", "create pods default/web-3", "update statefulsets/status default/web")
	f.sync()
	f.expect("update statefulsets/status default/web")
}

// TestOnDelete: a new template replaces only the pods a user deletes.
func TestOnDelete(t *testing.T) {
	f := newFixture(t)
	f.createSet(2, func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	})
	f.bringUp(2)
	f.update(func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	f.sync()
	f.expect("create controllerrevisions default/$update", "update statefulsets/status default/web")
	f.expectPods("web-0", "web-1")
	if err := rest.Delete[corev1.Pod](f.Ctx, f.Admin, "default", "web-1", nil); err != nil {
		t.Fatal(err)
	}
	f.sync()
	f.expect("create pods default/web-1", "update statefulsets/status default/web")
	if got := f.pod("web-1").Spec.Containers[0].Image; got != "nginx:2" {
		t.Errorf("web-1 recreated with %s", got)
	}
	if got := f.pod("web-0").Spec.Containers[0].Image; got != "nginx:1" {
		t.Errorf("web-0 has %s", got)
	}
}

// TestRetentionPolicy: whenDeleted Delete makes the set the claims'
// controller; whenScaled Delete hands a condemned pod's claim to the pod
// before the pod is deleted (the garbage collector then deletes the claim).
func TestRetentionPolicy(t *testing.T) {
	f := newFixture(t)
	f.createSet(2, func(s *appsv1.StatefulSet) {
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: del, WhenScaled: del}
	})
	f.bringUp(2)
	set := f.get()
	claim := func(name string) *corev1.PersistentVolumeClaim {
		c, err := rest.Get[corev1.PersistentVolumeClaim](f.Ctx, f.Admin, "default", name)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, name := range []string{"data-web-0", "data-web-1"} {
		ref := metav1.GetControllerOf(&claim(name).ObjectMeta)
		if ref == nil || ref.UID != set.UID || ref.Kind != "StatefulSet" {
			t.Errorf("%s: controller %+v, want the set", name, ref)
		}
	}
	web1 := f.pod("web-1")
	f.update(func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr(int32(1)) })
	f.sync()
	f.expect("update persistentvolumeclaims default/data-web-1", "delete pods default/web-1", "update statefulsets/status default/web")
	c := claim("data-web-1")
	if ref := metav1.GetControllerOf(&c.ObjectMeta); ref == nil || ref.UID != web1.UID || ref.Kind != "Pod" || len(c.OwnerReferences) != 1 {
		t.Errorf("data-web-1 after scale-down: %+v", c.OwnerReferences)
	}
}

// TestRollbackRenumbersRevision: going back to an old template reuses its
// revision with the next number; old revisions beyond
// revisionHistoryLimit are deleted.
func TestRollbackRenumbersRevision(t *testing.T) {
	f := newFixture(t)
	f.createSet(1, func(s *appsv1.StatefulSet) { s.Spec.RevisionHistoryLimit = ptr(int32(1)) })
	f.bringUp(1)
	rev1 := f.get().Status.UpdateRevision
	f.update(func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	f.bringUp(1)
	rev2 := f.get().Status.UpdateRevision
	f.update(func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:1" })
	f.sync()
	f.expect("update controllerrevisions default/"+rev1, "delete pods default/web-0", "update statefulsets/status default/web")
	cr, err := rest.Get[appsv1.ControllerRevision](f.Ctx, f.Admin, "default", rev1)
	if err != nil {
		t.Fatal(err)
	}
	if cr.Revision != 3 || f.get().Status.UpdateRevision != rev1 {
		t.Errorf("revision %d, update revision %s", cr.Revision, f.get().Status.UpdateRevision)
	}
	f.bringUp(1)
	// rev2 is no longer used: with a limit of 1 it stays, one more goes.
	f.update(func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:3" })
	f.bringUp(1)
	f.sync()
	l, err := rest.List[appsv1.ControllerRevision](f.Ctx, f.Admin, "default", rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range l.Items {
		names = append(names, fmt.Sprintf("%s=%d", r.Name, r.Revision))
	}
	if len(l.Items) != 2 || slices.ContainsFunc(l.Items, func(r appsv1.ControllerRevision) bool { return r.Name == rev2 }) {
		t.Errorf("revisions %v (rev2 %s should be gone)", names, rev2)
	}
}

// TestAdoptAndRelease: an orphan named like a member and matching the
// selector is adopted, its identity repaired once it is ready, and then
// replaced at the update revision; a pod whose labels stop matching is
// released (and, as upstream, its name then blocks the set until it is
// gone).
func TestAdoptAndRelease(t *testing.T) {
	f := newFixture(t)
	f.createSet(1, func(s *appsv1.StatefulSet) {
		s.Spec.VolumeClaimTemplates, s.Spec.Template.Spec.Containers[0].VolumeMounts = nil, nil
	})
	if _, err := rest.Create(f.Ctx, f.Admin, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "default",
		Labels: map[string]string{"app": "nginx"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1"}}}}); err != nil {
		t.Fatal(err)
	}
	f.sync()
	f.expect("create controllerrevisions default/$update", "patch pods default/web-0", "update statefulsets/status default/web")
	p := f.pod("web-0")
	if ref := metav1.GetControllerOf(&p.ObjectMeta); ref == nil || ref.Kind != "StatefulSet" {
		t.Errorf("web-0 not adopted: %+v", p.OwnerReferences)
	}
	// Ready: its identity is repaired, then, not being at the update
	// revision (no controller-revision-hash), it is replaced.
	f.setPhase("web-0", corev1.PodRunning)
	f.sync()
	f.expect("update pods default/web-0", "delete pods default/web-0", "update statefulsets/status default/web")
	f.waitEvent("SuccessfulUpdate", "update Pod web-0 in StatefulSet web successful")
	f.sync()
	f.expect("create pods default/web-0", "update statefulsets/status default/web")
	p = f.pod("web-0")
	if p.Labels[appsv1.StatefulSetPodNameLabel] != "web-0" || getPodRevision(p) != f.get().Status.UpdateRevision {
		t.Errorf("recreated web-0: %v", p.Labels)
	}
	p.Labels = map[string]string{"app": "other"}
	if _, err := rest.Update(f.Ctx, f.Admin, p); err != nil {
		t.Fatal(err)
	}
	f.settle()
	f.ClearActions()
	if err := f.ssc.sync(f.Ctx, "default/web"); !rest.IsAlreadyExists(err) {
		t.Errorf("sync with a foreign web-0: %v", err)
	}
	f.expect("patch pods default/web-0", "create pods default/web-0")
	if ref := metav1.GetControllerOf(&f.pod("web-0").ObjectMeta); ref != nil {
		t.Errorf("web-0 not released: %+v", ref)
	}
}

// TestMinReadySeconds: a ready pod counts as available minReadySeconds
// after it became ready; OrderedReady waits for that before the next pod.
func TestMinReadySeconds(t *testing.T) {
	f := newFixture(t)
	f.createSet(2, func(s *appsv1.StatefulSet) { s.Spec.MinReadySeconds = 2 })
	f.sync()
	f.setPhase("web-0", corev1.PodRunning)
	f.sync()
	f.expect("update statefulsets/status default/web")
	f.expectPods("web-0")
	if s := f.get().Status; s.ReadyReplicas != 1 || s.AvailableReplicas != 0 {
		t.Errorf("status right after ready: %+v", s)
	}
	testenv.Eventually(t, "web-1 created once web-0 is available", controllertest.Timeout, func() (string, bool) {
		f.sync()
		names := f.podNames()
		return fmt.Sprint(names), slices.Equal(names, []string{"web-0", "web-1"})
	})
	if s := f.get().Status; s.AvailableReplicas != 1 {
		t.Errorf("status once available: %+v", s)
	}
}
