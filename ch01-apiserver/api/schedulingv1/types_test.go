package schedulingv1

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

const nodeCritical = `{"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1",
 "metadata":{"name":"system-node-critical","uid":"7a1b2c3d-0000-4000-8000-000000000001","resourceVersion":"74","generation":1,"creationTimestamp":"2026-11-30T02:10:00Z"},
 "value":2000001000,"description":"Used for system critical pods that must not be moved from their current node.","preemptionPolicy":"PreemptLowerPriority"}`

func TestPriorityClassRoundTrip(t *testing.T) {
	var pc PriorityClass
	roundTrip(t, []byte(nodeCritical), &pc)
	sys := SystemPriorityClasses()
	if pc.Name != sys[0].Name || pc.Value != sys[0].Value || pc.Description != sys[0].Description {
		t.Errorf("decoded %+v, built-in %+v", pc, sys[0])
	}
	if SystemCriticalPriority != 2000000000 || sys[1].Name != SystemClusterCritical || sys[1].Value != 2000000000 {
		t.Errorf("built-in classes %+v", sys[1])
	}
}
