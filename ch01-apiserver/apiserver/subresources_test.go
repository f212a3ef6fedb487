package apiserver_test

import (
	"fmt"
	"net/http"
	"testing"
)

func TestScaleSubresource(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	deps := "/apis/apps/v1/namespaces/" + ns + "/deployments"
	d := c.post(t, deps, deployment("nginx", 2)).must(t, http.StatusCreated)

	sc := c.get(t, deps+"/nginx/scale").must(t, http.StatusOK)
	jsonEqual(t, "Scale", sc, fmt.Sprintf(`{"kind":"Scale","apiVersion":"autoscaling/v1",
		"metadata":{"name":"nginx","namespace":%q,"uid":%q,"resourceVersion":%q,"creationTimestamp":%q},
		"spec":{"replicas":2},"status":{"replicas":0,"selector":"app=nginx"}}`,
		ns, d.str("metadata.uid"), d.str("metadata.resourceVersion"), d.str("metadata.creationTimestamp")))

	// PUT with the current resourceVersion.
	sc["spec"] = map[string]any{"replicas": 3}
	out := c.put(t, deps+"/nginx/scale", sc).must(t, http.StatusOK)
	equal(t, "spec.replicas", out.num("spec.replicas"), int64(3))
	equal(t, "deployment replicas", c.get(t, deps+"/nginx").must(t, http.StatusOK).num("spec.replicas"), int64(3))
	// ... and again with the now stale one.
	c.put(t, deps+"/nginx/scale", sc).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on deployments.apps "nginx": the object has been modified; please apply your changes to the latest version and try again`)

	// PATCH, as kubectl scale does.
	out = c.patch(t, deps+"/nginx/scale", "application/merge-patch+json", `{"spec":{"replicas":5}}`).must(t, http.StatusOK)
	equal(t, "spec.replicas", out.num("spec.replicas"), int64(5))
	dep := c.get(t, deps+"/nginx").must(t, http.StatusOK)
	equal(t, "deployment replicas", dep.num("spec.replicas"), int64(5))
	equal(t, "generation", dep.num("metadata.generation"), int64(3))

	c.patch(t, deps+"/nginx/scale", "application/merge-patch+json", `{"spec":{"replicas":-1}}`).expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`Scale.autoscaling "nginx" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`)
	c.get(t, deps+"/nope/scale").expectError(t, http.StatusNotFound, "NotFound", `deployments.apps "nope" not found`)
	c.get(t, "/api/v1/namespaces/"+ns+"/configmaps/x/scale").expectError(t, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
}

func TestBindingSubresource(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	pods := "/api/v1/namespaces/" + ns + "/pods"
	c.post(t, pods, pod("p", nil)).must(t, http.StatusCreated)
	binding := obj{"apiVersion": "v1", "kind": "Binding", "metadata": obj{"name": "p"}, "target": obj{"kind": "Node", "name": "node-1"}}

	r := c.post(t, pods+"/p/binding?fieldManager=kube-scheduler", binding)
	if r.code != http.StatusCreated {
		t.Fatalf("binding: %d %s", r.code, r.body)
	}
	jsonEqual(t, "binding answer", r.status(t), `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`)
	p := c.get(t, pods+"/p").must(t, http.StatusOK)
	equal(t, "nodeName", p.str("spec.nodeName"), "node-1")
	equal(t, "condition type", p.str("status.conditions.0.type"), "PodScheduled")
	equal(t, "condition status", p.str("status.conditions.0.status"), "True")
	// A binding is written straight to storage, as upstream's BindingREST
	// does (GuaranteedUpdate): no field manager records it, so the pod's
	// managedFields still name only its creator.
	if mf := p.list("metadata.managedFields"); len(mf) != 1 || obj(mf[0].(map[string]any)).str("operation") != "Update" ||
		obj(mf[0].(map[string]any)).str("subresource") != "" {
		t.Errorf("managedFields after the binding: %v", mf)
	}

	c.post(t, pods+"/p/binding", binding).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"`)
	binding["metadata"] = obj{"name": "nope"}
	c.post(t, pods+"/nope/binding", binding).expectError(t, http.StatusNotFound, "NotFound", `pods "nope" not found`)
}
