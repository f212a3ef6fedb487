package apiserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/storage"
	"kubik/internal/testenv"
)

// crd is a minimal CRD manifest: one version, a preserve-unknown-fields spec.
func crd(group, plural, kind, scope string, extra map[string]any) obj {
	spec := map[string]any{
		"group": group, "scope": scope,
		"names": map[string]any{"plural": plural, "kind": kind},
		"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
				"spec": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}},
	}
	for k, v := range extra {
		spec[k] = v
	}
	return obj{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group}, "spec": spec}
}

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// condition waits until the CRD's condition typ has the given status and returns its reason and message.
func (c *cluster) condition(t *testing.T, name, typ, status string) (reason, message string) {
	t.Helper()
	testenv.Eventually(t, name+" "+typ+"="+status, 30*time.Second, func() (string, bool) {
		o := c.get(t, crdPath+"/"+name).must(t, http.StatusOK)
		for _, cond := range o.list("status.conditions") {
			m := cond.(map[string]any)
			if m["type"] == typ {
				reason, message = m["reason"].(string), m["message"].(string)
				return m["status"].(string) + " " + reason, m["status"] == status
			}
		}
		return "no condition", false
	})
	return reason, message
}

func TestCRDNamesConflict(t *testing.T) {
	c := shared
	c.post(t, crdPath, crd("conflict.example.com", "things", "Thing", "Namespaced", nil)).must(t, http.StatusCreated)
	c.condition(t, "things.conflict.example.com", "Established", "True")
	// Another CRD of the group asks for the same kind.
	c.post(t, crdPath, crd("conflict.example.com", "others", "Thing", "Namespaced", map[string]any{
		"names": map[string]any{"plural": "others", "singular": "other", "kind": "Thing"}})).must(t, http.StatusCreated)
	reason, msg := c.condition(t, "others.conflict.example.com", "NamesAccepted", "False")
	equal(t, "NamesAccepted", reason+": "+msg, `KindConflict: "Thing" is already in use`)
	reason, msg = c.condition(t, "others.conflict.example.com", "Established", "False")
	equal(t, "Established", reason+": "+msg, "NotAccepted: not all names are accepted")
	c.get(t, "/apis/conflict.example.com/v1/others").expectError(t, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	// The holder goes: the names are free, the other CRD is established.
	c.del(t, crdPath+"/things.conflict.example.com", nil).must(t, http.StatusOK)
	c.condition(t, "others.conflict.example.com", "Established", "True")
	c.get(t, "/apis/conflict.example.com/v1/others").must(t, http.StatusOK)
	c.del(t, crdPath+"/others.conflict.example.com", nil).must(t, http.StatusOK)
}

func TestCustomResourceREST(t *testing.T) {
	c := shared
	c.post(t, crdPath, crd("rest.example.com", "gadgets", "Gadget", "Cluster", nil)).must(t, http.StatusCreated)
	c.condition(t, "gadgets.rest.example.com", "Established", "True")
	base := "/apis/rest.example.com/v1/gadgets"
	w := c.watch(t, base+"?watch=true")
	defer w.stop()
	for _, name := range []string{"a", "b", "c"} {
		c.post(t, base, obj{"apiVersion": "rest.example.com/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"n": name}}, "spec": map[string]any{"x": 1}}).must(t, http.StatusCreated)
		w.expect(t, "ADDED", name)
	}
	// Paging: two, then one with the continue token.
	page := c.get(t, base+"?limit=2").must(t, http.StatusOK)
	equal(t, "first page", names(page.items()), []string{"a", "b"})
	next := c.get(t, base+"?limit=2&continue="+page.str("metadata.continue")).must(t, http.StatusOK)
	equal(t, "second page", names(next.items()), []string{"c"})
	equal(t, "kind", page.str("kind"), "GadgetList")
	// Label and field selectors.
	equal(t, "labelSelector", names(c.get(t, base+"?labelSelector=n%3Db").must(t, http.StatusOK).items()), []string{"b"})
	equal(t, "fieldSelector", names(c.get(t, base+"?fieldSelector=metadata.name%3Dc").must(t, http.StatusOK).items()), []string{"c"})
	// A cluster-scoped kind has no namespaced path.
	c.get(t, "/apis/rest.example.com/v1/namespaces/default/gadgets").expectError(t, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	// Strategic merge patch is not for custom resources.
	r := c.patch(t, base+"/a", "application/strategic-merge-patch+json", `{"spec":{"x":2}}`)
	if r.code != http.StatusUnsupportedMediaType {
		t.Errorf("strategic merge patch: %d %s", r.code, r.body)
	}
	c.patch(t, base+"/a", "application/merge-patch+json", `{"spec":{"x":2}}`).must(t, http.StatusOK)
	w.expect(t, "MODIFIED", "a")
	// deletecollection, then the CRD.
	c.del(t, base+"?labelSelector=n%21%3Da", nil).must(t, http.StatusOK)
	w.expect(t, "DELETED", "b")
	w.expect(t, "DELETED", "c")
	c.del(t, crdPath+"/gadgets.rest.example.com", nil).must(t, http.StatusOK)
	w.expect(t, "DELETED", "a") // the cleanup finalizer deletes what is left
	testenv.Eventually(t, "CRD gone", 30*time.Second, func() (string, bool) {
		r := c.get(t, crdPath+"/gadgets.rest.example.com")
		return string(r.body), r.code == http.StatusNotFound
	})
}

func TestWebhookConversionIsRefused(t *testing.T) {
	c := shared
	m := crd("hook.example.com", "hooks", "Hook", "Namespaced", map[string]any{
		"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
			"conversionReviewVersions": []any{"v1"}, "clientConfig": map[string]any{"url": "https://127.0.0.1:1/convert"}}}})
	versions := m["spec"].(map[string]any)["versions"].([]any)
	v2 := map[string]any{}
	for k, v := range versions[0].(map[string]any) {
		v2[k] = v
	}
	v2["name"], v2["storage"] = "v2", false
	m["spec"].(map[string]any)["versions"] = append(versions, v2)
	c.post(t, crdPath, m).must(t, http.StatusCreated)
	defer c.del(t, crdPath+"/hooks.hook.example.com", nil)
	c.condition(t, "hooks.hook.example.com", "Established", "True")
	c.get(t, "/apis/hook.example.com/v1/namespaces/default/hooks").must(t, http.StatusOK)
	r := c.get(t, "/apis/hook.example.com/v2/namespaces/default/hooks")
	st := r.status(t)
	if r.code != http.StatusInternalServerError || !strings.Contains(st.Message, "conversion webhook for hook.example.com/v1, Kind=Hook failed") {
		t.Errorf("v2 list: %d %s", r.code, st.Message)
	}
}

// An object with a finalizer of its own holds its CRD in Terminating; no
// new objects are accepted meanwhile; once the object goes, so does the CRD.
func TestCRDDeletionWaitsForFinalizedObjects(t *testing.T) {
	c := shared
	c.post(t, crdPath, crd("final.example.com", "things", "Thing", "Namespaced", nil)).must(t, http.StatusCreated)
	c.condition(t, "things.final.example.com", "Established", "True")
	base := "/apis/final.example.com/v1/namespaces/default/things"
	c.post(t, base, obj{"apiVersion": "final.example.com/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "held", "finalizers": []any{"example.com/hold"}}}).must(t, http.StatusCreated)
	// Stored under upstream's key: /registry/<group>/<plural>/<namespace>/<name>.
	keys := func() []string {
		res, err := c.store.List(context.Background(), "/registry/final.example.com/things/", storage.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, kv := range res.KVs {
			out = append(out, kv.Key)
		}
		return out
	}
	equal(t, "stored keys", keys(), []string{"/registry/final.example.com/things/default/held"})
	c.del(t, crdPath+"/things.final.example.com", nil).must(t, http.StatusOK)
	reason, msg := c.condition(t, "things.final.example.com", "Terminating", "True")
	if reason != "InstanceDeletionInProgress" && reason != "InstanceDeletionPending" {
		t.Errorf("Terminating: %s: %s", reason, msg)
	}
	testenv.Eventually(t, "the object is being deleted", 30*time.Second, func() (string, bool) {
		o := c.get(t, base+"/held").must(t, http.StatusOK)
		return o.str("metadata.deletionTimestamp"), o.str("metadata.deletionTimestamp") != ""
	})
	c.post(t, base, obj{"apiVersion": "final.example.com/v1", "kind": "Thing", "metadata": map[string]any{"name": "late"}}).
		expectError(t, http.StatusForbidden, "Forbidden", `things.final.example.com "late" is forbidden: create not allowed while custom resource definition is terminating`)
	fin := c.get(t, crdPath+"/things.final.example.com").must(t, http.StatusOK)
	equal(t, "finalizers", fin.list("metadata.finalizers"), []any{"customresourcecleanup.apiextensions.k8s.io"})
	c.patch(t, base+"/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`).must(t, http.StatusOK)
	testenv.Eventually(t, "CRD gone", 30*time.Second, func() (string, bool) {
		r := c.get(t, crdPath+"/things.final.example.com")
		return string(r.body), r.code == http.StatusNotFound
	})
	equal(t, "stored keys after the CRD's deletion", len(keys()), 0)
}

func TestDeprecatedVersionWarns(t *testing.T) {
	c := shared
	m := crd("old.example.com", "relics", "Relic", "Cluster", nil)
	v := m["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	v["deprecated"] = true
	c.post(t, crdPath, m).must(t, http.StatusCreated)
	defer c.del(t, crdPath+"/relics.old.example.com", nil)
	c.condition(t, "relics.old.example.com", "Established", "True")
	r := c.get(t, "/apis/old.example.com/v1/relics")
	equal(t, "Warning", r.header.Get("Warning"), `299 - "old.example.com/v1 Relic is deprecated"`)
}

// Server-side apply on a custom resource sees the schema's structure: a
// list-map merges by its key, ownership is per field (kube-apiserver
// v1.35.4's managedFields for the same applies).
func TestCustomResourceServerSideApply(t *testing.T) {
	c := shared
	m := crd("ssa.example.com", "gates", "Gate", "Namespaced", nil)
	m["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"] = map[string]any{"openAPIV3Schema": map[string]any{
		"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": map[string]any{
			"class": map[string]any{"type": "string"},
			"sub":   map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "integer"}}},
			"listeners": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
				"items": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
					"name": map[string]any{"type": "string"}, "port": map[string]any{"type": "integer"}}}},
		}}}}}
	c.post(t, crdPath, m).must(t, http.StatusCreated)
	defer c.del(t, crdPath+"/gates.ssa.example.com", nil)
	c.condition(t, "gates.ssa.example.com", "Established", "True")
	apply := func(manager, body string) response {
		return c.req(t, http.MethodPatch, "/apis/ssa.example.com/v1/namespaces/default/gates/g?fieldManager="+manager, body,
			"Content-Type", "application/apply-patch+yaml")
	}
	apply("kubectl", `{"apiVersion":"ssa.example.com/v1","kind":"Gate","metadata":{"name":"g"},"spec":{"class":"a","sub":{"a":1},"listeners":[{"name":"http","port":80}]}}`).must(t, http.StatusCreated)
	o := apply("other", `{"apiVersion":"ssa.example.com/v1","kind":"Gate","metadata":{"name":"g"},"spec":{"listeners":[{"name":"https","port":443}]}}`).must(t, http.StatusOK)
	equal(t, "listener names", len(o.list("spec.listeners")), 2)
	for _, e := range o.list("metadata.managedFields") {
		m := e.(map[string]any)
		switch m["manager"] {
		case "kubectl":
			jsonEqual(t, "kubectl's fields", m["fieldsV1"], `{"f:spec":{"f:class":{},"f:listeners":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}},"f:sub":{"f:a":{}}}}`)
		case "other":
			jsonEqual(t, "other's fields", m["fieldsV1"], `{"f:spec":{"f:listeners":{"k:{\"name\":\"https\"}":{".":{},"f:name":{},"f:port":{}}}}}`)
		}
	}
	r := apply("third", `{"apiVersion":"ssa.example.com/v1","kind":"Gate","metadata":{"name":"g"},"spec":{"listeners":[{"name":"http","port":8080}]}}`)
	if r.code != http.StatusConflict || !strings.Contains(string(r.body), `.spec.listeners[name=\"http\"].port`) {
		t.Errorf("conflicting apply: %d %s", r.code, r.body)
	}
}
