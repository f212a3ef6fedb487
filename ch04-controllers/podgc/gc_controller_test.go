package podgc

import (
	"maps"
	"slices"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/controllertest"
)

type testEnv struct {
	*controllertest.Env
	gcc   *PodGCController
	clock *workqueue.FakeClock
}

func newTestEnv(t *testing.T, threshold int) *testEnv {
	env := controllertest.New(t)
	clock := workqueue.NewFakeClock(time.Now())
	gcc := newPodGC(env.CC, Options{TerminatedPodThreshold: threshold}, clock)
	env.Start(t)
	return &testEnv{env, gcc, clock}
}

type podSpec struct {
	name, node, reason string
	phase              corev1.PodPhase
	finalizer          bool // so that a deleted pod stays, terminating
	deleted            bool
}

func (e *testEnv) pods(t *testing.T, specs ...podSpec) {
	t.Helper()
	for _, s := range specs {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: s.name, Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: s.node, Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
		if s.finalizer {
			p.Finalizers = []string{"example.com/keep"}
		}
		created, err := rest.Create(e.Ctx, e.Admin, p)
		if err != nil {
			t.Fatal(err)
		}
		if s.phase != "" && s.phase != corev1.PodPending {
			created.Status.Phase, created.Status.Reason = s.phase, s.reason
			if _, err := rest.UpdateStatus(e.Ctx, e.Admin, created); err != nil {
				t.Fatal(err)
			}
		}
		if s.deleted {
			if err := rest.Delete[corev1.Pod](e.Ctx, e.Admin, "default", s.name, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func (e *testEnv) node(t *testing.T, name string, ready bool, taints ...corev1.Taint) {
	t.Helper()
	n, err := rest.Create(e.Ctx, e.Admin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil {
		t.Fatal(err)
	}
	n.Spec.Taints = taints
	if n, err = rest.Update(e.Ctx, e.Admin, n); err != nil {
		t.Fatal(err)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}
	if _, err := rest.UpdateStatus(e.Ctx, e.Admin, n); err != nil {
		t.Fatal(err)
	}
}

// gc waits until the caches show the API's pods and nodes, then collects.
func (e *testEnv) gc(t *testing.T) {
	t.Helper()
	pods, err := rest.List[corev1.Pod](e.Ctx, e.Admin, "", rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := rest.List[corev1.Node](e.Ctx, e.Admin, "", rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "caches current", func() bool {
		return sameVersions(pods.Items, e.gcc.pods.GetStore().List()) && sameVersions(nodes.Items, e.gcc.nodes.GetStore().List())
	})
	e.ClearActions()
	e.gcc.gc(e.Ctx)
}

func sameVersions[T any, PT interface {
	*T
	metav1.Object
}](api []T, cached []*T) bool {
	a, b := map[string]string{}, map[string]string{}
	for i := range api {
		m := PT(&api[i]).GetObjectMeta()
		a[m.Name] = m.ResourceVersion
	}
	for _, o := range cached {
		m := PT(o).GetObjectMeta()
		b[m.Name] = m.ResourceVersion
	}
	return maps.Equal(a, b)
}

func deleted(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, "delete pods default/"+n)
	}
	return out
}

// Upstream's TestGCTerminated.
func TestGCTerminated(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pods      []podSpec
		threshold int
		deleted   []string
	}{
		{"delete pod a which is PodFailed and pod b which is PodSucceeded",
			[]podSpec{{name: "a", phase: corev1.PodFailed}, {name: "b", phase: corev1.PodSucceeded}, {name: "c", phase: corev1.PodFailed}},
			1, []string{"a", "b"}},
		{"threshold = 0, disables terminated pod deletion",
			[]podSpec{{name: "a", phase: corev1.PodFailed}, {name: "b", phase: corev1.PodSucceeded}},
			0, nil},
		{"threshold = 1, delete pod a which is PodFailed and pod b which is PodSucceeded, running and pending pods are not terminated",
			[]podSpec{{name: "a", phase: corev1.PodFailed}, {name: "b", phase: corev1.PodSucceeded}, {name: "c", phase: corev1.PodFailed},
				{name: "d", phase: corev1.PodRunning}, {name: "e", phase: corev1.PodPending}},
			1, []string{"a", "b"}},
		{"evicted pods first",
			[]podSpec{{name: "a", phase: corev1.PodFailed}, {name: "b", phase: corev1.PodSucceeded}, {name: "c", phase: corev1.PodFailed, reason: "Evicted"}},
			1, []string{"c", "a"}},
		{"under the threshold",
			[]podSpec{{name: "a", phase: corev1.PodFailed}, {name: "b", phase: corev1.PodSucceeded}},
			5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t, tc.threshold)
			e.pods(t, tc.pods...)
			e.gc(t)
			e.ExpectWrites(t, deleted(tc.deleted...)...) // terminal: no status patch first
		})
	}
}

func TestGCOrphaned(t *testing.T) {
	e := newTestEnv(t, 0)
	e.node(t, "existing", true)
	e.pods(t, podSpec{name: "orphan", node: "gone", phase: corev1.PodRunning, finalizer: true}, // stays for its status to be read
		podSpec{name: "kept", node: "existing", phase: corev1.PodRunning},
		podSpec{name: "late", node: "late-node", phase: corev1.PodRunning})
	// First seen: quarantined, nothing deleted yet.
	e.gc(t)
	e.ExpectWrites(t)
	if len(e.gcc.quarantine) != 2 {
		t.Fatalf("quarantine %v, want gone and late-node", slices.Collect(maps.Keys(e.gcc.quarantine)))
	}
	// late-node registers during the quarantine, but the cache has not
	// seen it: the apiserver's answer counts.
	e.node(t, "late-node", true)
	e.clock.Step(quarantineTime)
	e.ClearActions()
	pods := e.gcc.pods.GetStore().List()
	var nodes []*corev1.Node
	for _, n := range e.gcc.nodes.GetStore().List() {
		if n.Name == "existing" {
			nodes = append(nodes, n)
		}
	}
	e.gcc.gcOrphaned(e.Ctx, pods, nodes)
	e.ExpectWrites(t, "patch pods/status default/orphan", "delete pods default/orphan")
	if len(e.gcc.quarantine) != 0 {
		t.Errorf("quarantine left: %v", e.gcc.quarantine)
	}
	// Marked Failed, with the DisruptionTarget condition.
	p, err := rest.Get[corev1.Pod](e.Ctx, e.Admin, "default", "orphan")
	if err != nil {
		t.Fatal(err)
	}
	var cond *corev1.PodCondition
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.DisruptionTarget {
			cond = &p.Status.Conditions[i]
		}
	}
	if p.Status.Phase != corev1.PodFailed || p.DeletionTimestamp == nil || cond == nil || cond.Status != corev1.ConditionTrue ||
		cond.Reason != "DeletionByPodGC" || cond.Message != "PodGC: node no longer exists" {
		t.Errorf("orphan: phase %s deletion %v conditions %+v", p.Status.Phase, p.DeletionTimestamp, p.Status.Conditions)
	}
}

func TestGCUnscheduledTerminating(t *testing.T) {
	e := newTestEnv(t, 0)
	e.pods(t, podSpec{name: "unscheduled-terminating", finalizer: true, deleted: true},
		podSpec{name: "unscheduled", finalizer: true})
	e.gc(t)
	e.ExpectWrites(t, "patch pods/status default/unscheduled-terminating", "delete pods default/unscheduled-terminating")
}

// Terminating pods of a NotReady node with the out-of-service taint.
func TestGCTerminating(t *testing.T) {
	e := newTestEnv(t, 0)
	outOfService := corev1.Taint{Key: corev1.TaintNodeOutOfService, Effect: corev1.TaintEffectNoExecute}
	e.node(t, "down", false, outOfService)
	e.node(t, "down-no-taint", false)
	e.node(t, "ready-tainted", true, outOfService)
	e.pods(t, podSpec{name: "a", node: "down", phase: corev1.PodRunning, finalizer: true, deleted: true},
		podSpec{name: "b", node: "down-no-taint", phase: corev1.PodRunning, finalizer: true, deleted: true},
		podSpec{name: "c", node: "ready-tainted", phase: corev1.PodRunning, finalizer: true, deleted: true},
		podSpec{name: "d", node: "down", phase: corev1.PodRunning})
	e.gc(t)
	e.ExpectWrites(t, "patch pods/status default/a", "delete pods default/a")
}
