package rest_test

import (
	"context"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/storage"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/clienttest"
)

func pod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}

func mustNamespace(t *testing.T, ctx context.Context, c *rest.Client, name string) {
	t.Helper()
	if _, err := rest.Create(ctx, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
}

func TestResourcePath(t *testing.T) {
	for _, tc := range []struct {
		group, version, resource string
		ns, name, sub            string
		want                     string
	}{
		{"", "v1", "pods", "default", "web", "binding", "/api/v1/namespaces/default/pods/web/binding"},
		{"", "v1", "pods", "", "", "", "/api/v1/pods"},
		{"", "v1", "nodes", "ignored", "node-1", "status", "/api/v1/nodes/node-1/status"},
		{"coordination.k8s.io", "v1", "leases", "kube-system", "kube-scheduler", "", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler"},
	} {
		r := scheme.Lookup(tc.group, tc.version, tc.resource)
		if got := rest.ResourcePath(r, tc.ns, tc.name, tc.sub); got != tc.want {
			t.Errorf("ResourcePath(%s, %q, %q, %q) = %q, want %q", tc.resource, tc.ns, tc.name, tc.sub, got, tc.want)
		}
	}
	if r, err := rest.ResourceFor[coordinationv1.Lease](); err != nil || r.Resource != "leases" {
		t.Errorf("ResourceFor[Lease] = %v, %v", r, err)
	}
	if _, err := rest.ResourceFor[corev1.PodSpec](); err == nil {
		t.Error("ResourceFor[PodSpec] found a resource")
	}
}

func TestCRUD(t *testing.T) {
	env := clienttest.Start(t, nil)
	ctx := t.Context()
	c := env.Client(t, pki.Admin)
	mustNamespace(t, ctx, c, "crud")

	created, err := rest.Create(ctx, c, pod("crud", "web"))
	if err != nil {
		t.Fatal(err)
	}
	if created.UID == "" || created.ResourceVersion == "" || created.Status.Phase != corev1.PodPending {
		t.Fatalf("created pod: uid %q rv %q phase %q", created.UID, created.ResourceVersion, created.Status.Phase)
	}
	if _, err := rest.Create(ctx, c, pod("crud", "web")); !rest.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}

	got, err := rest.Get[corev1.Pod](ctx, c, "crud", "web")
	if err != nil || got.UID != created.UID {
		t.Fatalf("get: %v %v", got, err)
	}
	if _, err := rest.Get[corev1.Pod](ctx, c, "crud", "nope"); !rest.IsNotFound(err) {
		t.Fatalf("get missing: %v, want NotFound", err)
	} else if st := err.(*rest.StatusError).Status(); st.Code != 404 || st.Message != `pods "nope" not found` {
		t.Fatalf("get missing: status %+v", st)
	}

	// Update with the current resourceVersion works; with a stale one it conflicts.
	got.Labels["tier"] = "front"
	updated, err := rest.Update(ctx, c, got)
	if err != nil {
		t.Fatal(err)
	}
	got.Labels["tier"] = "back"
	if _, err := rest.Update(ctx, c, got); !rest.IsConflict(err) {
		t.Fatalf("stale update: %v, want Conflict", err)
	}

	// The status subresource changes only the status.
	updated.Status.Phase = corev1.PodRunning
	updated.Spec.Containers[0].Image = "ignored"
	st, err := rest.UpdateStatus(ctx, c, updated)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status.Phase != corev1.PodRunning || st.Spec.Containers[0].Image != "nginx" {
		t.Fatalf("after UpdateStatus: phase %q image %q", st.Status.Phase, st.Spec.Containers[0].Image)
	}

	// Merge and strategic merge patches.
	p, err := rest.Patch[corev1.Pod](ctx, c, "crud", "web", rest.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"merge"}}}`), "")
	if err != nil || p.Labels["patched"] != "merge" || p.Labels["app"] != "web" {
		t.Fatalf("merge patch: %v %v", p, err)
	}
	p, err = rest.Patch[corev1.Pod](ctx, c, "crud", "web", rest.StrategicMergePatchType,
		[]byte(`{"status":{"conditions":[{"type":"Ready","status":"True"}]}}`), "status")
	if err != nil || len(p.Status.Conditions) != 1 {
		t.Fatalf("strategic patch of status: %v %v", p, err)
	}

	// List, with a label selector.
	if _, err := rest.Create(ctx, c, pod("crud", "other")); err != nil {
		t.Fatal(err)
	}
	l, err := rest.List[corev1.Pod](ctx, c, "crud", rest.ListOptions{LabelSelector: "patched=merge"})
	if err != nil || len(l.Items) != 1 || l.Items[0].Name != "web" || l.ResourceVersion == "" {
		t.Fatalf("list: %+v %v", l, err)
	}

	// Delete with a failing precondition, then for real.
	wrong := "wrong-uid"
	err = rest.Delete[corev1.Pod](ctx, c, "crud", "web", &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrong}})
	if !rest.IsConflict(err) {
		t.Fatalf("delete with wrong uid: %v, want Conflict", err)
	}
	zero := int64(0)
	if err := rest.Delete[corev1.Pod](ctx, c, "crud", "web", &metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.Get[corev1.Pod](ctx, c, "crud", "web"); !rest.IsNotFound(err) {
		t.Fatalf("after delete: %v", err)
	}
}

// The scheduler's identity may bind pods and read nodes, and nothing else.
func TestSchedulerIdentity(t *testing.T) {
	env := clienttest.Start(t, nil)
	ctx := t.Context()
	admin := env.Client(t, pki.Admin)
	sched := env.Client(t, pki.Scheduler)
	mustNamespace(t, ctx, admin, "s")
	if _, err := rest.Create(ctx, admin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.Create(ctx, admin, pod("s", "web")); err != nil {
		t.Fatal(err)
	}

	if _, err := rest.List[corev1.Node](ctx, sched, "", rest.ListOptions{}); err != nil {
		t.Fatalf("scheduler lists nodes: %v", err)
	}
	if _, err := rest.Create(ctx, sched, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}}); !rest.IsForbidden(err) {
		t.Fatalf("scheduler creates a namespace: %v, want Forbidden", err)
	}

	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "web"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
	var st metav1.Status
	if err := rest.CreateSubresource[corev1.Pod](ctx, sched, "s", "web", "binding", b, &st); err != nil {
		t.Fatal(err)
	}
	if st.Status != metav1.StatusSuccess {
		t.Fatalf("binding answered %+v", st)
	}
	p, err := rest.Get[corev1.Pod](ctx, sched, "s", "web")
	if err != nil || p.Spec.NodeName != "node-1" {
		t.Fatalf("bound pod: %v %v", p, err)
	}
	err = rest.CreateSubresource[corev1.Pod](ctx, sched, "s", "web", "binding", b, nil)
	if !rest.IsConflict(err) {
		t.Fatalf("second binding: %v, want Conflict", err)
	}
}

func TestWatch(t *testing.T) {
	env := clienttest.Start(t, nil)
	ctx := t.Context()
	c := env.Client(t, pki.Admin)
	mustNamespace(t, ctx, c, "w")
	if _, err := rest.Create(ctx, c, pod("w", "a")); err != nil {
		t.Fatal(err)
	}
	l, err := rest.List[corev1.Pod](ctx, c, "w", rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := rest.Watch[corev1.Pod](ctx, c, "w", rest.ListOptions{ResourceVersion: l.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	b, err := rest.Create(ctx, c, pod("w", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.Patch[corev1.Pod](ctx, c, "w", "b", rest.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), ""); err != nil {
		t.Fatal(err)
	}
	zero := int64(0)
	if err := rest.Delete[corev1.Pod](ctx, c, "w", "a", &metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	want := []struct{ typ, name string }{{metav1.Added, "b"}, {metav1.Modified, "b"}, {metav1.Deleted, "a"}}
	for _, wt := range want {
		ev := next(t, w)
		if ev.Type != wt.typ || ev.Object.Name != wt.name {
			t.Fatalf("got %s %v, want %s %s", ev.Type, ev.Object, wt.typ, wt.name)
		}
		if ev.Type == metav1.Added && ev.Object.UID != b.UID {
			t.Fatalf("ADDED object has uid %q, want %q", ev.Object.UID, b.UID)
		}
	}
	w.Stop()
	if _, ok := <-w.ResultChan(); ok {
		t.Fatal("event after Stop")
	}

	// A streaming list: ADDED for what exists, then a bookmark marking its end.
	yes := true
	w, err = rest.Watch[corev1.Pod](ctx, c, "w", rest.ListOptions{SendInitialEvents: &yes,
		ResourceVersionMatch: "NotOlderThan", AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev := next(t, w); ev.Type != metav1.Added || ev.Object.Name != "b" {
		t.Fatalf("initial event %s %v", ev.Type, ev.Object)
	}
	ev := next(t, w)
	if ev.Type != metav1.Bookmark || ev.Object.Annotations[metav1.InitialEventsAnnotationKey] != "true" || ev.Object.ResourceVersion == "" {
		t.Fatalf("want the initial-events-end bookmark, got %s %+v", ev.Type, ev.Object)
	}
}

// A watch from a resourceVersion older than the history the store keeps
// ends with an ERROR event that is a 410 Gone.
func TestWatchGone(t *testing.T) {
	env := clienttest.Start(t, storage.NewMemory(5))
	ctx := t.Context()
	c := env.Client(t, pki.Admin)
	mustNamespace(t, ctx, c, "g")
	l, err := rest.List[corev1.Pod](ctx, c, "g", rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		if _, err := rest.Create(ctx, c, pod("g", n)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := rest.Watch[corev1.Pod](ctx, c, "g", rest.ListOptions{ResourceVersion: l.ResourceVersion})
	if err != nil {
		if rest.IsGone(err) {
			return // some servers answer 410 right away
		}
		t.Fatal(err)
	}
	defer w.Stop()
	ev := next(t, w)
	if ev.Type != metav1.Error || !rest.IsGone(ev.Err) {
		t.Fatalf("got %s %v, want ERROR 410 Gone", ev.Type, ev.Err)
	}
	if _, ok := <-w.ResultChan(); ok {
		t.Fatal("the watch goes on after 410")
	}
}

func next[T any](t *testing.T, w *rest.Watcher[T]) rest.Event[T] {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event in 10s")
	}
	panic("unreachable")
}
