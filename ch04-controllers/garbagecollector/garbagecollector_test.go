package garbagecollector

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/app"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/controllertest"
)

// The fixtures are ConfigMaps owning ConfigMaps and Secrets: no other
// controller touches them, so what happens to them is the collector's doing.
// The apiserver runs with EnableGarbageCollector, as in chapter 4: a DELETE
// with propagationPolicy Orphan or Foreground adds the finalizer the
// collector then removes. The tests give the owner the finalizer at creation
// instead, which the apiserver treats the same way (a plain DELETE only
// marks such an owner), and which keeps the fixtures readable.

// newEnv is controllertest.New on an apiserver with the garbage collector
// enabled.
func newEnv(t *testing.T) *controllertest.Env {
	t.Helper()
	return controllertest.NewWithOptions(t, func(o *app.Options) { o.EnableGarbageCollector = true })
}

type fakeRecorder struct {
	mu     sync.Mutex
	events []string
}

func (f *fakeRecorder) Eventf(_ corev1.ObjectReference, eventType, reason, format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, eventType+" "+reason+" "+fmt.Sprintf(format, args...))
}

// startGC runs a collector (built as NewGarbageCollector builds it, with a
// fake recorder) against env until the test ends.
func startGC(t *testing.T, env *controllertest.Env) (*GarbageCollector, *fakeRecorder) {
	t.Helper()
	return startGCWithSyncPeriod(t, env, SyncPeriod)
}

// startGCWithSyncPeriod is startGC with discovery read again every period.
func startGCWithSyncPeriod(t *testing.T, env *controllertest.Env, period time.Duration) (*GarbageCollector, *fakeRecorder) {
	t.Helper()
	resources, err := controller.ServerPreferredResources(env.Ctx, env.CC.Client)
	if err != nil {
		t.Fatal(err)
	}
	rec := &fakeRecorder{}
	gc := newGarbageCollector(env.CC.Client, resources, nil, rec, slog.New(slog.DiscardHandler))
	gc.syncPeriod = period
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { gc.Run(ctx, 2); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	controllertest.Eventually(t, "monitors synced", gc.gb.IsSynced)
	return gc, rec
}

func ownerRef(cm *corev1.ConfigMap, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID, BlockOwnerDeletion: &block}
}

func createCM(t *testing.T, env *controllertest.Env, name string, finalizers []string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	t.Helper()
	cm, err := rest.Create(env.Ctx, env.Admin, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
		Finalizers: finalizers, OwnerReferences: owners}})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func gone(env *controllertest.Env, name string) func() bool {
	return func() bool {
		_, err := rest.Get[corev1.ConfigMap](env.Ctx, env.Admin, "default", name)
		return rest.IsNotFound(err)
	}
}

func get(t *testing.T, env *controllertest.Env, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := rest.Get[corev1.ConfigMap](env.Ctx, env.Admin, "default", name)
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func deleteCM(t *testing.T, env *controllertest.Env, name string) {
	t.Helper()
	if err := rest.Delete[corev1.ConfigMap](env.Ctx, env.Admin, "default", name, nil); err != nil {
		t.Fatal(err)
	}
}

// Background: the owner goes at once; its dependents, and theirs, follow.
func TestBackgroundDeletion(t *testing.T) {
	env := newEnv(t)
	startGC(t, env)
	owner := createCM(t, env, "owner", nil)
	child := createCM(t, env, "child", nil, ownerRef(owner, false))
	createCM(t, env, "grandchild", nil, ownerRef(child, false))
	createCM(t, env, "bystander", nil)

	deleteCM(t, env, "owner")
	controllertest.Eventually(t, "child collected", gone(env, "child"))
	controllertest.Eventually(t, "grandchild collected", gone(env, "grandchild"))
	get(t, env, "bystander") // an object without owners is never touched
	// One DELETE each, nothing else.
	env.ExpectWrites(t, "delete configmaps default/child", "delete configmaps default/grandchild")
}

// An object whose owner was deleted before the collector started (or never
// existed) is collected once the collector has checked, by a live GET, that
// the owner is gone; one whose owner exists is kept, and only its dangling
// reference is removed.
func TestDanglingOwnersAtStart(t *testing.T) {
	env := newEnv(t)
	alive := createCM(t, env, "alive", nil)
	ghost := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: "00000000-0000-0000-0000-000000000001"}
	createCM(t, env, "orphaned", nil, ghost)
	createCM(t, env, "half", nil, ghost, ownerRef(alive, false))
	startGC(t, env)

	controllertest.Eventually(t, "dependent of a missing owner collected", gone(env, "orphaned"))
	controllertest.Eventually(t, "dangling reference removed", func() bool {
		return len(get(t, env, "half").OwnerReferences) == 1
	})
	if refs := get(t, env, "half").OwnerReferences; refs[0].UID != alive.UID {
		t.Errorf("the reference kept is %+v, want the one to %q", refs[0], alive.UID)
	}
	// The collected one deleted, the kept one patched (its dangling
	// reference removed): nothing else.
	env.ExpectWrites(t, "delete configmaps default/orphaned", "patch configmaps default/half")
}

