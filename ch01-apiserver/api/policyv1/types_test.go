package policyv1

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// roundTrip decodes doc strictly into v, encodes it again and checks that
// nothing was lost or added: our JSON names and omitempty choices are the
// server's.
func roundTrip(t *testing.T, doc []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode: %v", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(doc, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("re-encoded JSON differs:\nwant %s\n got %s", doc, out)
	}
}

const pdb = `{"kind":"PodDisruptionBudget","apiVersion":"policy/v1",
 "metadata":{"name":"nginx","namespace":"default","uid":"3c2b1a00-0000-4000-8000-000000000001","resourceVersion":"700","generation":1,"creationTimestamp":"2026-11-30T02:30:00Z"},
 "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"nginx"}}},
 "status":{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":2,"desiredHealthy":1,"expectedPods":2,
  "conditions":[{"type":"DisruptionAllowed","status":"True","observedGeneration":1,"lastTransitionTime":"2026-11-30T02:30:01Z","reason":"SufficientPods","message":""}]}}`

// The body kubectl drain posts to pods/web/eviction.
const eviction = `{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"web","namespace":"default"},"deleteOptions":{"gracePeriodSeconds":30}}`

func TestPodDisruptionBudgetRoundTrip(t *testing.T) {
	var p PodDisruptionBudget
	roundTrip(t, []byte(pdb), &p)
	if p.Spec.MinAvailable.IntVal != 1 || p.Status.Conditions[0].Type != DisruptionAllowedCondition {
		t.Errorf("decoded %+v", p)
	}
}

func TestEvictionRoundTrip(t *testing.T) {
	var e Eviction
	roundTrip(t, []byte(eviction), &e)
	if e.Name != "web" || *e.DeleteOptions.GracePeriodSeconds != 30 {
		t.Errorf("decoded %+v", e)
	}
}
