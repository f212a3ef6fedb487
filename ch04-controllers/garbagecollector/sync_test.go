package garbagecollector

import (
	"net/http"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

// Sync: a CustomResourceDefinition created after the collector started gets
// a monitor, so that a ConfigMap owned by a custom object is collected when
// the object is deleted; the monitor stops when the CRD goes.
func TestSyncMonitorsNewCustomResource(t *testing.T) {
	env := newEnv(t)
	gc, _ := startGCWithSyncPeriod(t, env, 100*time.Millisecond)
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"owners.gc.example.com"},
"spec":{"group":"gc.example.com","scope":"Namespaced","names":{"plural":"owners","kind":"Owner"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	do := func(method, path, body string, out any) error {
		return env.Admin.Do(env.Ctx, rest.Request{Method: method, Path: path, Body: []byte(body)}, out)
	}
	if err := do(http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd, nil); err != nil {
		t.Fatal(err)
	}
	monitored := func() bool {
		gc.gb.monitorLock.Lock()
		defer gc.gb.monitorLock.Unlock()
		_, ok := gc.gb.monitors["owners.gc.example.com"]
		return ok
	}
	controllertest.Eventually(t, "a monitor for owners.gc.example.com", monitored)

	const owners = "/apis/gc.example.com/v1/namespaces/default/owners"
	var owner metav1.PartialObjectMetadata
	controllertest.Eventually(t, "an Owner created", func() bool {
		return do(http.MethodPost, owners, `{"apiVersion":"gc.example.com/v1","kind":"Owner","metadata":{"name":"o"}}`, &owner) == nil
	})
	createCM(t, env, "owned", nil, metav1.OwnerReference{APIVersion: "gc.example.com/v1", Kind: "Owner", Name: "o", UID: owner.UID})
	createCM(t, env, "bystander", nil)
	if err := do(http.MethodDelete, owners+"/o", "", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the ConfigMap owned by the Owner collected", gone(env, "owned"))
	get(t, env, "bystander")

	if err := do(http.MethodDelete, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/owners.gc.example.com", "", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the monitor of owners.gc.example.com stopped", func() bool { return !monitored() })
}
