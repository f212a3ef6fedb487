package openapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"testing"

	"kubik/ch01-apiserver/api/scheme"
)

func newTestV3(t *testing.T) *V3 {
	t.Helper()
	return NewV3(scheme.Resources, "v1.33.1")
}

func TestV3RootListsEveryGroupVersion(t *testing.T) {
	v := newTestV3(t)
	rec := httptest.NewRecorder()
	v.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi/v3", nil))
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	if got := rec.Header().Get("Cache-Control"); got != "no-cache, private" {
		t.Errorf("Cache-Control %q", got)
	}
	var root struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &root); err != nil {
		t.Fatal(err)
	}
	for _, gv := range scheme.GroupVersions() {
		group, version := scheme.SplitGroupVersion(gv)
		key := gvPath(group, version)
		entry, ok := root.Paths[key]
		if !ok {
			t.Errorf("root lacks %s", key)
			continue
		}
		_, hash, _ := v.Document(key)
		if want := "/openapi/v3/" + key + "?hash=" + hash; entry.ServerRelativeURL != want {
			t.Errorf("%s: %s, want %s", key, entry.ServerRelativeURL, want)
		}
	}
	if len(root.Paths) != len(scheme.GroupVersions()) {
		t.Errorf("root has %d group versions, scheme %d", len(root.Paths), len(scheme.GroupVersions()))
	}
}

func TestV3DocumentCaching(t *testing.T) {
	v := newTestV3(t)
	_, hash, _ := v.Document("api/v1")
	rec := httptest.NewRecorder()
	v.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi/v3/api/v1?hash="+hash, nil))
	h := rec.Header()
	if rec.Code != 200 || h.Get("Content-Type") != "application/json" || h.Get("Cache-Control") != "public, immutable" ||
		h.Get("Etag") != `"`+hash+`"` || h.Get("Expires") == "" {
		t.Errorf("status %d, headers %v", rec.Code, h)
	}

	rec = httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/openapi/v3/api/v1?hash="+hash, nil)
	req.Header.Set("If-None-Match", `"`+hash+`"`)
	v.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d", rec.Code)
	}

	rec = httptest.NewRecorder()
	v.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi/v3/api/v1?hash=OLD", nil))
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/openapi/v3/api/v1?hash="+hash {
		t.Errorf("old hash: status %d, Location %q", rec.Code, rec.Header().Get("Location"))
	}

	rec = httptest.NewRecorder()
	v.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi/v3/apis/nope/v1", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("unknown group version: status %d", rec.Code)
	}
}

// doc decodes a v3 document into generic JSON for the checks below.
func doc(t *testing.T, v *V3, gv string) map[string]any {
	t.Helper()
	body, _, ok := v.Document(gv)
	if !ok {
		t.Fatalf("no document %s", gv)
	}
	var d map[string]any
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// get walks a decoded JSON document.
func get(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok || m[p] == nil {
			t.Fatalf("no %q in path %v", p, path)
		}
		v = m[p]
	}
	return v
}

