package apiserver

import (
	"testing"

	"kubik/ch01-apiserver/apiserver/auth"
)

func TestForbiddenMessages(t *testing.T) {
	alice := &auth.UserInfo{Name: "alice", Groups: []string{"dev", auth.GroupAuthenticated}}
	for _, tc := range []struct {
		a    *auth.Attributes
		want string
	}{
		{&auth.Attributes{User: alice, Verb: "list", IsResourceRequest: true, Resource: "pods", Namespace: "default"},
			`pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`},
		{&auth.Attributes{User: alice, Verb: "delete", IsResourceRequest: true, Resource: "pods", Namespace: "default", Name: "x"},
			`pods "x" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default"`},
		{&auth.Attributes{User: alice, Verb: "list", IsResourceRequest: true, APIGroup: "apps", Resource: "deployments"},
			`deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" at the cluster scope`},
		{&auth.Attributes{User: alice, Verb: "get", IsResourceRequest: true, Resource: "pods", Subresource: "log", Namespace: "ns", Name: "web"},
			`pods "web" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "ns"`},
		{&auth.Attributes{User: alice, Verb: "get", Path: "/api"}, `forbidden: User "alice" cannot get path "/api"`},
	} {
		if got := errForbiddenAction(tc.a, "").Status.Message; got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