// Orphan: the owner is held by the orphan finalizer while the collector
// removes its references from the dependents, then the finalizer.
func TestOrphanDeletion(t *testing.T) {
	env := newEnv(t)
	startGC(t, env)
	owner := createCM(t, env, "owner", []string{metav1.FinalizerOrphanDependents})
	other := createCM(t, env, "other-owner", nil)
	createCM(t, env, "child", nil, ownerRef(owner, true), ownerRef(other, false))
	createCM(t, env, "child2", nil, ownerRef(owner, false))

	deleteCM(t, env, "owner")
	controllertest.Eventually(t, "owner deleted once orphaning is done", gone(env, "owner"))
	c := get(t, env, "child")
	if len(c.OwnerReferences) != 1 || c.OwnerReferences[0].UID != other.UID {
		t.Errorf("child's ownerReferences = %+v, want only the one to other-owner", c.OwnerReferences)
	}
	if c2 := get(t, env, "child2"); len(c2.OwnerReferences) != 0 {
		t.Errorf("child2's ownerReferences = %+v, want none", c2.OwnerReferences)
	}
	// A patch per dependent, then the owner's finalizer off; nothing deleted.
	env.ExpectWrites(t, "patch configmaps default/child", "patch configmaps default/child2", "patch configmaps default/owner")
}

// Foreground: the owner waits, marked, with the foregroundDeletion
// finalizer, until its blocking dependents are deleted; a dependent with
// dependents of its own is deleted in the foreground too.
func TestForegroundDeletion(t *testing.T) {
	env := newEnv(t)
	startGC(t, env)
	owner := createCM(t, env, "owner", []string{metav1.FinalizerDeleteDependents})
	child := createCM(t, env, "child", nil, ownerRef(owner, true))
	// The grandchild has a finalizer of its own: it holds the chain until
	// the test removes it.
	createCM(t, env, "grandchild", []string{"example.com/hold"}, ownerRef(child, true))

	deleteCM(t, env, "owner")
	controllertest.Eventually(t, "child deleted in the foreground", func() bool {
		c := get(t, env, "child")
		return c.DeletionTimestamp != nil && slices.Contains(c.Finalizers, metav1.FinalizerDeleteDependents)
	})
	controllertest.Eventually(t, "grandchild being deleted", func() bool { return get(t, env, "grandchild").DeletionTimestamp != nil })
	o := get(t, env, "owner")
	if o.DeletionTimestamp == nil || !slices.Contains(o.Finalizers, metav1.FinalizerDeleteDependents) {
		t.Fatalf("owner while its dependents remain: deletionTimestamp %v finalizers %v; want it marked and waiting", o.DeletionTimestamp, o.Finalizers)
	}

	// Release the grandchild: the whole chain goes, bottom up.
	if _, err := rest.Patch[corev1.ConfigMap](env.Ctx, env.Admin, "default", "grandchild", rest.MergePatchType,
		[]byte(`{"metadata":{"finalizers":null}}`), ""); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "grandchild gone", gone(env, "grandchild"))
	controllertest.Eventually(t, "child gone", gone(env, "child"))
	controllertest.Eventually(t, "owner gone", gone(env, "owner"))
}

