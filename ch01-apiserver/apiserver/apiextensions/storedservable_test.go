package apiextensions

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
)

func TestScanMembers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // key=raw;… or "!" when refused
	}{
		{`{}`, ""},
		{` { "a" : 1 , "b":"x,}\"y" ,"c":{"d":[1,{"e":"]"}]},"f":true,"g":null}`, `a=1;b="x,}\"y";c={"d":[1,{"e":"]"}]};f=true;g=null;`},
		{`{"a":1}trailing`, "a=1;"},
		{`[]`, "!"},
		{`{"a":1`, "!"},
		{`{"a" 1}`, "!"},
		{`{"a":"unterminated}`, "!"},
		{`{"a":{"b":1}`, "!"},
		{`{"\u0061":1}`, "!"},
		{``, "!"},
	} {
		var got strings.Builder
		ok := scanMembers([]byte(tc.in), func(k string, raw []byte) bool {
			got.WriteString(k + "=" + string(raw) + ";")
			return true
		})
		if !ok {
			got.Reset()
			got.WriteString("!")
		}
		if got.String() != tc.want {
			t.Errorf("scanMembers(%s) = %s, want %s", tc.in, got.String(), tc.want)
		}
	}
}

// TestStoredServable: a stored object is served as it is exactly when
// reading (defaulting) it again would change nothing.
func TestStoredServable(t *testing.T) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(`{"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
"names":{"plural":"widgets","kind":"Widget"},"versions":[
{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
"spec":{"type":"object","properties":{"replicas":{"type":"integer","default":1},"ports":{"type":"array","items":{"type":"object","properties":{"protocol":{"type":"string","default":"TCP"}}}}}},
"status":{"type":"object"}}}}},
{"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`), &crd); err != nil {
		t.Fatal(err)
	}
	served := BuildServed(&crd)
	var v1, v2 *Served
	for _, s := range served {
		if s.Version.Name == "v1" {
			v1 = s
		} else {
			v2 = s
		}
	}
	for _, tc := range []struct {
		stored string
		want   bool
	}{
		{`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"},"spec":{"replicas":2,"ports":[{"protocol":"UDP"}]}}`, true},
		{`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"},"spec":{"replicas":2},"status":{"x":1}}`, true},
		{`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"},"spec":{"ports":[{"protocol":"UDP"}]}}`, false},
		{`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"},"spec":{"replicas":2,"ports":[{}]}}`, false},
		{`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"},"spec":{"replicas":null}}`, false},
		{`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"}}`, true}, // spec itself has no default
		{`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"},"spec":{"replicas":2`, false},
	} {
		if got := v1.StoredServable([]byte(tc.stored)); got != tc.want {
			t.Errorf("v1 StoredServable(%s) = %v, want %v", tc.stored, got, tc.want)
		}
	}
	if !v1.ServesStored() || v2.ServesStored() || v2.StoredServable([]byte(`{}`)) {
		t.Errorf("ServesStored: v1 %v, v2 %v; want only the storage version", v1.ServesStored(), v2.ServesStored())
	}
}

// FuzzScanMembers: any input ends without a panic; on a JSON object with
// plain keys the members found are json.Unmarshal's, values compacted equal.
func FuzzScanMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[1,{"c":"]}"}],"d":"\\\""}`, `{"a":`, `[1]`, `{"a":1}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := map[string]string{}
		ok := scanMembers(data, func(k string, raw []byte) bool { got[k] = string(raw); return true })
		var want map[string]json.RawMessage
		if !ok || json.Unmarshal(data, &want) != nil || strings.Contains(string(data), `\`) {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%s: members %v, want %v", data, got, want)
		}
		for k, v := range want {
			var a, b bytes.Buffer
			if json.Compact(&a, v) != nil || json.Compact(&b, []byte(got[k])) != nil || a.String() != b.String() {
				t.Fatalf("%s: member %q = %s, want %s", data, k, got[k], v)
			}
		}
	})
}
