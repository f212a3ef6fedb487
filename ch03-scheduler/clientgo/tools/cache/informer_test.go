package cache_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/storage"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/internal/clienttest"
	"kubik/internal/testenv"
)

// recorder is a handler that turns calls into lines: "add ns/a", "update ns/b", "delete ns/c".
type recorder chan string

func (r recorder) OnAdd(p *corev1.Pod, initial bool) {
	if initial {
		r <- "initial " + cache.MetaNamespaceKeyFunc(p)
	} else {
		r <- "add " + cache.MetaNamespaceKeyFunc(p)
	}
}
func (r recorder) OnUpdate(_, p *corev1.Pod) { r <- "update " + cache.MetaNamespaceKeyFunc(p) }
func (r recorder) OnDelete(p *corev1.Pod)    { r <- "delete " + cache.MetaNamespaceKeyFunc(p) }

// expect reads len(want) lines and compares them ignoring order.
func (r recorder) expect(t *testing.T, want ...string) {
	t.Helper()
	var got []string
	for range want {
		select {
		case s := <-r:
			got = append(got, s)
		case <-time.After(10 * time.Second):
			t.Fatalf("got %q, then nothing for 10s; want %q", got, want)
		}
	}
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

// expectNothingBefore asserts that no event is pending: it creates a
// witness pod and the very next event must be the witness's (events reach
// a handler in order, so an unwanted one would come first).
func (r recorder) expectNothingBefore(t *testing.T, ctx context.Context, admin *rest.Client, witness string) {
	t.Helper()
	if _, err := rest.Create(ctx, admin, pod("ns", witness)); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-r:
		if s != "add ns/"+witness {
			t.Fatalf("unexpected event %q before the witness's", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no event for the witness %s in 10s", witness)
	}
}

func pod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}

func byNodeName(p *corev1.Pod) []string { return []string{p.Spec.NodeName} }

func setup(t *testing.T, store storage.Interface, pods ...string) (admin, sched *rest.Client) {
	t.Helper()
	env := clienttest.Start(t, store)
	admin, sched = env.Client(t, pki.Admin), env.Client(t, pki.Scheduler)
	ctx := t.Context()
	if _, err := rest.Create(ctx, admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}); err != nil {
		t.Fatal(err)
	}
	for _, n := range pods {
		if _, err := rest.Create(ctx, admin, pod("ns", n)); err != nil {
			t.Fatal(err)
		}
	}
	return admin, sched
}

func TestInformer(t *testing.T) {
	admin, sched := setup(t, nil, "a", "b")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	inf := cache.New[corev1.Pod](sched, cache.Options{PageSize: 1}) // pages of one: the list follows continue tokens
	inf.AddIndexers(cache.Indexers[corev1.Pod]{"spec.nodeName": byNodeName})
	rec := make(recorder, 100)
	reg := inf.AddEventHandler(rec)
	go inf.Run(ctx)
	if !cache.WaitForCacheSync(ctx, inf.HasSynced, reg.HasSynced) {
		t.Fatal("not synced")
	}
	rec.expect(t, "initial ns/a", "initial ns/b")
	if got := inf.GetStore().ListKeys(); !slices.Equal(got, []string{"ns/a", "ns/b"}) {
		t.Fatalf("cache keys %q", got)
	}

	// Changes arrive through the watch.
	if _, err := rest.Create(ctx, admin, pod("ns", "c")); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, "add ns/c")
	if _, err := rest.Create(ctx, admin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}); err != nil {
		t.Fatal(err)
	}
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
	if err := rest.CreateSubresource[corev1.Pod](ctx, sched, "ns", "a", "binding", b, nil); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, "update ns/a")
	on := inf.GetStore().ByIndex("spec.nodeName", "node-1")
	if len(on) != 1 || on[0].Name != "a" {
		t.Fatalf("pods on node-1: %v", on)
	}
	if unbound := inf.GetStore().ByIndex("spec.nodeName", ""); len(unbound) != 2 {
		t.Fatalf("%d unbound pods, want 2", len(unbound))
	}
	zero := int64(0)
	if err := rest.Delete[corev1.Pod](ctx, admin, "ns", "b", &metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, "delete ns/b")
	if _, ok := inf.GetStore().Get("ns", "b"); ok {
		t.Fatal("deleted pod still cached")
	}

	// A handler added late gets the cache first.
	late := make(recorder, 100)
	lateReg := inf.AddEventHandler(late)
	late.expect(t, "initial ns/a", "initial ns/c")
	if !cache.WaitForCacheSync(ctx, lateReg.HasSynced) {
		t.Fatal("late handler not synced")
	}
	if _, err := rest.Create(ctx, admin, pod("ns", "d")); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, "add ns/d")
	late.expect(t, "add ns/d")
	rec.expectNothingBefore(t, ctx, admin, "witness")
}

// When the watch cannot resume because the apiserver's history no longer
// reaches back to the informer's resourceVersion (410), the informer lists
// again and reports the difference.
func TestInformerRelistAfterGone(t *testing.T) {
	admin, sched := setup(t, storage.NewMemory(5), "a", "b", "c")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	logs := &testenv.SyncBuffer{}
	inf := cache.New[corev1.Pod](sched, cache.Options{Namespace: "ns", Logger: slog.New(slog.NewTextHandler(logs, nil))})
	rec := make(recorder, 100)
	inf.AddEventHandler(rec)
	// Hold back the first watch while the cluster changes more than the
	// apiserver's history (5 revisions) can tell.
	release := make(chan struct{})
	watches := make(chan struct{}, 10)
	first := true
	cache.SetBeforeWatch(inf, func() {
		watches <- struct{}{}
		if first {
			first = false
			<-release
		}
	})
	go inf.Run(ctx)
	rec.expect(t, "initial ns/a", "initial ns/b", "initial ns/c")
	<-watches
	listedAt := inf.LastSyncResourceVersion()

	zero := int64(0)
	if err := rest.Delete[corev1.Pod](ctx, admin, "ns", "a", &metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.Patch[corev1.Pod](ctx, admin, "ns", "b", rest.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.Create(ctx, admin, pod("ns", "d")); err != nil {
		t.Fatal(err)
	}
	for i := range 6 { // other writes push the changes above out of the history
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprint("cm-", i)}}
		if _, err := rest.Create(ctx, admin, cm); err != nil {
			t.Fatal(err)
		}
	}
	close(release)

	// The watch from listedAt gets 410; the relist finds the difference.
	rec.expect(t, "delete ns/a", "update ns/b", "add ns/d")
	<-watches // the watch after the relist
	if !strings.Contains(logs.String(), "watch history expired; listing again") {
		t.Fatalf("no relist logged:\n%s", logs)
	}
	if rv := inf.LastSyncResourceVersion(); rv == listedAt {
		t.Fatalf("resourceVersion still %s after the relist", rv)
	}
	if got := inf.GetStore().ListKeys(); !slices.Equal(got, []string{"ns/b", "ns/c", "ns/d"}) {
		t.Fatalf("cache keys %q", got)
	}
	if b, _ := inf.GetStore().Get("ns", "b"); b.Labels["x"] != "y" {
		t.Fatalf("cached b has labels %v", b.Labels)
	}
	// And it watches again.
	if _, err := rest.Create(ctx, admin, pod("ns", "e")); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, "add ns/e")
	rec.expectNothingBefore(t, ctx, admin, "witness")
}

func TestFilteringHandler(t *testing.T) {
	unassigned := func(p *corev1.Pod) bool { return p.Spec.NodeName == "" }
	rec := make(recorder, 10)
	h := cache.FilteringResourceEventHandler[corev1.Pod]{FilterFunc: unassigned, Handler: rec}
	a, bound := pod("ns", "a"), pod("ns", "a")
	bound.Spec.NodeName = "node-1"
	h.OnAdd(a, false)
	h.OnAdd(bound, false)
	h.OnUpdate(a, a)
	h.OnUpdate(a, bound) // assigned: leaves the filtered set
	h.OnUpdate(bound, a) // and comes back
	h.OnDelete(bound)
	h.OnDelete(a)
	close(rec)
	var got []string
	for s := range rec {
		got = append(got, s)
	}
	want := []string{"add ns/a", "update ns/a", "delete ns/a", "add ns/a", "delete ns/a"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestSplitMetaNamespaceKey(t *testing.T) {
	for key, want := range map[string][2]string{"ns/a": {"ns", "a"}, "node-1": {"", "node-1"}} {
		ns, name := cache.SplitMetaNamespaceKey(key)
		if ns != want[0] || name != want[1] {
			t.Errorf("SplitMetaNamespaceKey(%q) = %q, %q", key, ns, name)
		}
	}
}
