package apiextensions

import (
	"bytes"
	"os"
	"testing"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/apiserver/serializer"
	"kubik/ch01-apiserver/apiserver/validation"
)

// Gateway API's published CRDs (the standard channel, as vendored by
// upstream's own tests) are valid CRDs, and objects of them validate as
// upstream validates them (their CEL rules are not evaluated here).
func TestGatewayAPICRDs(t *testing.T) {
	data, err := os.ReadFile("testdata/gateway-api-v1.0.0-rc1-standard-install.yaml")
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]*Served{}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		j, err := serializer.YAMLToJSON(doc)
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(j)) == 0 || string(bytes.TrimSpace(j)) == "null" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if strict, err := serializer.DecodeStrict(j, crd); err != nil || len(strict) > 0 {
			t.Fatalf("decoding: %v %v", err, strict)
		}
		SetDefaults(crd)
		crd.Status.StoredVersions = []string{apiextensionsv1.StorageVersion(crd)}
		if errs := ValidateCustomResourceDefinition(crd); len(errs) > 0 {
			t.Errorf("%s: %s", crd.Name, validation.AggregateMessage(errs))
		}
		for _, s := range BuildServed(crd) {
			served[s.Resource.Kind+"/"+s.Resource.Version] = s
		}
	}
	if len(served) < 4 {
		t.Fatalf("served %d kinds/versions", len(served))
	}
	gw := object(t, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"gw"},
		"spec":{"gatewayClassName":"example","listeners":[{"name":"http","protocol":"HTTP","port":80}]}}`)
	s := served["Gateway/v1"]
	Prune(gw, s.Schema)
	Default(gw, s.Schema)
	if errs := ValidateValues(gw, s.Schema); len(errs) > 0 {
		t.Errorf("Gateway: %v", errs)
	}
	if got, _ := NestedField(gw, "spec", "listeners"); got.([]any)[0].(map[string]any)["allowedRoutes"] == nil {
		t.Errorf("listener not defaulted: %v", got)
	}
	bad := object(t, `{"spec":{"gatewayClassName":"","listeners":[{"name":"http","protocol":"HTTP","port":800000}]}}`)
	var got []string
	for _, e := range ValidateValues(bad, s.Schema) {
		got = append(got, e.Error())
	}
	want := []string{
		`spec.gatewayClassName: Invalid value: "": spec.gatewayClassName in body should be at least 1 chars long`,
		`spec.listeners[0].port: Invalid value: 800000: spec.listeners[0].port in body should be less than or equal to 65535`,
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
