package resourcequota

import (
	"net/http"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/controllertest"
)

// Sync: a quota naming count/<resource>.<group> before the CRD exists
// counts the custom objects once discovery, read again, serves them.
func TestSyncCountsCustomResourcesOfALaterCRD(t *testing.T) {
	env := controllertest.New(t)
	c := newController(env.CC, Options{DiscoverySyncPeriod: 100 * time.Millisecond}, workqueue.RealClock{})
	env.Start(t)
	go c.Run(env.Ctx, 1)
	const name = "count/gizmos.quota.example.com"
	if _, err := rest.Create(env.Ctx, env.Admin, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "gizmos", Namespace: "default"},
		Spec: corev1.ResourceQuotaSpec{Hard: list(name, "5")}}); err != nil {
		t.Fatal(err)
	}
	used := func() (string, bool) {
		q, err := rest.Get[corev1.ResourceQuota](env.Ctx, env.Admin, "default", "gizmos")
		if err != nil {
			return "", false
		}
		v, ok := q.Status.Used[name]
		return v.String(), ok
	}
	controllertest.Eventually(t, "the quota's status written", func() bool {
		q, err := rest.Get[corev1.ResourceQuota](env.Ctx, env.Admin, "default", "gizmos")
		return err == nil && q.Status.Hard != nil
	})
	if v, ok := used(); ok {
		t.Fatalf("%s measured before its CRD exists: %s", name, v)
	}

	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.quota.example.com"},
"spec":{"group":"quota.example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	do := func(method, path, body string) error {
		return env.Admin.Do(env.Ctx, rest.Request{Method: method, Path: path, Body: []byte(body)}, nil)
	}
	if err := do(http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"a", "b"} {
		controllertest.Eventually(t, "gizmo "+g+" created", func() bool {
			return do(http.MethodPost, "/apis/quota.example.com/v1/namespaces/default/gizmos",
				`{"apiVersion":"quota.example.com/v1","kind":"Gizmo","metadata":{"name":"`+g+`"}}`) == nil
		})
	}
	controllertest.Eventually(t, "the gizmos counted", func() bool {
		v, ok := used()
		return ok && v == "2"
	})
}
