package podautoscaler

import (
	"net/http"
	"testing"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

// The scale targets map to their resources as upstream's RESTMapper maps
// them; an unknown kind or a bad apiVersion is upstream's error.
func TestResourceFor(t *testing.T) {
	for _, tc := range []struct {
		apiVersion, kind, resource, err string
	}{
		{"apps/v1", "Deployment", "deployments", ""},
		{"apps/v1", "StatefulSet", "statefulsets", ""},
		{"apps/v1", "ReplicaSet", "replicasets", ""},
		{"v1", "ReplicationController", "replicationcontrollers", ""},
		{"apps/v1", "Frobnicator", "", `no matches for kind "Frobnicator" in group "apps"`},
		{"apps/v1/x", "Deployment", "", "unexpected GroupVersion string: apps/v1/x"},
	} {
		r, err := resourceFor(tc.apiVersion, tc.kind)
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s %s: error %v, want %q", tc.apiVersion, tc.kind, err, tc.err)
		case tc.err == "" && (err != nil || r.Resource != tc.resource):
			t.Errorf("%s %s: %v %v, want %s", tc.apiVersion, tc.kind, r, err, tc.resource)
		}
	}
}

// A kind the scheme does not know (a custom resource) is found through
// discovery, read again on a miss: a CRD created after the mapper's first
// discovery is found.
func TestScaleMapperDiscoversCustomKinds(t *testing.T) {
	env := controllertest.New(t)
	m := &scaleMapper{client: env.CC.Client}
	if _, err := m.resourceFor(env.Ctx, "scale.example.com/v1", "Gadget"); err == nil || err.Error() != `no matches for kind "Gadget" in version "scale.example.com/v1"` {
		t.Fatalf("before the CRD: %v", err)
	}
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.scale.example.com"},
"spec":{"group":"scale.example.com","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},
"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	if err := env.Admin.Do(env.Ctx, rest.Request{Method: http.MethodPost, Path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Body: []byte(crd)}, nil); err != nil {
		t.Fatal(err)
	}
	var r *scheme.Resource
	controllertest.Eventually(t, "gadgets discovered", func() bool {
		var err error
		r, err = m.resourceFor(env.Ctx, "scale.example.com/v1", "Gadget")
		return err == nil
	})
	if got := rest.ResourcePath(r, "ns", "g", "scale"); got != "/apis/scale.example.com/v1/namespaces/ns/gadgets/g/scale" {
		t.Errorf("scale path %s", got)
	}
	if r, err := m.resourceFor(env.Ctx, "apps/v1", "Deployment"); err != nil || r.Resource != "deployments" {
		t.Errorf("a built-in kind: %v %v", r, err)
	}
}
