package autoscalingv1

import (
	"bytes"
	"encoding/json"
	"os"
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

func TestScaleRoundTrip(t *testing.T) {
	doc, err := os.ReadFile("testdata/scale-nginx.json")
	if err != nil {
		t.Fatal(err)
	}
	var s Scale
	roundTrip(t, doc, &s)
	if s.Spec.Replicas != 2 || s.Status.Replicas != 2 || s.Status.Selector != "app=nginx" {
		t.Errorf("decoded %+v", s)
	}
}
