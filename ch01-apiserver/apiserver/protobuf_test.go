package apiserver_test

import (
	"net/http"
	"os"
	"testing"
)

func TestProtobufBodies(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	const pb = "application/vnd.kubernetes.protobuf"
	data, err := os.ReadFile("protobuf/testdata/configmap.pb")
	if err != nil {
		t.Fatal(err)
	}
	o := c.post(t, "/api/v1/namespaces/"+ns+"/configmaps", data, "Content-Type", pb, "Accept", pb+", application/json").must(t, http.StatusCreated)
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