// A dependent naming an owner that lives in another namespace: ownerReferences
// cannot cross namespaces, so it is collected, with upstream's warning.
func TestOwnerRefInvalidNamespace(t *testing.T) {
	env := newEnv(t)
	other, err := rest.Create(env.Ctx, env.Admin, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-public", Name: "owner"}})
	if err != nil {
		t.Fatal(err)
	}
	_, rec := startGC(t, env)
	createCM(t, env, "cross", nil, metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: other.UID})
	controllertest.Eventually(t, "cross-namespace dependent collected", gone(env, "cross"))
	want := fmt.Sprintf(`Warning OwnerRefInvalidNamespace ownerRef [v1/ConfigMap, namespace: default, name: owner, uid: %s] does not exist in namespace "default"`, other.UID)
	controllertest.Eventually(t, "OwnerRefInvalidNamespace event", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return slices.Contains(rec.events, want)
	})
	env.ExpectWrites(t, "delete configmaps default/cross") // the owner in kube-public untouched
}

func TestGetDeletableResources(t *testing.T) {
	env := newEnv(t)
	resources, err := controller.ServerPreferredResources(env.Ctx, env.CC.Client)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range GetDeletableResources(resources) {
		names = append(names, r.GroupResource())
	}
	for _, want := range []string{"pods", "replicasets.apps", "deployments.apps", "daemonsets.apps", "statefulsets.apps",
		"jobs.batch", "cronjobs.batch", "endpointslices.discovery.k8s.io", "configmaps", "secrets", "services", "serviceaccounts"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not monitored; monitored: %s", want, strings.Join(names, " "))
		}
	}
	for _, not := range []string{"events", "events.events.k8s.io", "tokenreviews.authentication.k8s.io"} {
		if slices.Contains(names, not) {
			t.Errorf("%s is monitored; it should not be", not)
		}
	}
}

func TestReferencesDiffs(t *testing.T) {
	yes, no := true, false
	a := metav1.OwnerReference{UID: "a", Name: "a"}
	b := metav1.OwnerReference{UID: "b", Name: "b", BlockOwnerDeletion: &yes}
	b2 := metav1.OwnerReference{UID: "b", Name: "b", BlockOwnerDeletion: &no}
	c := metav1.OwnerReference{UID: "c", Name: "c"}
	added, removed, changed := referencesDiffs([]metav1.OwnerReference{a, b}, []metav1.OwnerReference{b2, c})
	if len(added) != 1 || added[0].UID != "c" || len(removed) != 1 || removed[0].UID != "a" ||
		len(changed) != 1 || *changed[0].oldRef.BlockOwnerDeletion != true || *changed[0].newRef.BlockOwnerDeletion != false {
		t.Errorf("added %v removed %v changed %v", added, removed, changed)
	}
}

func TestPatches(t *testing.T) {
	got := string(deleteOwnerRefStrategicMergePatch("dep", "o1", "o2"))
	want := `{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"o1"},{"$patch":"delete","uid":"o2"}],"uid":"dep"}}`
	if got != want {
		t.Errorf("delete patch\n got %s\nwant %s", got, want)
	}
	yes := true
	got = string(unblockOwnerReferencesStrategicMergePatch("dep", []metav1.OwnerReference{{UID: "o1", BlockOwnerDeletion: &yes}, {UID: "o2"}}))
	want = `{"metadata":{"ownerReferences":[{"blockOwnerDeletion":false,"uid":"o1"}],"uid":"dep"}}`
	if got != want {
		t.Errorf("unblock patch\n got %s\nwant %s", got, want)
	}
}

// The same through DELETE's propagationPolicy, as kubectl --cascade sends it:
// the apiserver adds the finalizer, the collector does the rest.
func TestPropagationPolicies(t *testing.T) {
	env := newEnv(t)
	startGC(t, env)
	for _, tc := range []struct {
		policy   string
		keepsDep bool
	}{{metav1.DeletePropagationOrphan, true}, {metav1.DeletePropagationForeground, false}, {metav1.DeletePropagationBackground, false}} {
		owner := createCM(t, env, "owner-"+strings.ToLower(tc.policy), nil)
		dep := "dep-" + strings.ToLower(tc.policy)
		createCM(t, env, dep, nil, ownerRef(owner, true))
		policy := tc.policy
		if err := rest.Delete[corev1.ConfigMap](env.Ctx, env.Admin, "default", owner.Name, &metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
			t.Fatal(err)
		}
		controllertest.Eventually(t, tc.policy+": owner gone", gone(env, owner.Name))
		if tc.keepsDep {
			if d := get(t, env, dep); len(d.OwnerReferences) != 0 {
				t.Errorf("%s: dependent's ownerReferences = %+v, want none", tc.policy, d.OwnerReferences)
			}
		} else {
			controllertest.Eventually(t, tc.policy+": dependent gone", gone(env, dep))
		}
	}
}
