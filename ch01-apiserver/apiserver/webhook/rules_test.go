package webhook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/admissionv1"
	"kubik/ch01-apiserver/api/metav1"
)

func rule(ops []admissionregistrationv1.OperationType, groups, versions, resources []string, scope admissionregistrationv1.ScopeType) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{Operations: ops,
		Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources, Scope: &scope}}
}

func TestMatchRules(t *testing.T) {
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	all := []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	pods := admissionv1.GroupVersionResource{Version: "v1", Resource: "pods"}
	nss := admissionv1.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	for _, tc := range []struct {
		name string
		rule admissionregistrationv1.RuleWithOperations
		attr Attributes
		want bool
	}{
		{"exact", rule(create, []string{""}, []string{"v1"}, []string{"pods"}, "*"), Attributes{Resource: pods, Operation: admissionv1.Create, Namespace: "a"}, true},
		{"other operation", rule(create, []string{""}, []string{"v1"}, []string{"pods"}, "*"), Attributes{Resource: pods, Operation: admissionv1.Update, Namespace: "a"}, false},
		{"wildcard operation", rule(all, []string{"*"}, []string{"*"}, []string{"*"}, "*"), Attributes{Resource: pods, Operation: admissionv1.Delete, Namespace: "a"}, true},
		{"* is main resources only", rule(all, []string{"*"}, []string{"*"}, []string{"*"}, "*"), Attributes{Resource: pods, Subresource: "status", Operation: admissionv1.Update, Namespace: "a"}, false},
		{"pods/* matches subresources", rule(all, []string{""}, []string{"v1"}, []string{"pods/*"}, "*"), Attributes{Resource: pods, Subresource: "status", Operation: admissionv1.Update, Namespace: "a"}, true},
		{"pods/* matches pods too", rule(all, []string{""}, []string{"v1"}, []string{"pods/*"}, "*"), Attributes{Resource: pods, Operation: admissionv1.Update, Namespace: "a"}, true},
		{"*/status", rule(all, []string{"*"}, []string{"*"}, []string{"*/status"}, "*"), Attributes{Resource: pods, Subresource: "status", Operation: admissionv1.Update, Namespace: "a"}, true},
		{"other group", rule(all, []string{"apps"}, []string{"v1"}, []string{"pods"}, "*"), Attributes{Resource: pods, Operation: admissionv1.Create, Namespace: "a"}, false},
		{"namespaced scope", rule(all, []string{""}, []string{"v1"}, []string{"*"}, "Namespaced"), Attributes{Resource: pods, Operation: admissionv1.Create, Namespace: "a"}, true},
		{"cluster scope refuses namespaced", rule(all, []string{""}, []string{"v1"}, []string{"*"}, "Cluster"), Attributes{Resource: pods, Operation: admissionv1.Create, Namespace: "a"}, false},
		{"a namespace is cluster-scoped", rule(all, []string{""}, []string{"v1"}, []string{"*"}, "Cluster"), Attributes{Resource: nss, Operation: admissionv1.Create, Namespace: "a"}, true},
		{"a namespace is not namespaced", rule(all, []string{""}, []string{"v1"}, []string{"*"}, "Namespaced"), Attributes{Resource: nss, Operation: admissionv1.Create, Namespace: "a"}, false},
	} {
		if got := matchRules([]admissionregistrationv1.RuleWithOperations{tc.rule}, &tc.attr, tc.attr.Resource); got != tc.want {
			t.Errorf("%s: matchRules = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestShouldCallSelectorsAndEquivalent(t *testing.T) {
	exact := admissionregistrationv1.Exact
	rules := []admissionregistrationv1.RuleWithOperations{rule([]admissionregistrationv1.OperationType{"*"}, []string{"autoscaling"}, []string{"v2"}, []string{"horizontalpodautoscalers"}, "*")}
	ns := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	obj := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	h := newHook("c", 0, "a.b.c", admissionregistrationv1.WebhookClientConfig{}, rules, nil, nil, ns, obj, nil, nil, nil, nil)
	hooks := &Hooks{NamespaceLabels: func(_ context.Context, name string) (map[string]string, error) {
		return map[string]string{"env": name}, nil
	}}
	v1 := admissionv1.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	v2 := admissionv1.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	web := []byte(`{"metadata":{"labels":{"app":"web"}}}`)
	other := []byte(`{"metadata":{"labels":{"app":"db"}}}`)
	for _, tc := range []struct {
		name string
		attr Attributes
		want bool
	}{
		{"all match", Attributes{Resource: v2, Operation: admissionv1.Create, Namespace: "prod", Object: web}, true},
		{"namespace labels differ", Attributes{Resource: v2, Operation: admissionv1.Create, Namespace: "dev", Object: web}, false},
		{"object labels differ", Attributes{Resource: v2, Operation: admissionv1.Create, Namespace: "prod", Object: other}, false},
		{"old object matches", Attributes{Resource: v2, Operation: admissionv1.Update, Namespace: "prod", Object: other, OldObject: web}, true},
		{"equivalent version", Attributes{Resource: v1, Operation: admissionv1.Create, Namespace: "prod", Object: web, Equivalent: []admissionv1.GroupVersionResource{v2}}, true},
	} {
		inv, err := shouldCall(context.Background(), h, &tc.attr, hooks)
		if err != nil || (inv != nil) != tc.want {
			t.Errorf("%s: shouldCall = %v, %v; want call %v", tc.name, inv, err, tc.want)
		}
	}
	h.matchPolicy = exact
	a := Attributes{Resource: v1, Operation: admissionv1.Create, Namespace: "prod", Object: web, Equivalent: []admissionv1.GroupVersionResource{v2}}
	if inv, _ := shouldCall(context.Background(), h, &a, hooks); inv != nil {
		t.Errorf("matchPolicy Exact matched another version")
	}
	// A namespace is matched by its own labels on create.
	nsHook := newHook("c", 0, "a.b.c", admissionregistrationv1.WebhookClientConfig{},
		[]admissionregistrationv1.RuleWithOperations{rule([]admissionregistrationv1.OperationType{"*"}, []string{""}, []string{"v1"}, []string{"namespaces"}, "*")},
		nil, nil, ns, nil, nil, nil, nil, nil)
	nsAttr := Attributes{Resource: admissionv1.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Operation: admissionv1.Create,
		Name: "x", Namespace: "x", Object: []byte(`{"metadata":{"name":"x","labels":{"env":"prod"}}}`)}
	if inv, err := shouldCall(context.Background(), nsHook, &nsAttr, hooks); inv == nil || err != nil {
		t.Errorf("a namespace with matching labels was not selected: %v", err)
	}
	// Webhook configurations are never sent to webhooks.
	if !isExempt(&Attributes{Resource: admissionv1.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}}) {
		t.Errorf("validatingwebhookconfigurations are not exempt")
	}
}

func TestReviewWireFormat(t *testing.T) {
	a := &Attributes{Kind: admissionv1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: admissionv1.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: "p", Namespace: "default",
		Operation: admissionv1.Create, Object: []byte(`{"kind":"Pod"}`), Options: []byte(`{"kind":"CreateOptions"}`)}
	review := newReview("u-1", a, &invocation{resource: a.Resource})
	data, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u-1","kind":{"group":"","version":"v1","kind":"Pod"},` +
		`"resource":{"group":"","version":"v1","resource":"pods"},"requestKind":{"group":"","version":"v1","kind":"Pod"},` +
		`"requestResource":{"group":"","version":"v1","resource":"pods"},"name":"p","namespace":"default","operation":"CREATE",` +
		`"userInfo":{},"object":{"kind":"Pod"},"oldObject":null,"dryRun":false,"options":{"kind":"CreateOptions"}}}`
	if string(data) != want {
		t.Errorf("review:\n%s\nwant:\n%s", data, want)
	}
	for _, tc := range []struct {
		body     string
		mutating bool
		err      string
	}{
		{`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, true, "webhook response was absent"},
		{`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x"}}`, true, `expected response.uid="u-1", got "x"`},
		{`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"u-1"}}`, true, "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview"},
		{`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","patch":"W10="}}`, true, "webhook returned response.patch but not response.patchType"},
		{`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","patch":"W10=","patchType":"JSONPatch"}}`, false, "validating webhook may not return response.patchType"},
		{`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":true}}`, false, ""},
	} {
		var r admissionv1.AdmissionReview
		if err := json.Unmarshal([]byte(tc.body), &r); err != nil {
			t.Fatal(err)
		}
		_, err := verifyResponse("u-1", tc.mutating, &r)
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.err {
				t.Errorf("verifyResponse(%s) = %q, want %q", tc.body, got, tc.err)
			}
		} else if tc.err != "" {
			t.Errorf("verifyResponse(%s) passed, want %q", tc.body, tc.err)
		}
	}
}

func TestToStatusErr(t *testing.T) {
	for _, tc := range []struct {
		in   *metav1.Status
		code int32
		msg  string
	}{
		{nil, 400, `admission webhook "w.x.y" denied the request without explanation`},
		{&metav1.Status{Code: 403, Message: "no"}, 403, `admission webhook "w.x.y" denied the request: no`},
		{&metav1.Status{Code: 200, Reason: "Why"}, 400, `admission webhook "w.x.y" denied the request: Why`},
	} {
		se := toStatusErr("w.x.y", tc.in)
		if se.Status.Code != tc.code || se.Status.Message != tc.msg || se.Status.Status != metav1.StatusFailure {
			t.Errorf("toStatusErr(%+v) = %+v", tc.in, se.Status)
		}
	}
	if got := (&callError{WebhookName: "w", Reason: nil}).Error(); !strings.Contains(got, "no further details available") {
		t.Errorf("callError without reason: %q", got)
	}
}
