package apiserver_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"kubik/ch01-apiserver/apiserver/protobuf"
)

func TestProtobufBodies(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	const pb = "application/vnd.kubernetes.protobuf"
	data, err := os.ReadFile("protobuf/testdata/configmap.pb")
	if err != nil {
		t.Fatal(err)
	}
	o := c.post(t, "/api/v1/namespaces/"+ns+"/configmaps", data, "Content-Type", pb, "Accept", "application/json").must(t, http.StatusCreated)
	equal(t, "name", o.str("metadata.name"), "app-config")
	equal(t, "namespace", o.str("metadata.namespace"), ns)
	equal(t, "data", o.path("data"), map[string]any{"key": "value", "other": "two words"})
	equal(t, "binaryData", o.path("binaryData"), map[string]any{"bin": "AAEC/w=="})

	deploy, err := os.ReadFile("protobuf/testdata/deployment.pb")
	if err != nil {
		t.Fatal(err)
	}
	o = c.post(t, "/apis/apps/v1/namespaces/"+ns+"/deployments", deploy, "Content-Type", pb).must(t, http.StatusCreated)
	equal(t, "kind", o.str("kind"), "Deployment")

	// A protobuf body of another kind, and garbage: 400, never 500.
	r := c.post(t, "/api/v1/namespaces/"+ns+"/configmaps", deploy, "Content-Type", pb)
	if r.code != http.StatusBadRequest || r.status(t).Reason != "BadRequest" {
		t.Fatalf("deployment as configmap: %d %s", r.code, r.body)
	}
	for name, body := range map[string][]byte{
		"no magic":  []byte("garbage"),
		"truncated": data[:len(data)/2],
		"bad field": append([]byte("k8s\x00"), 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f),
		"empty":     {},
	} {
		r := c.post(t, "/api/v1/namespaces/"+ns+"/configmaps", body, "Content-Type", pb)
		if r.code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", name, r.code, r.body)
			continue
		}
		r.status(t)
	}
}

// A DELETE body in protobuf, as client-go sends it from controllers (the
// envelope around a DeleteOptions): its fields count, as in JSON.
func TestProtobufDeleteOptions(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	const pb = "application/vnd.kubernetes.protobuf"
	deleteOptions := func(policy string) []byte {
		raw := []byte{0x08, 0x00} // gracePeriodSeconds (1): 0
		raw = append(raw, 0x22, byte(len(policy)))
		raw = append(raw, policy...) // propagationPolicy (4)
		return protobuf.EncodeEnvelope("v1", "DeleteOptions", raw)
	}
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	c.post(t, cms, map[string]any{"metadata": map[string]any{"name": "gone"}}).must(t, http.StatusCreated)

	r := c.req(t, http.MethodDelete, cms+"/gone", deleteOptions("Sideways"), "Content-Type", pb)
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), `Unsupported value: \"Sideways\"`) {
		t.Fatalf("an invalid propagationPolicy in protobuf: %d %s", r.code, r.body)
	}
	c.req(t, http.MethodDelete, cms+"/gone", deleteOptions("Background"), "Content-Type", pb).must(t, http.StatusOK)
	c.get(t, cms+"/gone").expectError(t, http.StatusNotFound, "NotFound", `configmaps "gone" not found`)

	r = c.req(t, http.MethodDelete, cms+"/gone", []byte("k8s\x00garbage"), "Content-Type", pb)
	if r.code != http.StatusBadRequest {
		t.Fatalf("garbage DeleteOptions: %d %s", r.code, r.body)
	}
}
