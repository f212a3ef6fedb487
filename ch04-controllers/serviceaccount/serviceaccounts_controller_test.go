package serviceaccount

import (
	"context"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

func start(t *testing.T, env *controllertest.Env) *ServiceAccountsController {
	t.Helper()
	c, err := NewServiceAccountsController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { c.Run(ctx, 1); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return c
}

func getSA(env *controllertest.Env, ns string) (*corev1.ServiceAccount, error) {
	return rest.Get[corev1.ServiceAccount](env.Ctx, env.Admin, ns, DefaultServiceAccountName)
}

// Every namespace, those present at start and new ones, gets "default";
// deleting it brings a new one.
func TestDefaultServiceAccounts(t *testing.T) {
	env := controllertest.New(t)
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		if _, err := getSA(env, ns); !rest.IsNotFound(err) {
			t.Fatalf("%s: the apiserver alone should not create ServiceAccounts (err %v)", ns, err)
		}
	}
	start(t, env)
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		controllertest.Eventually(t, "default ServiceAccount in "+ns, func() bool { _, err := getSA(env, ns); return err == nil })
	}

	if _, err := rest.Create(env.Ctx, env.Admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "default ServiceAccount in a new namespace", func() bool { _, err := getSA(env, "team"); return err == nil })

	old, _ := getSA(env, "team")
	if err := rest.Delete[corev1.ServiceAccount](env.Ctx, env.Admin, "team", DefaultServiceAccountName, nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "default ServiceAccount recreated", func() bool {
		sa, err := getSA(env, "team")
		return err == nil && sa.UID != old.UID
	})
}

// A terminating namespace gets nothing new.
func TestTerminatingNamespace(t *testing.T) {
	env := controllertest.New(t)
	c, err := NewServiceAccountsController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	// The namespace controller is not running: "gone" stays Terminating.
	if _, err := rest.Create(env.Ctx, env.Admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}); err != nil {
		t.Fatal(err)
	}
	if err := rest.Delete[corev1.Namespace](env.Ctx, env.Admin, "", "gone", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "cache sees the namespace terminating", func() bool {
		ns, ok := c.nsInformer.GetStore().Get("", "gone")
		return ok && ns.Status.Phase == corev1.NamespaceTerminating
	})
	if err := c.syncNamespace(env.Ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := getSA(env, "gone"); !rest.IsNotFound(err) {
		t.Errorf("ServiceAccount in a terminating namespace: err %v", err)
	}
	// An active one does get it, through the same call.
	controllertest.Eventually(t, "cache has default", func() bool { _, ok := c.nsInformer.GetStore().Get("", "default"); return ok })
	if err := c.syncNamespace(env.Ctx, "default"); err != nil {
		t.Fatal(err)
	}
	if _, err := getSA(env, "default"); err != nil {
		t.Errorf("default namespace: %v", err)
	}
}
