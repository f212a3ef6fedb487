package namespace

import (
	"context"
	"errors"
	"slices"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/controllertest"
)

// start runs the controller, without the 5 s grace period, until the test ends.
func start(t *testing.T, env *controllertest.Env) *NamespaceController {
	t.Helper()
	nm, err := NewNamespaceController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	nm.gracetime = 0
	env.Start(t)
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { nm.Run(ctx, 2); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return nm
}

func mustCreate[T any, PT rest.Object[T]](t *testing.T, env *controllertest.Env, obj *T) *T {
	t.Helper()
	out, err := rest.Create[T, PT](env.Ctx, env.Admin, obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func condition(ns *corev1.Namespace, t corev1.NamespaceConditionType) *corev1.NamespaceCondition {
	return getCondition(ns.Status.Conditions, t)
}

// A namespace with content: everything deletable goes, what waits for a
// finalizer is reported in the conditions, and the namespace goes once that
// is gone too.
func TestNamespaceDeletion(t *testing.T) {
	env := controllertest.New(t)
	mustCreate(t, env, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}})
	mustCreate(t, env, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "x", Name: "a"}})
	mustCreate(t, env, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "x", Name: "s"}})
	mustCreate(t, env, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "x", Name: "sa"}})
	mustCreate(t, env, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "x", Name: "held", Finalizers: []string{"example.com/hold"}}})
	mustCreate(t, env, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "elsewhere"}})
	start(t, env)

	if err := rest.Delete[corev1.Namespace](env.Ctx, env.Admin, "", "x", nil); err != nil {
		t.Fatal(err)
	}
	var ns *corev1.Namespace
	controllertest.Eventually(t, "conditions report the held ConfigMap", func() bool {
		var err error
		ns, err = rest.Get[corev1.Namespace](env.Ctx, env.Admin, "", "x")
		if err != nil {
			t.Fatal(err)
		}
		c := condition(ns, corev1.NamespaceFinalizersRemaining)
		return c != nil && c.Status == corev1.ConditionTrue
	})
	if ns.Status.Phase != corev1.NamespaceTerminating {
		t.Errorf("phase %q, want Terminating", ns.Status.Phase)
	}
	want := map[corev1.NamespaceConditionType][3]string{
		corev1.NamespaceDeletionDiscoveryFailure: {"False", "ResourcesDiscovered", "All resources successfully discovered"},
		corev1.NamespaceDeletionGVParsingFailure: {"False", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
		corev1.NamespaceDeletionContentFailure:   {"False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
		corev1.NamespaceContentRemaining:         {"True", "SomeResourcesRemain", "Some resources are remaining: configmaps. has 1 resource instances"},
		corev1.NamespaceFinalizersRemaining:      {"True", "SomeFinalizerRemain", "Some finalizers are remaining: example.com/hold in 1 resource instances"},
	}
	for typ, w := range want {
		c := condition(ns, typ)
		if c == nil || string(c.Status) != w[0] || c.Reason != w[1] || c.Message != w[2] {
			t.Errorf("condition %s = %+v, want %v", typ, c, w)
		}
	}
	for _, gone := range []error{
		getErr[corev1.ConfigMap](env, "x", "a"), getErr[corev1.Secret](env, "x", "s"), getErr[corev1.ServiceAccount](env, "x", "sa"),
	} {
		if !rest.IsNotFound(gone) {
			t.Errorf("content left in the namespace: %v", gone)
		}
	}
	if err := getErr[corev1.ConfigMap](env, "default", "elsewhere"); err != nil {
		t.Errorf("another namespace's content: %v", err)
	}

	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		t.Fatalf("namespace finalized while content remains: %+v", ns)
	}
	// Release the held ConfigMap: the namespace is finalized and deleted.
	if _, err := rest.Patch[corev1.ConfigMap](env.Ctx, env.Admin, "x", "held", rest.MergePatchType,
		[]byte(`{"metadata":{"finalizers":null}}`), ""); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "namespace deleted", func() bool {
		return rest.IsNotFound(getErr[corev1.Namespace](env, "", "x"))
	})
}

