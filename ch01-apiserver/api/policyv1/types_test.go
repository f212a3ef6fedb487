package policyv1

import (
	"testing"

	"kubik/internal/apitest"
)

const pdb = `{"kind":"PodDisruptionBudget","apiVersion":"policy/v1",
 "metadata":{"name":"nginx","namespace":"default","uid":"3c2b1a00-0000-4000-8000-000000000001","resourceVersion":"700","generation":1,"creationTimestamp":"2026-11-30T02:30:00Z"},
 "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"nginx"}}},
 "status":{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":2,"desiredHealthy":1,"expectedPods":2,
  "conditions":[{"type":"DisruptionAllowed","status":"True","observedGeneration":1,"lastTransitionTime":"2026-11-30T02:30:01Z","reason":"SufficientPods","message":""}]}}`

// The body kubectl drain posts to pods/web/eviction.
const eviction = `{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"web","namespace":"default"},"deleteOptions":{"gracePeriodSeconds":30}}`

func TestPodDisruptionBudgetRoundTrip(t *testing.T) {
	var p PodDisruptionBudget
	apitest.RoundTrip(t, []byte(pdb), &p)
	if p.Spec.MinAvailable.IntVal != 1 || p.Status.Conditions[0].Type != DisruptionAllowedCondition {
		t.Errorf("decoded %+v", p)
	}
}

func TestEvictionRoundTrip(t *testing.T) {
	var e Eviction
	apitest.RoundTrip(t, []byte(eviction), &e)
	if e.Name != "web" || *e.DeleteOptions.GracePeriodSeconds != 30 {
		t.Errorf("decoded %+v", e)
	}
}
