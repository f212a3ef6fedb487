package podautoscaler

import "testing"

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
