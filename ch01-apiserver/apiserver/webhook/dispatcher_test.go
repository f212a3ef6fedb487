package webhook

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/admissionv1"
)

func testDispatcher(validating, mutating []*hook) *Dispatcher {
	s := &Source{vhooks: validating, mhooks: mutating}
	return NewDispatcher(s, Hooks{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func configMapHook(name, url string, fp admissionregistrationv1.FailurePolicyType, se admissionregistrationv1.SideEffectClass) *hook {
	rules := []admissionregistrationv1.RuleWithOperations{rule([]admissionregistrationv1.OperationType{"*"}, []string{""}, []string{"v1"}, []string{"configmaps"}, "*")}
	cc := admissionregistrationv1.WebhookClientConfig{}
	if url != "" {
		cc.URL = &url
	} else {
		cc.Service = &admissionregistrationv1.ServiceReference{Name: "hook", Namespace: "default"}
	}
	return newHook("c", 0, name, cc, rules, &fp, nil, nil, nil, &se, nil, nil, nil)
}

func TestFailurePolicyAndDryRun(t *testing.T) {
	a := func(dryRun bool) *Attributes {
		return &Attributes{Kind: admissionv1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Resource: admissionv1.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Name: "x", Namespace: "default",
			Operation: admissionv1.Create, Object: []byte(`{"metadata":{"name":"x"}}`), DryRun: dryRun}
	}
	// Port 1 on loopback: nothing listens there.
	for _, tc := range []struct {
		hook *hook
		dry  bool
		want string
	}{
		{configMapHook("fail.x.y", "https://127.0.0.1:1", admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone), false,
			`Internal error occurred: failed calling webhook "fail.x.y": failed to call webhook: Post "https://127.0.0.1:1/?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`},
		{configMapHook("ignore.x.y", "https://127.0.0.1:1/p", admissionregistrationv1.Ignore, admissionregistrationv1.SideEffectClassNone), false, ""},
		{configMapHook("svc.x.y", "", admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone), false,
			`Internal error occurred: failed calling webhook "svc.x.y": failed to call webhook: Post "https://hook.default.svc:443/?timeout=10s": service "hook" not found`},
		{configMapHook("some.x.y", "https://127.0.0.1:1", admissionregistrationv1.Ignore, admissionregistrationv1.SideEffectClassSome), true,
			`admission webhook "some.x.y" does not support dry run`},
	} {
		for _, mutating := range []bool{false, true} {
			var err error
			if mutating {
				_, err = testDispatcher(nil, []*hook{tc.hook}).Admit(context.Background(), a(tc.dry))
			} else {
				err = testDispatcher([]*hook{tc.hook}, nil).Validate(context.Background(), a(tc.dry))
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("%s (mutating %v): %q, want %q", tc.hook.name, mutating, got, tc.want)
			}
		}
	}
}
