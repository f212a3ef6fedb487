package coordinationv1

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

// A node heartbeat lease as a real server returns it.
const nodeLease = `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1",
 "metadata":{"name":"node-1","namespace":"kube-node-lease","uid":"0b8f5d3e-8a51-4c0e-9f5a-3d1c2b4a5e6f","resourceVersion":"512","creationTimestamp":"2026-11-30T02:10:00Z",
  "ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"node-1","uid":"5f3c1a2b-7d4e-4f60-8a9b-0c1d2e3f4a5b"}]},
 "spec":{"holderIdentity":"node-1","leaseDurationSeconds":40,"renewTime":"2026-11-30T02:14:21.123456Z"}}`

func TestLeaseRoundTrip(t *testing.T) {
	var l Lease
	roundTrip(t, []byte(nodeLease), &l)
	if *l.Spec.HolderIdentity != "node-1" || l.Spec.RenewTime.Nanosecond() != 123456000 {
		t.Errorf("decoded %+v", l.Spec)
	}
}
