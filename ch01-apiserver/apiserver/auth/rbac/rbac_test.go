package rbac

import (
	"testing"

	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/auth"
)

// The cases follow upstream's plugin/pkg/auth/authorizer/rbac/rbac_test.go
// (TestRuleMatches).

func pr(verbs, groups, resources, names []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
}

func sl(s ...string) []string { return s }

func TestRuleAllows(t *testing.T) {
	res := func(verb, group, resource, sub, name string) *auth.Attributes {
		return &auth.Attributes{Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Name: name, IsResourceRequest: true, Namespace: "ns"}
	}
	path := func(verb, p string) *auth.Attributes { return &auth.Attributes{Verb: verb, Path: p} }
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		yes  []*auth.Attributes
		no   []*auth.Attributes
	}{
		{name: "star verb, exact match other",
			rule: pr(sl("*"), sl("group1"), sl("resource1"), nil),
			yes:  []*auth.Attributes{res("get", "group1", "resource1", "", ""), res("update", "group1", "resource1", "", "")},
			no:   []*auth.Attributes{res("get", "group2", "resource1", "", ""), res("get", "group1", "resource2", "", ""), res("get", "group1", "resource1", "sub", "")}},
		{name: "star group, exact match other",
			rule: pr(sl("get"), sl("*"), sl("resource1"), nil),
			yes:  []*auth.Attributes{res("get", "group1", "resource1", "", ""), res("get", "group2", "resource1", "", "")},
			no:   []*auth.Attributes{res("update", "group1", "resource1", "", ""), res("get", "group1", "resource2", "", "")}},
		{name: "star resource, exact match other",
			rule: pr(sl("get"), sl("group1"), sl("*"), nil),
			yes:  []*auth.Attributes{res("get", "group1", "resource1", "", ""), res("get", "group1", "resource2", "", ""), res("get", "group1", "resource1", "status", "")},
			no:   []*auth.Attributes{res("get", "group2", "resource1", "", "")}},
		{name: "tuple expansion",
			rule: pr(sl("get", "update"), sl("group1", "group2"), sl("resource1", "resource2"), nil),
			yes:  []*auth.Attributes{res("get", "group1", "resource1", "", ""), res("update", "group2", "resource2", "", "")},
			no:   []*auth.Attributes{res("delete", "group1", "resource1", "", ""), res("get", "group3", "resource1", "", "")}},
		{name: "subresource expansion",
			rule: pr(sl("*"), sl("*"), sl("resource1/subresource1"), nil),
			yes:  []*auth.Attributes{res("get", "group1", "resource1", "subresource1", "")},
			no:   []*auth.Attributes{res("get", "group1", "resource1", "", ""), res("get", "group1", "resource1", "subresource2", "")}},
		{name: "pods/log does not give pods",
			rule: pr(sl("get"), sl(""), sl("pods/log"), nil),
			yes:  []*auth.Attributes{res("get", "", "pods", "log", "web")},
			no:   []*auth.Attributes{res("get", "", "pods", "", "web")}},
		{name: "star/scale matches every scale",
			rule: pr(sl("get", "update"), sl("*"), sl("*/scale"), nil),
			yes:  []*auth.Attributes{res("update", "apps", "deployments", "scale", "d"), res("get", "", "replicationcontrollers", "scale", "r")},
			no:   []*auth.Attributes{res("get", "apps", "deployments", "", "d"), res("get", "apps", "deployments", "status", "d")}},
		{name: "resource names",
			rule: pr(sl("get"), sl(""), sl("configmaps"), sl("a", "b")),
			yes:  []*auth.Attributes{res("get", "", "configmaps", "", "a"), res("get", "", "configmaps", "", "b")},
			no:   []*auth.Attributes{res("get", "", "configmaps", "", "c"), res("get", "", "configmaps", "", "")}},
		{name: "non-resource URLs",
			rule: rbacv1.PolicyRule{Verbs: sl("get"), NonResourceURLs: sl("/api", "/apis/*", "/healthz")},
			yes:  []*auth.Attributes{path("get", "/api"), path("get", "/apis/apps/v1"), path("get", "/apis/"), path("get", "/healthz")},
			no:   []*auth.Attributes{path("post", "/api"), path("get", "/api/v1"), path("get", "/apis"), path("get", "/healthz/etcd"), res("get", "", "api", "", "")}},
		{name: "star non-resource URL",
			rule: rbacv1.PolicyRule{Verbs: sl("*"), NonResourceURLs: sl("*")},
			yes:  []*auth.Attributes{path("get", "/anything"), path("delete", "/metrics")},
			no:   []*auth.Attributes{res("get", "", "pods", "", "")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, a := range tc.yes {
				if !RuleAllows(a, &tc.rule) {
					t.Errorf("%+v should be allowed by %+v", *a, tc.rule)
				}
			}
			for _, a := range tc.no {
				if RuleAllows(a, &tc.rule) {
					t.Errorf("%+v should not be allowed by %+v", *a, tc.rule)
				}
			}
		})
	}
}
