package webhook

import (
	"context"
	"testing"

	"kubik/ch01-apiserver/api/admissionv1"
	"kubik/ch01-apiserver/api/authenticationv1"
)

// TestMatchConditionsCEL: a false condition skips the webhook even when
// another fails; all true calls it; a failure without a false one is an
// error in upstream's words; object, oldObject and request are there.
func TestMatchConditionsCEL(t *testing.T) {
	a := &Attributes{
		Kind:      admissionv1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource:  admissionv1.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:      "cm",
		Namespace: "default",
		Operation: admissionv1.Create,
		Object:    []byte(`{"metadata":{"name":"cm","labels":{"team":"a"}},"data":{"n":"1"}}`),
		UserInfo:  authenticationv1.UserInfo{Username: "alice", Groups: []string{"devs"}},
	}
	m := &MatchConditionsCEL{}
	for _, c := range []struct {
		name  string
		exprs []string
		want  bool
		err   string
	}{
		{"all true", []string{`object.metadata.labels.team == 'a'`, `request.userInfo.username == 'alice'`, `oldObject == null`}, true, ""},
		{"one false", []string{`request.operation == 'UPDATE'`}, false, ""},
		{"false wins over an error", []string{`object.nope == 1`, `'devs' in request.userInfo.groups && false`}, false, ""},
		{"an error", []string{`object.nope == 1`}, false, `expression 'object.nope == 1' resulted in error: no such key: nope`},
		{"two errors", []string{`object.nope == 1`, `object.data.n > 1`}, false,
			`[expression 'object.nope == 1' resulted in error: no such key: nope, expression 'object.data.n > 1' resulted in error: no such overload]`},
		{"namespace and kind", []string{`request.namespace == 'default' && request.kind.kind == 'ConfigMap' && request.resource.resource == 'configmaps'`}, true, ""},
	} {
		var conds []MatchCondition
		for i, e := range c.exprs {
			conds = append(conds, MatchCondition{Name: string(rune('a' + i)), Expression: e})
		}
		got, err := m.Match(context.Background(), a, "w.example.com", conds)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != c.want || gotErr != c.err {
			t.Errorf("%s: %v %q, want %v %q", c.name, got, gotErr, c.want, c.err)
		}
	}
}

func TestMatchConditionsFailedIsForbidden(t *testing.T) {
	a := &Attributes{Resource: admissionv1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Name: "web"}
	err := matchConditionsFailed(a, errTest("boom"))
	if err.Status.Code != 403 || err.Status.Message != `deployments.apps "web" is forbidden: boom` {
		t.Errorf("%d %s", err.Status.Code, err.Status.Message)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }
