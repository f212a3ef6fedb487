package history

import (
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/controllertest"
)

func TestHashControllerRevision(t *testing.T) {
	r := &appsv1.ControllerRevision{Data: appsv1.RawExtension{Raw: []byte(`{"a":1}`)}}
	one := int32(1)
	// FNV-1 (not FNV-1a) of the data, then of the decimal probe.
	if got := HashControllerRevision(r, nil); got != "69966c9df7" {
		t.Errorf("hash without probe: %s", got)
	}
	if got := HashControllerRevision(r, &one); got != "d55c4ff5d" {
		t.Errorf("hash with probe 1: %s", got)
	}
}

func TestControllerRevisionName(t *testing.T) {
	if got := ControllerRevisionName("web", "abc"); got != "web-abc" {
		t.Errorf("got %s", got)
	}
	if got := ControllerRevisionName(strings.Repeat("x", 300), "abc"); len(got) != 227 {
		t.Errorf("long prefix: %d bytes", len(got))
	}
}

func TestNewControllerRevisionAndEquality(t *testing.T) {
	parent := &metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "u1"}
	cr := NewControllerRevision(parent, "apps/v1", "StatefulSet", map[string]string{"app": "web"}, []byte(`{"a":1}`), 3, nil)
	ref := metav1.GetControllerOf(&cr.ObjectMeta)
	if cr.Name != "web-69966c9df7" || cr.Namespace != "ns" || cr.Revision != 3 || cr.Labels["app"] != "web" ||
		cr.Labels[ControllerRevisionHashLabel] != "69966c9df7" || ref == nil || ref.Kind != "StatefulSet" || ref.UID != "u1" {
		t.Fatalf("%+v", cr)
	}
	same := NewControllerRevision(parent, "apps/v1", "StatefulSet", nil, []byte(`{"a":1}`), 4, nil)
	other := NewControllerRevision(parent, "apps/v1", "StatefulSet", nil, []byte(`{"a":2}`), 1, nil)
	if !EqualRevision(cr, same) || EqualRevision(cr, other) || EqualRevision(cr, nil) || !EqualRevision(nil, nil) {
		t.Error("EqualRevision")
	}
	if eq := FindEqualRevisions([]*appsv1.ControllerRevision{other, same, cr}, cr); len(eq) != 2 || eq[0] != same || eq[1] != cr {
		t.Errorf("FindEqualRevisions: %v", eq)
	}
}

func TestSortControllerRevisions(t *testing.T) {
	t0 := metav1.NewTime(time.Unix(1000, 0))
	t1 := metav1.NewTime(time.Unix(2000, 0))
	rs := []*appsv1.ControllerRevision{
		{ObjectMeta: metav1.ObjectMeta{Name: "c", CreationTimestamp: t0}, Revision: 2},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", CreationTimestamp: t1}, Revision: 1},
		{ObjectMeta: metav1.ObjectMeta{Name: "a", CreationTimestamp: t1}, Revision: 1},
		{ObjectMeta: metav1.ObjectMeta{Name: "z", CreationTimestamp: t0}, Revision: 1},
	}
	SortControllerRevisions(rs)
	var got []string
	for _, r := range rs {
		got = append(got, r.Name)
	}
	if strings.Join(got, ",") != "z,a,b,c" {
		t.Errorf("order %v", got)
	}
}

func TestRealHistory(t *testing.T) {
	env := controllertest.New(t)
	h := NewHistory(env.CC.Client, controller.InformerFor[appsv1.ControllerRevision](env.CC.Informers))
	env.Start(t)
	ctx := env.Ctx
	parent := &metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web"}
	rev := NewControllerRevision(parent, "apps/v1", "StatefulSet", map[string]string{"app": "web"}, []byte(`{"a":1}`), 1, nil)

	// A different revision already holds the name: the collision count goes up.
	var collisions int32
	squatter := metav1.DeepCopy(rev)
	squatter.Name = ControllerRevisionName("web", HashControllerRevision(rev, &collisions))
	squatter.OwnerReferences = nil
	squatter.Data.Raw = []byte(`{"other":true}`)
	if _, err := rest.Create(ctx, env.Admin, squatter); err != nil {
		t.Fatal(err)
	}
	created, err := h.CreateControllerRevision(ctx, parent, rev, &collisions)
	if err != nil {
		t.Fatal(err)
	}
	if collisions != 1 || created.Name != "web-"+HashControllerRevision(rev, &collisions) {
		t.Fatalf("created %s with collisionCount %d", created.Name, collisions)
	}
	// The same data again: the existing revision, no new collision.
	again, err := h.CreateControllerRevision(ctx, parent, rev, &collisions)
	if err != nil || again.Name != created.Name || collisions != 1 {
		t.Fatalf("again: %v %v %d", again, err, collisions)
	}
	// Someone else's revision is not listed; an orphan and ours are.
	foreign := NewControllerRevision(&metav1.ObjectMeta{Name: "db", Namespace: "default", UID: "uid-db"}, "apps/v1", "StatefulSet",
		map[string]string{"app": "web"}, []byte(`{"b":1}`), 1, nil)
	if _, err := rest.Create(ctx, env.Admin, foreign); err != nil {
		t.Fatal(err)
	}
	sel, _ := selection.FromLabelSelector(&metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}})
	controllertest.Eventually(t, "three revisions cached", func() bool {
		return len(controller.InformerFor[appsv1.ControllerRevision](env.CC.Informers).GetStore().List()) == 3
	})
	listed := h.ListControllerRevisions(parent, sel)
	if len(listed) != 2 {
		t.Fatalf("listed %d revisions, want ours and the orphan", len(listed))
	}

	updated, err := h.UpdateControllerRevision(ctx, created, 7)
	if err != nil || updated.Revision != 7 {
		t.Fatalf("update: %v %v", updated, err)
	}
	orphan, err := rest.Get[appsv1.ControllerRevision](ctx, env.Admin, "default", squatter.Name)
	if err != nil {
		t.Fatal(err)
	}
	adopted, err := h.AdoptControllerRevision(ctx, parent, "apps/v1", "StatefulSet", orphan)
	if err != nil || metav1.GetControllerOf(&adopted.ObjectMeta) == nil {
		t.Fatalf("adopt: %v %v", adopted, err)
	}
	if _, err := h.AdoptControllerRevision(ctx, parent, "apps/v1", "StatefulSet", adopted); err == nil {
		t.Error("adopting an owned revision succeeded")
	}
	released, err := h.ReleaseControllerRevision(ctx, parent, adopted)
	if err != nil || len(released.OwnerReferences) != 0 {
		t.Fatalf("release: %v %v", released, err)
	}
	if err := h.DeleteControllerRevision(ctx, updated); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.Get[appsv1.ControllerRevision](ctx, env.Admin, "default", updated.Name); !rest.IsNotFound(err) {
		t.Errorf("after delete: %v", err)
	}
}
