// Package apitest holds what the API types' tests share.
package apitest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// RoundTrip decodes doc strictly into v, encodes it again and checks that
// nothing was lost or added: our JSON names and omitempty choices are the
// server's.
func RoundTrip(t testing.TB, doc []byte, v any) {
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
