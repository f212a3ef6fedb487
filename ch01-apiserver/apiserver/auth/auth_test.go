package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestTokenFileAndBearerToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte("# token,user,uid,groups\ns3cr3t-bob,bob,1001,\"dev,ops\"\nt-alice,alice,1002\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tf, err := NewTokenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	authn := Union{X509Authenticator{}, BearerToken{Tokens: TokenUnion{tf}}}
	request := func(header string) *http.Request {
		r := httptest.NewRequest("GET", "/api", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		return r
	}
	u, ok, err := authn.AuthenticateRequest(request("Bearer s3cr3t-bob"))
	if err != nil || !ok || u.Name != "bob" || u.UID != "1001" || !reflect.DeepEqual(u.Groups, []string{"dev", "ops", GroupAuthenticated}) {
		t.Errorf("bob: %+v %v %v", u, ok, err)
	}
	// The file's user is not changed by what a request adds.
	if u, _, _ := authn.AuthenticateRequest(request("bearer s3cr3t-bob")); !reflect.DeepEqual(u.Groups, []string{"dev", "ops", GroupAuthenticated}) {
		t.Errorf("bob again: %v", u.Groups)
	}
	if _, ok, err := authn.AuthenticateRequest(request("")); ok || err != nil {
		t.Errorf("no credentials: ok=%v err=%v, want not mine", ok, err)
	}
	if _, _, err := authn.AuthenticateRequest(request("Bearer wrong")); err == nil || err.Error() != "invalid bearer token" {
		t.Errorf("unknown token: %v", err)
	}

	for content, want := range map[string]string{
		"tok,user\n":             "line 1: token, user and uid are required",
		"a,u,1\nb,v,2\na,w,3\n":  "line 3: duplicate token",
		"a,\"unterminated,u,1\n": "extraneous or missing \" in quoted-field",
	} {
		bad := filepath.Join(t.TempDir(), "bad.csv")
		os.WriteFile(bad, []byte(content), 0o600)
		if _, err := NewTokenFile(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", content, err, want)
		}
	}
}

// fixed answers d with reason for every request.
type fixed struct {
	d      Decision
	reason string
}

func (f fixed) Authorize(context.Context, *Attributes) (Decision, string, error) {
	return f.d, f.reason, nil
}

func TestChain(t *testing.T) {
	ctx := context.Background()
	alice := &Attributes{User: &UserInfo{Name: "alice", Groups: []string{GroupAuthenticated}}, Verb: "get", Path: "/metrics"}
	admin := &Attributes{User: &UserInfo{Name: "admin", Groups: []string{GroupMasters}}, Verb: "get", Path: "/metrics"}

	c := Chain{fixed{DecisionNoOpinion, "first"}, fixed{DecisionNoOpinion, ""}, fixed{DecisionNoOpinion, "third"}}
	if d, reason, err := c.Authorize(ctx, alice); d != DecisionNoOpinion || reason != "first, third" || err != nil {
		t.Errorf("no opinions: %v %q %v", d, reason, err)
	}
	if !c.Allowed(ctx, admin) {
		t.Error("system:masters is not allowed")
	}
	c = Chain{fixed{DecisionNoOpinion, "first"}, AlwaysDeny{}, AlwaysAllow{}}
	if d, reason, _ := c.Authorize(ctx, alice); d != DecisionDeny || reason != "Everything is forbidden." {
		t.Errorf("deny: %v %q", d, reason)
	}
	// An authorizer that cannot list rules makes SelfSubjectRulesReview incomplete.
	if rules, incomplete, err := c.RulesFor(ctx, alice.User, "default"); len(rules) != 2 || !incomplete || err != nil {
		t.Errorf("rules: %v %v %v", rules, incomplete, err)
	}

	node, rbac := fixed{DecisionNoOpinion, "node"}, fixed{DecisionNoOpinion, "rbac"}
	if c, err := NewChain(nil, node, rbac); err != nil || !reflect.DeepEqual(c, Chain{AlwaysAllow{}}) {
		t.Errorf("default chain: %v %v", c, err)
	}
	if c, err := NewChain([]string{ModeNode, ModeRBAC}, node, rbac); err != nil || !reflect.DeepEqual(c, Chain{node, rbac}) {
		t.Errorf("Node,RBAC: %v %v", c, err)
	}
	for modes, want := range map[string]string{
		"RBAC,Node,RBAC": `authorization-mode "RBAC,Node,RBAC" has mode specified more than once`,
		"ABAC":           `unknown authorization mode "ABAC" (supported: AlwaysAllow, AlwaysDeny, Node, RBAC)`,
	} {
		if _, err := NewChain(strings.Split(modes, ","), node, rbac); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", modes, err, want)
		}
	}
}

func TestImpersonation(t *testing.T) {
	if _, ok := ImpersonationFrom(http.Header{"Authorization": {"Bearer x"}}); ok {
		t.Error("impersonation without Impersonate-* headers")
	}
	actor := &UserInfo{Name: "admin"}
	describe := func(checks []*Attributes) string {
		var out []string
		for _, a := range checks {
			if a.User != actor || a.Verb != "impersonate" || !a.IsResourceRequest {
				t.Errorf("check %+v: not an impersonate action of the actor", *a)
			}
			out = append(out, fmt.Sprintf("%s/%s/%s %s/%s", a.APIGroup, a.Resource, a.Subresource, a.Namespace, a.Name))
		}
		return strings.Join(out, "; ")
	}

	h := http.Header{}
	h.Set("Impersonate-User", "alice")
	h.Add("Impersonate-Group", "dev")
	h.Add("Impersonate-Group", "ops")
	h.Set("Impersonate-Uid", "42")
	h.Set("Impersonate-Extra-Scopes%2Fa", "view")
	im, ok := ImpersonationFrom(h)
	if !ok {
		t.Fatal("no impersonation")
	}
	if got, want := describe(im.Checks(actor)), "/users/ /alice; /groups/ /dev; /groups/ /ops; authentication.k8s.io/uids/ /42; authentication.k8s.io/userextras/scopes/a /view"; got != want {
		t.Errorf("checks:\n got %s\nwant %s", got, want)
	}
	if u := im.UserInfo(); !reflect.DeepEqual(u, &UserInfo{Name: "alice", UID: "42", Groups: []string{"dev", "ops", GroupAuthenticated},
		Extra: map[string][]string{"scopes/a": {"view"}}}) {
		t.Errorf("user: %+v", u)
	}

	h = http.Header{}
	h.Set("Impersonate-User", "system:serviceaccount:default:robot")
	im, _ = ImpersonationFrom(h)
	if got, want := describe(im.Checks(actor)), "/serviceaccounts/ default/robot"; got != want {
		t.Errorf("service account checks: %s, want %s", got, want)
	}
	if u := im.UserInfo(); !reflect.DeepEqual(u.Groups, []string{GroupServiceAccounts, GroupServiceAccounts + ":default", GroupAuthenticated}) {
		t.Errorf("service account groups: %v", u.Groups)
	}

	h = http.Header{}
	h.Set("Impersonate-User", UserAnonymous)
	im, _ = ImpersonationFrom(h)
	if u := im.UserInfo(); !reflect.DeepEqual(u.Groups, []string{GroupUnauthenticated}) {
		t.Errorf("anonymous groups: %v", u.Groups)
	}
}
