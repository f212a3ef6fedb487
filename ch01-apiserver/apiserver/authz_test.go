package apiserver

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/storage"
)

// The cases follow upstream's plugin/pkg/auth/authorizer/rbac/rbac_test.go
// (TestRuleMatches) and pkg/registry/rbac/validation (TestCoversExactMatch...).

func pr(verbs, groups, resources, names []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
}

func sl(s ...string) []string { return s }

func TestRuleAllows(t *testing.T) {
	res := func(verb, group, resource, sub, name string) *Attributes {
		return &Attributes{Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Name: name, IsResourceRequest: true, Namespace: "ns"}
	}
	path := func(verb, p string) *Attributes { return &Attributes{Verb: verb, Path: p} }
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		yes  []*Attributes
		no   []*Attributes
	}{
		{name: "star verb, exact match other",
			rule: pr(sl("*"), sl("group1"), sl("resource1"), nil),
			yes:  []*Attributes{res("get", "group1", "resource1", "", ""), res("update", "group1", "resource1", "", "")},
			no:   []*Attributes{res("get", "group2", "resource1", "", ""), res("get", "group1", "resource2", "", ""), res("get", "group1", "resource1", "sub", "")}},
		{name: "star group, exact match other",
			rule: pr(sl("get"), sl("*"), sl("resource1"), nil),
			yes:  []*Attributes{res("get", "group1", "resource1", "", ""), res("get", "group2", "resource1", "", "")},
			no:   []*Attributes{res("update", "group1", "resource1", "", ""), res("get", "group1", "resource2", "", "")}},
		{name: "star resource, exact match other",
			rule: pr(sl("get"), sl("group1"), sl("*"), nil),
			yes:  []*Attributes{res("get", "group1", "resource1", "", ""), res("get", "group1", "resource2", "", ""), res("get", "group1", "resource1", "status", "")},
			no:   []*Attributes{res("get", "group2", "resource1", "", "")}},
		{name: "tuple expansion",
			rule: pr(sl("get", "update"), sl("group1", "group2"), sl("resource1", "resource2"), nil),
			yes:  []*Attributes{res("get", "group1", "resource1", "", ""), res("update", "group2", "resource2", "", "")},
			no:   []*Attributes{res("delete", "group1", "resource1", "", ""), res("get", "group3", "resource1", "", "")}},
		{name: "subresource expansion",
			rule: pr(sl("*"), sl("*"), sl("resource1/subresource1"), nil),
			yes:  []*Attributes{res("get", "group1", "resource1", "subresource1", "")},
			no:   []*Attributes{res("get", "group1", "resource1", "", ""), res("get", "group1", "resource1", "subresource2", "")}},
		{name: "pods/log does not give pods",
			rule: pr(sl("get"), sl(""), sl("pods/log"), nil),
			yes:  []*Attributes{res("get", "", "pods", "log", "web")},
			no:   []*Attributes{res("get", "", "pods", "", "web")}},
		{name: "star/scale matches every scale",
			rule: pr(sl("get", "update"), sl("*"), sl("*/scale"), nil),
			yes:  []*Attributes{res("update", "apps", "deployments", "scale", "d"), res("get", "", "replicationcontrollers", "scale", "r")},
			no:   []*Attributes{res("get", "apps", "deployments", "", "d"), res("get", "apps", "deployments", "status", "d")}},
		{name: "resource names",
			rule: pr(sl("get"), sl(""), sl("configmaps"), sl("a", "b")),
			yes:  []*Attributes{res("get", "", "configmaps", "", "a"), res("get", "", "configmaps", "", "b")},
			no:   []*Attributes{res("get", "", "configmaps", "", "c"), res("get", "", "configmaps", "", "")}},
		{name: "non-resource URLs",
			rule: rbacv1.PolicyRule{Verbs: sl("get"), NonResourceURLs: sl("/api", "/apis/*", "/healthz")},
			yes:  []*Attributes{path("get", "/api"), path("get", "/apis/apps/v1"), path("get", "/apis/"), path("get", "/healthz")},
			no:   []*Attributes{path("post", "/api"), path("get", "/api/v1"), path("get", "/apis"), path("get", "/healthz/etcd"), res("get", "", "api", "", "")}},
		{name: "star non-resource URL",
			rule: rbacv1.PolicyRule{Verbs: sl("*"), NonResourceURLs: sl("*")},
			yes:  []*Attributes{path("get", "/anything"), path("delete", "/metrics")},
			no:   []*Attributes{res("get", "", "pods", "", "")}},
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

func TestCovers(t *testing.T) {
	tests := []struct {
		name    string
		owner   []rbacv1.PolicyRule
		servant []rbacv1.PolicyRule
		covers  bool
		missing []string
	}{
		{"exact match", []rbacv1.PolicyRule{pr(sl("get"), sl("v1"), sl("builds"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get"), sl("v1"), sl("builds"), nil)}, true, nil},
		{"multiple rules covering one", []rbacv1.PolicyRule{pr(sl("get"), sl("v1"), sl("builds"), nil), pr(sl("update"), sl("v1"), sl("builds"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get", "update"), sl("v1"), sl("builds"), nil)}, true, nil},
		{"star verb", []rbacv1.PolicyRule{pr(sl("*"), sl("v1"), sl("builds"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get", "delete"), sl("v1"), sl("builds"), nil)}, true, nil},
		{"star verb not covered", []rbacv1.PolicyRule{pr(sl("get", "delete"), sl("v1"), sl("builds"), nil)},
			[]rbacv1.PolicyRule{pr(sl("*"), sl("v1"), sl("builds"), nil)}, false, []string{`{APIGroups:["v1"], Resources:["builds"], Verbs:["*"]}`}},
		{"resource names narrow", []rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("secrets"), sl("a"))},
			[]rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("secrets"), nil)}, false, []string{`{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`}},
		{"resource names covered by no names", []rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("secrets"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("secrets"), sl("a", "b"))}, true, nil},
		{"star subresource", []rbacv1.PolicyRule{pr(sl("get"), sl("apps"), sl("*/scale"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get"), sl("apps"), sl("deployments/scale"), nil)}, true, nil},
		{"non-resource prefix", []rbacv1.PolicyRule{{Verbs: sl("get"), NonResourceURLs: sl("/apis/*")}},
			[]rbacv1.PolicyRule{{Verbs: sl("get"), NonResourceURLs: sl("/apis/apps")}}, true, nil},
		{"missing verbs compacted", []rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("pods"), nil)},
			[]rbacv1.PolicyRule{pr(sl("get", "delete", "update"), sl(""), sl("pods"), nil)}, false,
			[]string{`{APIGroups:[""], Resources:["pods"], Verbs:["delete" "update"]}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, missing := Covers(tc.owner, tc.servant)
			if ok != tc.covers {
				t.Fatalf("covers = %v, want %v (missing %v)", ok, tc.covers, missing)
			}
			var got []string
			for _, m := range CompactRules(missing) {
				got = append(got, CompactString(m))
			}
			if strings.Join(got, "\n") != strings.Join(tc.missing, "\n") {
				t.Errorf("missing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.missing, "\n"))
			}
		})
	}
}

func TestForbiddenMessages(t *testing.T) {
	alice := &UserInfo{Name: "alice", Groups: []string{"dev", GroupAuthenticated}}
	for _, tc := range []struct {
		a    *Attributes
		want string
	}{
		{&Attributes{User: alice, Verb: "list", IsResourceRequest: true, Resource: "pods", Namespace: "default"},
			`pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`},
		{&Attributes{User: alice, Verb: "delete", IsResourceRequest: true, Resource: "pods", Namespace: "default", Name: "x"},
			`pods "x" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default"`},
		{&Attributes{User: alice, Verb: "list", IsResourceRequest: true, APIGroup: "apps", Resource: "deployments"},
			`deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" at the cluster scope`},
		{&Attributes{User: alice, Verb: "get", IsResourceRequest: true, Resource: "pods", Subresource: "log", Namespace: "ns", Name: "web"},
			`pods "web" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "ns"`},
		{&Attributes{User: alice, Verb: "get", Path: "/api"}, `forbidden: User "alice" cannot get path "/api"`},
	} {
		if got := errForbiddenAction(tc.a, "").Status.Message; got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// testServer is a Server on memory storage with the RBAC bootstrap policy and Node,RBAC.
func testServer(t *testing.T) *Server {
	t.Helper()
	store := storage.NewMemory(0)
	t.Cleanup(func() { store.Close() })
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	s, err := New(Config{Storage: store, AuthorizationModes: []string{ModeNode, ModeRBAC}, ServiceAccountSigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustEnsure(t *testing.T, s *Server, objs ...metav1.Object) {
	t.Helper()
	for _, o := range objs {
		if err := s.ensure(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNodeAuthorizer(t *testing.T) {
	s := testServer(t)
	ctx := context.Background()
	mustEnsure(t, s,
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-1",
			Containers: []corev1.Container{{Name: "c", Image: "busybox", EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg-mine"}}}}}},
			Volumes:    []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret-mine"}}}}}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-2",
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes:    []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret-theirs"}}}}}},
	)
	node1 := &UserInfo{Name: "system:node:node-1", Groups: []string{GroupNodes, GroupAuthenticated}}
	notNode := &UserInfo{Name: "system:node:node-1", Groups: []string{GroupAuthenticated}} // right name, wrong group
	r := func(verb, group, resource, sub, ns, name string) *Attributes {
		return &Attributes{User: node1, Verb: verb, IsResourceRequest: true, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
	}
	tests := []struct {
		a      *Attributes
		allow  bool
		reason string
	}{
		{r("get", "", "pods", "", "default", "mine"), true, ""},
		{r("get", "", "pods", "", "default", "theirs"), false, "no relationship found between node 'node-1' and this object"},
		{r("list", "", "pods", "", "", ""), false, "can only list/watch pods with spec.nodeName field selector"},
		{&Attributes{User: node1, Verb: "watch", IsResourceRequest: true, Resource: "pods", FieldSelector: "spec.nodeName=node-1"}, true, ""},
		{&Attributes{User: node1, Verb: "list", IsResourceRequest: true, Resource: "pods", FieldSelector: "spec.nodeName=node-2"}, false, "can only list/watch pods with spec.nodeName field selector"},
		{r("update", "", "pods", "status", "default", "theirs"), true, ""}, // NodeRestriction refuses it
		{r("update", "", "pods", "", "default", "mine"), false, ""},
		{r("get", "", "secrets", "", "default", "secret-mine"), true, ""},
		{r("get", "", "secrets", "", "default", "secret-theirs"), false, "no relationship found between node 'node-1' and this object"},
		{r("list", "", "secrets", "", "default", ""), false, "No Object name found"},
		{r("get", "", "configmaps", "", "default", "cfg-mine"), true, ""},
		{r("update", "", "secrets", "", "default", "secret-mine"), false, "can only read resources of this type"},
		{r("get", "", "nodes", "", "", "node-1"), true, ""},
		{r("get", "", "nodes", "", "", "node-2"), false, "node 'node-1' cannot read 'node-2', only its own Node object"},
		{r("list", "", "nodes", "", "", ""), false, "node 'node-1' cannot read all nodes, only its own Node object"},
		{r("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "node-1"), true, ""},
		{r("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "node-2"), false, "can only access node lease with the same name as the requesting node"},
		{r("get", "coordination.k8s.io", "leases", "", "default", "node-1"), false, `can only access leases in the "kube-node-lease" system namespace`},
		{r("create", "", "events", "", "default", ""), true, ""},
		{r("list", "", "services", "", "", ""), true, ""},
		{r("delete", "apps", "deployments", "", "default", "x"), false, ""},
		{&Attributes{User: notNode, Verb: "get", IsResourceRequest: true, Resource: "pods", Namespace: "default", Name: "mine"}, false, ""},
	}
	for _, tc := range tests {
		d, reason, err := s.authorize(ctx, tc.a)
		if err != nil {
			t.Fatalf("%+v: %v", *tc.a, err)
		}
		if (d == DecisionAllow) != tc.allow || reason != tc.reason {
			t.Errorf("%s %s/%s %s/%s (fieldSelector %q): allowed=%v reason=%q, want %v %q",
				tc.a.Verb, tc.a.Resource, tc.a.Subresource, tc.a.Namespace, tc.a.Name, tc.a.FieldSelector, d == DecisionAllow, reason, tc.allow, tc.reason)
		}
	}
}

func TestNodeRestriction(t *testing.T) {
	s := testServer(t)
	ctx := context.Background()
	mustEnsure(t, s,
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-2",
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}})
	node1 := &UserInfo{Name: "system:node:node-1", Groups: []string{GroupNodes, GroupAuthenticated}}
	podsRes, nodesRes := rbacResourceLookup("pods"), rbacResourceLookup("nodes")
	q := &request{res: podsRes, info: &RequestInfo{Verb: "delete", Namespace: "default", Name: "theirs"}, user: node1}
	if err := s.admitDelete(ctx, q, "default", "theirs"); err == nil || err.Error() != `pods "theirs" is forbidden: node "node-1" can only delete pods with spec.nodeName set to itself` {
		t.Errorf("delete their pod: %v", err)
	}
	old, _ := s.getObject(ctx, nodesRes, "", "node-2")
	n := metav1.DeepCopy(old.(*corev1.Node))
	n.Labels = map[string]string{"role": "db"}
	q = &request{res: nodesRes, info: &RequestInfo{Verb: "update", Name: "node-2"}, user: node1}
	if err := s.admitNodeRestriction(ctx, q, n, old); err == nil || err.Error() != `nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"` {
		t.Errorf("label another node: %v", err)
	}
	own := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"node-restriction.kubernetes.io/x": "y"}}}
	q = &request{res: nodesRes, info: &RequestInfo{Verb: "create"}, user: node1}
	if err := s.admitNodeRestriction(ctx, q, own, nil); err == nil || err.Error() != `nodes "node-1" is forbidden: node "node-1" is not allowed to set the following labels: node-restriction.kubernetes.io/x` {
		t.Errorf("restricted label: %v", err)
	}
	own.Labels = map[string]string{"kubernetes.io/hostname": "node-1", "example.com/rack": "r1"}
	if err := s.admitNodeRestriction(ctx, q, own, nil); err != nil {
		t.Errorf("own node: %v", err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-1"}}
	q = &request{res: podsRes, info: &RequestInfo{Verb: "create", Namespace: "default"}, user: node1}
	if err := s.admitNodeRestriction(ctx, q, pod, nil); err == nil || err.Error() != `pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods` {
		t.Errorf("non-mirror pod: %v", err)
	}
}

func rbacResourceLookup(resource string) *scheme.Resource { return scheme.Lookup("", "v1", resource) }

func TestServiceAccountTokens(t *testing.T) {
	s := testServer(t)
	ctx := context.Background()
	mustEnsure(t, s, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot", Namespace: "default"}})
	obj, _ := s.getObject(ctx, scheme.Lookup("", "v1", "serviceaccounts"), "default", "robot")
	sa := obj.(*corev1.ServiceAccount)
	aud := []string{DefaultServiceAccountIssuer}

	tok, _, err := s.saTokens.Issue(sa, aud, time.Hour, nil, nil, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.authenticateToken(ctx, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "system:serviceaccount:default:robot" || strings.Join(u.Groups, ",") != "system:serviceaccounts,system:serviceaccounts:default" || u.UID != sa.UID {
		t.Errorf("user = %+v", u)
	}

	expired, _, _ := s.saTokens.Issue(sa, aud, time.Hour, nil, nil, nil, time.Now().Add(-3*time.Hour))
	wrongAud, _, _ := s.saTokens.Issue(sa, []string{"vault"}, time.Hour, nil, nil, nil, time.Now())
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	forger := newServiceAccountTokens(s, Config{ServiceAccountSigningKey: other})
	forged, _, _ := forger.Issue(sa, aud, time.Hour, nil, nil, nil, time.Now())
	parts := strings.Split(tok, ".")
	tampered := parts[0] + "." + strings.TrimRight(parts[1], "A") + "A." + parts[2]
	boundToMissingPod, _, _ := s.saTokens.Issue(sa, aud, time.Hour, &tokenRef{Name: "gone", UID: "x"}, nil, nil, time.Now())
	for name, tc := range map[string]struct{ token, err string }{
		"expired":          {expired, "service account token has expired"},
		"wrong audience":   {wrongAud, `token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]`},
		"forged signature": {forged, "invalid signature"},
		"tampered payload": {tampered, ""},
		"bound to missing": {boundToMissingPod, `pods "gone" is bound to this token: pods "gone" not found`},
		"not a JWT":        {"abc", "invalid bearer token"},
	} {
		_, err := s.authenticateToken(ctx, tc.token, nil)
		if err == nil || (tc.err != "" && err.Error() != tc.err) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.err)
		}
	}
	// TokenReview with an explicit audience accepts the "vault" token.
	if u, err := s.authenticateToken(ctx, wrongAud, []string{"vault"}); err != nil || u.Name != "system:serviceaccount:default:robot" {
		t.Errorf("audience vault: %v %v", u, err)
	}
}

func TestJWTRoundTrip(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tok, err := SignJWT(key, map[string]any{"sub": "x"})
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := VerifyJWT(tok, []crypto.PublicKey{key.Public()}, &claims); err != nil || claims["sub"] != "x" {
		t.Fatalf("verify: %v %v", claims, err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err := VerifyJWT(tok, []crypto.PublicKey{other.Public()}, &claims); err == nil {
		t.Fatal("verified with the wrong key")
	}
}