func TestV3CoreDocument(t *testing.T) {
	d := doc(t, newTestV3(t), "api/v1")
	if d["openapi"] != "3.0.0" || !reflect.DeepEqual(d["info"], map[string]any{"title": "Kubernetes", "version": "v1.33.1"}) {
		t.Errorf("header: %v %v", d["openapi"], d["info"])
	}
	schemas := get(t, d, "components", "schemas")
	pod := get(t, schemas, "io.k8s.api.core.v1.Pod")
	if got, want := get(t, pod, "x-kubernetes-group-version-kind"), []any{map[string]any{"group": "", "version": "v1", "kind": "Pod"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Pod GVK %v", got)
	}
	if got := get(t, pod, "properties", "spec", "allOf"); !reflect.DeepEqual(got, []any{map[string]any{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}}) {
		t.Errorf("Pod spec: %v", got)
	}
	containers := get(t, schemas, "io.k8s.api.core.v1.PodSpec", "properties", "containers")
	if get(t, containers, "x-kubernetes-patch-merge-key") != "name" || get(t, containers, "x-kubernetes-patch-strategy") != "merge" || get(t, containers, "type") != "array" {
		t.Errorf("containers: %v", containers)
	}
	if get(t, schemas, "io.k8s.api.core.v1.PodSpec", "description") == "" {
		t.Error("PodSpec has no description")
	}
	for name, want := range map[string]map[string]any{
		"io.k8s.apimachinery.pkg.apis.meta.v1.Time":       {"type": "string", "format": "date-time"},
		"io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"format": "int-or-string"},
		"io.k8s.apimachinery.pkg.api.resource.Quantity":   {},
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object"},
	} {
		s := get(t, schemas, name).(map[string]any)
		for k, v := range want {
			if s[k] != v {
				t.Errorf("%s.%s = %v, want %v", name, k, s[k], v)
			}
		}
	}
	if got := get(t, schemas, "io.k8s.api.core.v1.Container", "properties", "resources", "allOf"); got == nil {
		t.Error("Container.resources")
	}
	if got := get(t, schemas, "io.k8s.api.core.v1.ResourceRequirements", "properties", "limits", "additionalProperties", "allOf"); !reflect.DeepEqual(got, []any{map[string]any{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}}) {
		t.Errorf("limits: %v", got)
	}
	if got := get(t, schemas, "io.k8s.api.core.v1.ConfigMap", "properties", "binaryData", "additionalProperties"); !reflect.DeepEqual(got, map[string]any{"type": "string", "format": "byte"}) {
		t.Errorf("binaryData: %v", got)
	}
	if got := get(t, schemas, "io.k8s.api.core.v1.Container", "required"); !reflect.DeepEqual(got, []any{"name"}) {
		t.Errorf("Container required: %v", got)
	}
	if got := get(t, schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "properties", "generation", "format"); got != "int64" {
		t.Errorf("generation format %v", got)
	}

	// The query-param verifier: PATCH of the GVK with fieldValidation.
	patch := get(t, d, "paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "patch")
	if got := get(t, patch, "x-kubernetes-group-version-kind"); !reflect.DeepEqual(got, map[string]any{"group": "", "version": "v1", "kind": "ConfigMap"}) {
		t.Errorf("patch GVK %v", got)
	}
	if get(t, patch, "x-kubernetes-action") != "patch" {
		t.Error("x-kubernetes-action")
	}
	found := false
	for _, p := range get(t, patch, "parameters").([]any) {
		if p.(map[string]any)["name"] == "fieldValidation" && p.(map[string]any)["in"] == "query" {
			found = true
		}
	}
	if !found {
		t.Error("the PATCH of configmaps has no fieldValidation parameter")
	}
	for _, ct := range patchTypes {
		get(t, patch, "requestBody", "content", ct)
	}
	get(t, d, "paths", "/api/v1/namespaces/{namespace}/pods/{name}/status", "patch")
	get(t, d, "paths", "/api/v1/nodes/{name}", "get")
	get(t, d, "paths", "/api/v1/pods", "get")
}

func TestV3AppsDocument(t *testing.T) {
	d := doc(t, newTestV3(t), "apis/apps/v1")
	schemas := get(t, d, "components", "schemas")
	if got := get(t, schemas, "io.k8s.api.apps.v1.Deployment", "x-kubernetes-group-version-kind"); !reflect.DeepEqual(got, []any{map[string]any{"group": "apps", "version": "v1", "kind": "Deployment"}}) {
		t.Errorf("Deployment GVK %v", got)
	}
	get(t, schemas, "io.k8s.api.core.v1.PodTemplateSpec")
	scale := get(t, d, "paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", "patch", "x-kubernetes-group-version-kind")
	if !reflect.DeepEqual(scale, map[string]any{"group": "autoscaling", "version": "v1", "kind": "Scale"}) {
		t.Errorf("scale GVK %v", scale)
	}
	get(t, schemas, "io.k8s.api.autoscaling.v1.Scale")
}

// Every $ref points at a schema of the same document.
func TestV3ReferencesResolve(t *testing.T) {
	v := newTestV3(t)
	for _, gv := range v.GroupVersions() {
		body, _, _ := v.Document(gv)
		d := doc(t, v, gv)
		schemas := get(t, d, "components", "schemas").(map[string]any)
		var walk func(any)
		walk = func(x any) {
			switch x := x.(type) {
			case map[string]any:
				if ref, ok := x["$ref"].(string); ok {
					name := ref[len("#/components/schemas/"):]
					if schemas[name] == nil {
						t.Errorf("%s: dangling %s", gv, ref)
					}
				}
				for _, v := range x {
					walk(v)
				}
			case []any:
				for _, v := range x {
					walk(v)
				}
			}
		}
		walk(d)
		if bytes.Contains(body, []byte(`"#/definitions/`)) {
			t.Errorf("%s: v2 reference in a v3 document", gv)
		}
	}
}

func TestV2Minimal(t *testing.T) {
	want, err := os.ReadFile("testdata/openapi-v2-minimal.pb")
	if err != nil {
		t.Fatal(err)
	}
	if got := V2Document("v1.33.1"); !bytes.Equal(got, want) {
		t.Errorf("got % x\nwant % x", got, want)
	}
}

func TestV2PatchOperations(t *testing.T) {
	want, err := os.ReadFile("testdata/openapi-v2-patch-ops.pb")
	if err != nil {
		t.Fatal(err)
	}
	// The fixture has the PATCH operations of configmaps, pods and deployments, in that order.
	rs := []*scheme.Resource{scheme.Lookup("", "v1", "configmaps"), scheme.Lookup("", "v1", "pods"), scheme.Lookup("apps", "v1", "deployments")}
	if got := V2Document("v1.33.1", WithPatchOperations(rs)); !bytes.Equal(got, want) {
		t.Errorf("got % x\nwant % x", got, want)
	}
}

func TestV2Handler(t *testing.T) {
	h := V2Handler("v1.33.1")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi/v2", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != V2ContentType || !bytes.Equal(rec.Body.Bytes(), V2Document("v1.33.1")) {
		t.Fatalf("status %d, headers %v", rec.Code, rec.Header())
	}
	etag := rec.Header().Get("Etag")
	req := httptest.NewRequest("GET", "/openapi/v2", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if etag == "" || rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match %q: status %d", etag, rec.Code)
	}
}