func getErr[T any, PT rest.Object[T]](env *controllertest.Env, ns, name string) error {
	_, err := rest.Get[T, PT](env.Ctx, env.Admin, ns, name)
	return err
}

// Discovery failing for a group: what was found is deleted, the condition
// says what failed, and the namespace is not finalized (its content may be
// in the group that could not be listed).
func TestDiscoveryFailure(t *testing.T) {
	env := controllertest.New(t)
	mustCreate(t, env, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "y"}})
	mustCreate(t, env, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "y", Name: "a"}})
	nm := start(t, env)
	real := nm.deleter.discoverResourcesFn
	nm.deleter.discoverResourcesFn = func(ctx context.Context) ([]*scheme.Resource, error) {
		rs, _ := real(ctx)
		return rs, &controller.ErrGroupDiscoveryFailed{Groups: map[string]error{"metrics.k8s.io/v1beta1": errors.New("the server is currently unable to handle the request")}}
	}
	if err := rest.Delete[corev1.Namespace](env.Ctx, env.Admin, "", "y", nil); err != nil {
		t.Fatal(err)
	}
	want := "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request"
	controllertest.Eventually(t, "NamespaceDeletionDiscoveryFailure", func() bool {
		ns, err := rest.Get[corev1.Namespace](env.Ctx, env.Admin, "", "y")
		if err != nil {
			t.Fatal(err)
		}
		c := condition(ns, corev1.NamespaceDeletionDiscoveryFailure)
		return c != nil && c.Status == corev1.ConditionTrue && c.Reason == "DiscoveryFailed" && c.Message == want
	})
	if err := getErr[corev1.ConfigMap](env, "y", "a"); !rest.IsNotFound(err) {
		t.Errorf("the discovered content should be deleted: %v", err)
	}
	ns, _ := rest.Get[corev1.Namespace](env.Ctx, env.Admin, "", "y")
	if ns == nil || len(ns.Spec.Finalizers) != 1 {
		t.Errorf("namespace finalized despite the discovery failure: %+v", ns)
	}
}

func TestUpdateConditionsKeepsTransitionTime(t *testing.T) {
	var status corev1.NamespaceStatus
	if !updateConditions(&status, nil) || len(status.Conditions) != 5 {
		t.Fatalf("first update: %+v", status.Conditions)
	}
	before := status.Conditions[0].LastTransitionTime
	if updateConditions(&status, nil) {
		t.Error("the same conditions again reported a change")
	}
	if status.Conditions[0].LastTransitionTime != before {
		t.Error("lastTransitionTime moved without a transition")
	}
}

// TestSyncActions: a namespace not being deleted is left alone; a deleted
// one has every namespaced resource deleted by collection, once, its
// conditions written once, and the kubernetes finalizer removed through
// the finalize subresource (what upstream's
// testSyncNamespaceThatIsTerminating checks with a fake clientset).
func TestSyncActions(t *testing.T) {
	env := controllertest.New(t)
	mustCreate(t, env, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "z"}})
	mustCreate(t, env, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "z", Name: "a"}})
	nm, err := NewNamespaceController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	controllertest.Eventually(t, "z in the cache", func() bool { _, ok := nm.informer.GetStore().Get("", "z"); return ok })
	env.ClearActions()
	if err := nm.syncNamespaceFromKey(env.Ctx, "z"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t)

	if err := rest.Delete[corev1.Namespace](env.Ctx, env.Admin, "", "z", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "z terminating in the cache", func() bool {
		ns, ok := nm.informer.GetStore().Get("", "z")
		return ok && ns.DeletionTimestamp != nil
	})
	resources, err := nm.deleter.discoverResourcesFn(env.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"update namespaces/status z", "update namespaces/finalize z"}
	for _, r := range controller.SupportsAllVerbs(resources, "delete") {
		want = append(want, "deletecollection "+r.Resource+" z")
	}
	env.ClearActions()
	if err := nm.syncNamespaceFromKey(env.Ctx, "z"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t, want...)
	if err := getErr[corev1.Namespace](env, "", "z"); !rest.IsNotFound(err) {
		t.Errorf("namespace z after the sync: %v, want it gone", err)
	}
}
