package apiserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"kubik/internal/testenv"
)

// TestCustomResourceOpenAPIV2: a served CRD adds its kind, its list kind
// and its paths to /openapi/v2 (JSON by default, protobuf when asked),
// with the schema converted for v2; the document's ETag changes when the
// CRD comes and goes, and the kind leaves with it.
func TestCustomResourceOpenAPIV2(t *testing.T) {
	c := shared
	const name = "knobs.v2.example.com"
	c.post(t, crdPath, crd("v2.example.com", "knobs", "Knob", "Namespaced", nil)).must(t, http.StatusCreated)
	c.condition(t, name, "Established", "True")

	type doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
		Paths       map[string]map[string]any `json:"paths"`
	}
	var d doc
	var etag string
	testenv.Eventually(t, "Knob in /openapi/v2", 30*time.Second, func() (string, bool) {
		r := c.get(t, "/openapi/v2")
		d = doc{}
		if r.code != http.StatusOK || json.Unmarshal(r.body, &d) != nil {
			return string(r.body), false
		}
		etag = r.header.Get("Etag")
		_, ok := d.Definitions["com.example.v2.v1.Knob"]
		return r.header.Get("Content-Type"), ok
	})
	knob := d.Definitions["com.example.v2.v1.Knob"]
	// spec preserves unknown fields: no type and no properties in v2.
	spec := knob["properties"].(map[string]any)["spec"].(map[string]any)
	if _, ok := spec["type"]; ok || spec["x-kubernetes-preserve-unknown-fields"] != true {
		t.Errorf("spec = %v, want only x-kubernetes-preserve-unknown-fields", spec)
	}
	meta := knob["properties"].(map[string]any)["metadata"].(map[string]any)
	equal(t, "metadata $ref", meta["$ref"], "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
	if _, ok := d.Definitions["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]; !ok {
		t.Error("ObjectMeta is not defined")
	}
	if _, ok := d.Definitions["com.example.v2.v1.KnobList"]; !ok {
		t.Error("KnobList is not defined")
	}
	get := d.Paths["/apis/v2.example.com/v1/namespaces/{namespace}/knobs/{name}"]["get"].(map[string]any)
	equal(t, "operationId", get["operationId"], "readNamespacedKnob")
	equal(t, "x-kubernetes-action", get["x-kubernetes-action"], "get")

	// Revalidation with the ETag: 304; protobuf has an ETag of its own.
	equal(t, "If-None-Match", c.get(t, "/openapi/v2", "If-None-Match", etag).code, http.StatusNotModified)
	pb := c.get(t, "/openapi/v2", "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	equal(t, "protobuf Content-Type", pb.header.Get("Content-Type"), "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
	if !bytes.Contains(pb.body, []byte("com.example.v2.v1.Knob")) {
		t.Error("protobuf document lacks com.example.v2.v1.Knob")
	}

	c.del(t, crdPath+"/"+name, nil).must(t, http.StatusOK)
	testenv.Eventually(t, "Knob gone from /openapi/v2", 30*time.Second, func() (string, bool) {
		r := c.get(t, "/openapi/v2")
		return r.header.Get("Etag"), r.header.Get("Etag") != etag && !bytes.Contains(r.body, []byte("com.example.v2.v1.Knob"))
	})
}
