package validatingadmissionpolicystatus

import (
	"encoding/json"
	"testing"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

// A new policy gets its type checking warnings and observedGeneration by
// one status apply; a second sync of the same generation writes nothing;
// a fixed expression (a new generation) clears the warnings.
func TestTypeCheckingStatus(t *testing.T) {
	env := controllertest.New(t)
	c, err := NewController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	if err := json.Unmarshal([]byte(`{"metadata":{"name":"replicas"},"spec":{
		"matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}]},
		"validations":[{"expression":"object.spec.replicass <= 5"}]}}`), p); err != nil {
		t.Fatal(err)
	}
	created, err := rest.Create(env.Ctx, env.Admin, p)
	if err != nil {
		t.Fatal(err)
	}
	sync := func(generation int64) *admissionregistrationv1.ValidatingAdmissionPolicy {
		t.Helper()
		controllertest.Eventually(t, "the policy cached", func() bool {
			got, ok := c.policies.GetStore().Get("", "replicas")
			return ok && got.Generation == generation
		})
		env.ClearActions()
		if err := c.reconcile(env.Ctx, "replicas"); err != nil {
			t.Fatal(err)
		}
		env.ExpectWrites(t, "patch validatingadmissionpolicies/status replicas")
		got, err := rest.Get[admissionregistrationv1.ValidatingAdmissionPolicy](env.Ctx, env.Admin, "", "replicas")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := sync(1)
	status, _ := json.Marshal(got.Status)
	want := `{"observedGeneration":1,"typeChecking":{"expressionWarnings":[{"fieldRef":"spec.validations[0].expression",` +
		`"warning":"apps/v1, Kind=Deployment: ERROR: \u003cinput\u003e:1:12: undefined field 'replicass'\n | object.spec.replicass \u003c= 5\n | ...........^\n"}]}}`
	if string(status) != want {
		t.Fatalf("status:\n got %s\nwant %s", status, want)
	}

	controllertest.Eventually(t, "the status cached", func() bool {
		p, ok := c.policies.GetStore().Get("", "replicas")
		return ok && p.Status.ObservedGeneration == 1
	})
	env.ClearActions()
	if err := c.reconcile(env.Ctx, "replicas"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t)

	got.Spec.Validations[0].Expression = "object.spec.replicas <= 5"
	if _, err := rest.Update(env.Ctx, env.Admin, got); err != nil {
		t.Fatal(err)
	}
	_ = created
	got = sync(2)
	if status, _ := json.Marshal(got.Status); string(status) != `{"observedGeneration":2,"typeChecking":{}}` {
		t.Fatalf("status after the fix: %s", status)
	}
}
