package disruption

// Fixtures in, actions out (controllertest): PDBs, pods and their
// controllers are written to a real apiserver, sync is called directly and
// the status it wrote is read back; the clock is fake.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/internal/controllertest"
	"kubik/internal/testenv"
)

type fixture struct {
	*controllertest.Env
	t     *testing.T
	dc    *DisruptionController
	clock *workqueue.FakeClock
}

func newFixture(t *testing.T) *fixture {
	env := controllertest.New(t)
	clock := workqueue.NewFakeClock(time.Now())
	dc := newDisruptionController(env.CC, clock)
	go dc.recorder.Run(env.Ctx)
	env.Start(t)
	return &fixture{Env: env, t: t, dc: dc, clock: clock}
}

// pod creates a pod labelled app=web, owned by owner (nil: no controller),
// reported Running and ready or not.
func (f *fixture) pod(name string, owner *metav1.OwnerReference, ready bool) *corev1.Pod {
	f.t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	p, err := rest.Create(f.Ctx, f.Admin, p)
	if err != nil {
		f.t.Fatal(err)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Now()}}}
	if p, err = rest.UpdateStatus(f.Ctx, f.Admin, p); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// replicaSet creates a ReplicaSet of replicas (no controller runs it) and
// returns the ownerReference its pods carry.
func (f *fixture) replicaSet(name string, replicas int32) *metav1.OwnerReference {
	f.t.Helper()
	rs, err := rest.Create(f.Ctx, f.Admin, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}})
	if err != nil {
		f.t.Fatal(err)
	}
	controllertest.Eventually(f.t, "ReplicaSet in the informer", func() bool {
		_, ok := f.dc.rsInformer.GetStore().Get("default", name)
		return ok
	})
	ref := controller.NewControllerRef(&rs.ObjectMeta, "apps/v1", "ReplicaSet")
	return &ref
}

func (f *fixture) pdb(spec policyv1.PodDisruptionBudgetSpec) {
	f.t.Helper()
	if spec.Selector == nil {
		spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	}
	if _, err := rest.Create(f.Ctx, f.Admin, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: spec}); err != nil {
		f.t.Fatal(err)
	}
}

// sync waits until the informers hold the current PDB and n pods, syncs
// it and returns the PDB as the apiserver has it then.
func (f *fixture) sync(pods int) (*policyv1.PodDisruptionBudget, time.Duration) {
	f.t.Helper()
	cur, err := rest.Get[policyv1.PodDisruptionBudget](f.Ctx, f.Admin, "default", "web")
	if err != nil {
		f.t.Fatal(err)
	}
	testenv.Eventually(f.t, "current PDB and pods in the informers", controllertest.Timeout, func() (string, bool) {
		c, ok := f.dc.pdbInformer.GetStore().Get("default", "web")
		n := 0
		for _, p := range f.dc.podInformer.GetStore().List() {
			if controller.IsPodReady(p) || p.Status.Phase == corev1.PodRunning {
				n++
			}
		}
		return fmt.Sprintf("pdb %v, %d pods", ok, n), ok && c.ResourceVersion == cur.ResourceVersion && n == pods
	})
	f.ClearActions()
	recheck, err := f.dc.sync(f.Ctx, "default/web")
	if err != nil {
		f.t.Fatalf("sync: %v", err)
	}
	got, err := rest.Get[policyv1.PodDisruptionBudget](f.Ctx, f.Admin, "default", "web")
	if err != nil {
		f.t.Fatal(err)
	}
	return got, recheck
}

const statusUpdate = "update poddisruptionbudgets/status default/web"

func expectStatus(t *testing.T, pdb *policyv1.PodDisruptionBudget, current, desired, expected, allowed int32, condStatus, reason string) {
	t.Helper()
	s := pdb.Status
	if s.CurrentHealthy != current || s.DesiredHealthy != desired || s.ExpectedPods != expected || s.DisruptionsAllowed != allowed ||
		s.ObservedGeneration != pdb.Generation {
		t.Errorf("status %+v, want currentHealthy %d desiredHealthy %d expectedPods %d disruptionsAllowed %d observedGeneration %d",
			s, current, desired, expected, allowed, pdb.Generation)
	}
	c := findStatusCondition(s.Conditions, policyv1.DisruptionAllowedCondition)
	if c == nil || c.Status != condStatus || c.Reason != reason || c.ObservedGeneration != pdb.Generation || c.LastTransitionTime.IsZero() {
		t.Errorf("DisruptionAllowed condition %+v, want %s %s", c, condStatus, reason)
	}
}

// events waits for an event of reason on the PDB (or a pod) and returns
// its message.
func (f *fixture) event(reason string) string {
	f.t.Helper()
	var msg string
	testenv.Eventually(f.t, "event "+reason, controllertest.Timeout, func() (string, bool) {
		l, _ := rest.List[corev1.Event](f.Ctx, f.Admin, "default", rest.ListOptions{})
		var seen []string
		for _, e := range l.Items {
			seen = append(seen, e.Reason)
			if e.Reason == reason && e.Source.Component == EventSource {
				msg = e.Message
				return "", true
			}
		}
		return strings.Join(seen, ", "), false
	})
	return msg
}

// TestMinAvailableInteger: an integer minAvailable counts the pods there
// are, managed or not; one sync writes the status, the next nothing.
func TestMinAvailableInteger(t *testing.T) {
	f := newFixture(t)
	for i, ready := range []bool{true, true, true, false} {
		f.pod(fmt.Sprintf("p%d", i), nil, ready)
	}
	two := intstr.FromInt(2)
	f.pdb(policyv1.PodDisruptionBudgetSpec{MinAvailable: &two})
	pdb, _ := f.sync(4)
	f.ExpectWrites(t, statusUpdate)
	expectStatus(t, pdb, 3, 2, 4, 1, "True", policyv1.SufficientPodsReason)
	f.sync(4)
	f.ExpectWrites(t) // up to date
}

// TestNoPods: a PDB selecting nothing allows nothing, with a NoPods event.
func TestNoPods(t *testing.T) {
	f := newFixture(t)
	zero := intstr.FromInt(0)
	f.pdb(policyv1.PodDisruptionBudgetSpec{MinAvailable: &zero})
	pdb, _ := f.sync(0)
	f.ExpectWrites(t, statusUpdate)
	expectStatus(t, pdb, 0, 0, 0, 0, "False", policyv1.InsufficientPodsReason)
	if msg := f.event("NoPods"); msg != "No matching pods found" {
		t.Errorf("NoPods: %q", msg)
	}
}

// TestMaxUnavailableFromControllerScale: maxUnavailable and percentages
// count the scale of the pods' controllers (a ReplicaSet of 4 with 3
// pods: 4 expected), rounding up; a pod without a controller is reported.
func TestMaxUnavailableFromControllerScale(t *testing.T) {
	f := newFixture(t)
	ref := f.replicaSet("web-rs", 4)
	f.pod("a", ref, true)
	f.pod("b", ref, true)
	f.pod("c", ref, false)
	pct := intstr.FromString("25%")
	f.pdb(policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &pct})
	pdb, _ := f.sync(3)
	f.ExpectWrites(t, statusUpdate)
	// 25% of 4 rounded up: 1 unavailable, 3 must be healthy; 2 are.
	expectStatus(t, pdb, 2, 3, 4, 0, "False", policyv1.InsufficientPodsReason)

	// Percentage minAvailable: 50% of 4 = 2 healthy needed, 2 there: none allowed;
	// the bare pod "d" is unmanaged (ready, it counts as healthy).
	pdb.Spec.MaxUnavailable = nil
	half := intstr.FromString("50%")
	pdb.Spec.MinAvailable = &half
	if _, err := rest.Update(f.Ctx, f.Admin, pdb); err != nil {
		t.Fatal(err)
	}
	f.pod("d", nil, true)
	pdb, _ = f.sync(4)
	f.ExpectWrites(t, statusUpdate)
	expectStatus(t, pdb, 3, 2, 4, 1, "True", policyv1.SufficientPodsReason)
	want := `Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged.`
	if msg := f.event("UnmanagedPods"); !strings.HasPrefix(msg, want) {
		t.Errorf("UnmanagedPods: %q", msg)
	}
}

// TestUnknownControllerFailsSafe: a pod whose controller cannot be found
// makes the sync fail; the status then allows no disruption (SyncFailed).
func TestUnknownControllerFailsSafe(t *testing.T) {
	f := newFixture(t)
	tr := true
	f.pod("a", &metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: "job-uid", Controller: &tr}, true)
	one := intstr.FromString("10%")
	f.pdb(policyv1.PodDisruptionBudgetSpec{MinAvailable: &one})
	pdb, _ := f.sync(1)
	f.ExpectWrites(t, statusUpdate)
	c := findStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	if pdb.Status.DisruptionsAllowed != 0 || c == nil || c.Status != "False" || c.Reason != policyv1.SyncFailedReason ||
		c.Message != `found no controllers for pod "a"` {
		t.Errorf("status %+v", pdb.Status)
	}
	if msg := f.event("CalculateExpectedPodCountFailed"); msg != `Failed to calculate the number of expected pods: found no controllers for pod "a"` {
		t.Errorf("event: %q", msg)
	}
}

// TestDisruptedPods: a pod the apiserver allowed to evict does not count
// as healthy until DeletionTimeout has passed without its deletion; the
// sync asks to look again then, and afterwards the pod counts again.
func TestDisruptedPods(t *testing.T) {
	f := newFixture(t)
	f.pod("a", nil, true)
	f.pod("b", nil, true)
	one := intstr.FromInt(1)
	f.pdb(policyv1.PodDisruptionBudgetSpec{MinAvailable: &one})
	pdb, _ := f.sync(2)
	expectStatus(t, pdb, 2, 1, 2, 1, "True", policyv1.SufficientPodsReason)

	// What the eviction subresource writes when it allows evicting "a".
	pdb.Status.DisruptionsAllowed = 0
	pdb.Status.DisruptedPods = map[string]metav1.Time{"a": metav1.NewTime(f.clock.Now().Truncate(time.Second))}
	if _, err := rest.UpdateStatus(f.Ctx, f.Admin, pdb); err != nil {
		t.Fatal(err)
	}
	pdb, recheck := f.sync(2)
	f.ExpectWrites(t, statusUpdate)
	expectStatus(t, pdb, 1, 1, 2, 0, "False", policyv1.InsufficientPodsReason)
	if _, ok := pdb.Status.DisruptedPods["a"]; !ok {
		t.Errorf("disruptedPods %v: a dropped too early", pdb.Status.DisruptedPods)
	}
	if recheck <= DeletionTimeout-2*time.Second || recheck > DeletionTimeout {
		t.Errorf("recheck after %v, want about %v", recheck, DeletionTimeout)
	}

	f.clock.Step(DeletionTimeout + time.Second)
	pdb, _ = f.sync(2)
	f.ExpectWrites(t, statusUpdate)
	expectStatus(t, pdb, 2, 1, 2, 1, "True", policyv1.SufficientPodsReason)
	if len(pdb.Status.DisruptedPods) != 0 {
		t.Errorf("disruptedPods %v after the timeout", pdb.Status.DisruptedPods)
	}
	if msg := f.event("NotDeleted"); msg != "Pod was expected by PDB default/default to be deleted but it wasn't" {
		t.Errorf("NotDeleted: %q", msg)
	}
}
