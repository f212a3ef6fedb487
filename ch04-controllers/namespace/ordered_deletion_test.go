package namespace

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

// TestPodsDeletedFirst: while a pod of the namespace remains (here held by
// a finalizer), nothing else is deleted; once it is gone the rest goes.
// Upstream: OrderedNamespaceDeletion (on since 1.33, GA in 1.34).
func TestPodsDeletedFirst(t *testing.T) {
	env := controllertest.New(t)
	mustCreate(t, env, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}})
	mustCreate(t, env, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "x", Name: "config"}})
	mustCreate(t, env, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "x", Name: "p", Finalizers: []string{"example.com/hold"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	start(t, env)

	if err := rest.Delete[corev1.Namespace](env.Ctx, env.Admin, "", "x", nil); err != nil {
		t.Fatal(err)
	}
	// The positive witness that the controller has been through the
	// namespace: its conditions are written (after the pods' deletion).
	// As upstream's, they do not mention the remaining pod.
	controllertest.Eventually(t, "conditions written", func() bool {
		ns, err := rest.Get[corev1.Namespace](env.Ctx, env.Admin, "", "x")
		if err != nil {
			t.Fatal(err)
		}
		c, f := condition(ns, corev1.NamespaceContentRemaining), condition(ns, corev1.NamespaceFinalizersRemaining)
		return c != nil && c.Status == corev1.ConditionFalse && c.Reason == "ContentRemoved" &&
			f != nil && f.Reason == "ContentHasNoFinalizers" && f.Message == "All content-preserving finalizers finished"
	})
	p, err := rest.Get[corev1.Pod](env.Ctx, env.Admin, "x", "p")
	if err != nil || p.DeletionTimestamp == nil {
		t.Fatalf("pod: %v, %+v", err, p)
	}
	if err := getErr[corev1.ConfigMap](env, "x", "config"); err != nil {
		t.Errorf("ConfigMap deleted while a pod remains: %v", err)
	}
	if _, err := rest.Patch[corev1.Pod](env.Ctx, env.Admin, "x", "p", rest.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), ""); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "namespace deleted", func() bool {
		return rest.IsNotFound(getErr[corev1.Namespace](env, "", "x"))
	})
}
