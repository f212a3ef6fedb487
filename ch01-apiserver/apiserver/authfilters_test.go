package apiserver

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/storage"
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

// TestAnonymousAuth: without credentials a request is system:anonymous,
// judged by the authorizers, unless --anonymous-auth=false or an
// AlwaysAllow authorizer (upstream then resets AnonymousAuth to false):
// then every path, the health checks included, answers 401.
func TestAnonymousAuth(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        Config
		healthz    int
		api        int
		apiMessage string
	}{
		{"default", Config{AuthorizationModes: []string{auth.ModeNode, auth.ModeRBAC}}, 200, 403,
			`forbidden: User "system:anonymous" cannot get path "/api"`},
		{"anonymous-auth=false", Config{AuthorizationModes: []string{auth.ModeRBAC}, DisableAnonymous: true}, 401, 401, "Unauthorized"},
		{"AlwaysAllow", Config{AuthorizationModes: []string{auth.ModeAlwaysAllow}}, 401, 401, "Unauthorized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := storage.NewMemory(0)
			t.Cleanup(func() { store.Close() })
			tc.cfg.Storage = store
			tc.cfg.Logger = slog.New(slog.DiscardHandler)
			s, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Bootstrap(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				path, message string
				code          int
			}{{"/healthz", "", tc.healthz}, {"/api", tc.apiMessage, tc.api}} {
				w := httptest.NewRecorder()
				s.Handler().ServeHTTP(w, httptest.NewRequest("GET", c.path, nil))
				if w.Code != c.code || (c.message != "" && !strings.Contains(w.Body.String(), `"message":"`+strings.ReplaceAll(c.message, `"`, `\"`)+`"`)) {
					t.Errorf("GET %s: %d %s, want %d %s", c.path, w.Code, w.Body, c.code, c.message)
				}
			}
		})
	}
}

// TestPrettyPrint: curl, Wget and browsers get indented JSON, as from
// upstream (measured: the same bytes for a Status); ?pretty decides first.
// Compact answers end with a newline (json.Encoder's), indented ones do not
// (json.MarshalIndent's); /version is indented for everyone.
func TestPrettyPrint(t *testing.T) {
	store := storage.NewMemory(0)
	t.Cleanup(func() { store.Close() })
	s, err := New(Config{Storage: store, AuthorizationModes: []string{auth.ModeRBAC}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	const compact = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"system:anonymous\" cannot get path \"/api\"","reason":"Forbidden","details":{},"code":403}` + "\n"
	const indented = "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n" +
		"  \"message\": \"forbidden: User \\\"system:anonymous\\\" cannot get path \\\"/api\\\"\",\n  \"reason\": \"Forbidden\",\n  \"details\": {},\n  \"code\": 403\n}"
	for _, tc := range []struct{ ua, query, want string }{
		{"curl/7.88.1", "", indented},
		{"Wget/1.21", "", indented},
		{"Mozilla/5.0 (X11)", "", indented},
		{"Go-http-client/1.1", "", compact},
		{"kubectl/v1.33.0", "?pretty=true", indented},
		{"curl/7.88.1", "?pretty=false", compact},
	} {
		r := httptest.NewRequest("GET", "/api"+tc.query, nil)
		r.Header.Set("User-Agent", tc.ua)
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, r)
		if got := w.Body.String(); w.Code != 403 || got != tc.want {
			t.Errorf("%s %s: %d\n%q\nwant\n%q", tc.ua, tc.query, w.Code, got, tc.want)
		}
	}
	r := httptest.NewRequest("GET", "/version", nil)
	r.Header.Set("User-Agent", "Go-http-client/1.1")
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	if got := w.Body.String(); w.Code != 200 || !strings.HasPrefix(got, "{\n  \"major\": \"1\",\n") || !strings.HasSuffix(got, "\"\n}") {
		t.Errorf("/version: %d\n%s\nwant upstream's indented JSON without a final newline", w.Code, got)
	}
}

// TestAuditID: every answer carries an Audit-Id, the client's own when it
// sent one (upstream's WithAuditInit).
func TestAuditID(t *testing.T) {
	s := testServer(t)
	ids := map[string]bool{}
	for _, sent := range []string{"", "", "my-request-1"} {
		r := httptest.NewRequest("GET", "/version", nil)
		if sent != "" {
			r.Header.Set("Audit-ID", sent)
		}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, r)
		got := w.Header().Get("Audit-Id")
		if got == "" || ids[got] || (sent != "" && got != sent) {
			t.Fatalf("sent Audit-ID %q: got %q (seen %v)", sent, got, ids)
		}
		ids[got] = true
	}
}
