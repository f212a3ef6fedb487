package rootcacertpublisher

import (
	"context"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMIIB...test...\n-----END CERTIFICATE-----\n"

// Every namespace gets kube-root-ca.crt with the CA and upstream's
// description; a changed or deleted one is put back.
func TestPublisher(t *testing.T) {
	env := controllertest.New(t)
	p, err := NewPublisher(env.CC, []byte(testCA))
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { p.Run(ctx, 1); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	get := func(ns string) (*corev1.ConfigMap, error) {
		return rest.Get[corev1.ConfigMap](env.Ctx, env.Admin, ns, RootCACertConfigMapName)
	}
	published := func(ns string) func() bool {
		return func() bool {
			cm, err := get(ns)
			return err == nil && cm.Data["ca.crt"] == testCA && cm.Annotations[DescriptionAnnotation] == Description
		}
	}
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		controllertest.Eventually(t, "kube-root-ca.crt in "+ns, published(ns))
	}
	if _, err := rest.Create(env.Ctx, env.Admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "kube-root-ca.crt in a new namespace", published("team"))

	// Someone edits it: the CA comes back.
	cm, err := get("team")
	if err != nil {
		t.Fatal(err)
	}
	cm.Data = map[string]string{"ca.crt": "forged"}
	if _, err := rest.Update(env.Ctx, env.Admin, cm); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "CA restored", published("team"))

	// Someone deletes it: a new one.
	if err := rest.Delete[corev1.ConfigMap](env.Ctx, env.Admin, "team", RootCACertConfigMapName, nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "ConfigMap recreated", func() bool {
		c, err := get("team")
		return err == nil && c.UID != cm.UID && published("team")()
	})
}
