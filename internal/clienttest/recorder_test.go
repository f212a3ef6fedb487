package clienttest

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestActionFor: request paths parsed as the apiserver's RequestInfoFactory
// parses them, printed as the controller tests compare them.
func TestActionFor(t *testing.T) {
	for _, tc := range []struct {
		method, target, body string
		want                 string
	}{
		{"GET", "/api/v1/namespaces/default/pods/web", "", "get pods default/web"},
		{"GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb", "", "list pods default"},
		{"GET", "/api/v1/pods?watch=true&resourceVersion=5", "", "watch pods"},
		{"GET", "/apis/apps/v1/namespaces/default/replicasets?watch=1", "", "watch replicasets default"},
		{"POST", "/api/v1/namespaces/default/pods", `{"metadata":{"generateName":"web-"}}`, "create pods default"},
		{"POST", "/apis/apps/v1/namespaces/default/replicasets", `{"metadata":{"name":"web-5457d867cc"}}`, "create replicasets default/web-5457d867cc"},
		{"POST", "/api/v1/namespaces/default/pods/web/binding", `{"metadata":{"name":"web"}}`, "create pods/binding default/web"},
		{"PUT", "/apis/apps/v1/namespaces/default/replicasets/web/status", "", "update replicasets/status default/web"},
		{"PATCH", "/api/v1/nodes/n1", "", "patch nodes n1"},
		{"DELETE", "/api/v1/namespaces/z/configmaps", "", "deletecollection configmaps z"},
		{"DELETE", "/apis/batch/v1/namespaces/default/jobs/pi", "", "delete jobs default/pi"},
		// A namespace's own subresources, not resources in it.
		{"PUT", "/api/v1/namespaces/z/finalize", "", "update namespaces/finalize z"},
		{"PUT", "/api/v1/namespaces/z/status", "", "update namespaces/status z"},
		{"GET", "/api/v1/namespaces/z", "", "get namespaces z"},
		{"POST", "/api/v1/namespaces", `{"metadata":{"name":"team"}}`, "create namespaces team"},
		// Outside the resource paths: discovery, version.
		{"GET", "/apis/apps/v1", "", "get /apis/apps/v1"},
		{"GET", "/api", "", "get /api"},
		{"GET", "/version", "", "get /version"},
		// A body that is not an object: no name, no failure.
		{"POST", "/api/v1/namespaces/default/configmaps", `not json`, "create configmaps default"},
	} {
		r := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
		if got := actionFor(r, []byte(tc.body)).String(); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.target, got, tc.want)
		}
	}
	r := httptest.NewRequest("GET", "/apis/apps/v1/namespaces/default/deployments/web", nil)
	if a := actionFor(r, nil); a.Group != "apps" || !a.IsRead() {
		t.Errorf("group %q, read %v; want apps, true", a.Group, a.IsRead())
	}
}

// TestWrites: reads and an event recorder's writes are left out; every
// other write is kept, in order, a deletion of events included.
func TestWrites(t *testing.T) {
	r := &Recorder{}
	for _, a := range []Action{
		{Verb: "list", Resource: "pods"},
		{Verb: "create", Resource: "pods", Namespace: "default"},
		{Verb: "create", Resource: "events", Namespace: "default"},
		{Verb: "patch", Group: "events.k8s.io", Resource: "events", Namespace: "default", Name: "e"},
		{Verb: "deletecollection", Resource: "events", Namespace: "z"},
		{Verb: "update", Resource: "replicasets", Subresource: "status", Namespace: "default", Name: "web"},
		{Verb: "get", Resource: "replicasets", Namespace: "default", Name: "web"},
	} {
		r.record(a)
	}
	var got []string
	for _, a := range r.Writes() {
		got = append(got, a.String())
	}
	if want := "create pods default; deletecollection events z; update replicasets/status default/web"; strings.Join(got, "; ") != want {
		t.Errorf("writes %q, want %q", strings.Join(got, "; "), want)
	}
	if len(r.Actions()) != 7 {
		t.Errorf("%d actions, want all 7", len(r.Actions()))
	}
	r.ClearActions()
	if len(r.Actions()) != 0 {
		t.Errorf("after ClearActions: %v", r.Actions())
	}
}
