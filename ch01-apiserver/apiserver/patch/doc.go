// Package patch applies the bodies of PATCH requests: JSON merge patch
// (RFC 7386), JSON patch (RFC 6902), strategic merge patch driven by the
// patchStrategy/patchMergeKey tags of our API types, and server-side apply
// with metadata.managedFields.
//
// Everything works on generic JSON values (map[string]any, []any,
// json.Number, string, bool, nil); the apiserver decodes the result into the
// typed object afterwards, strictly, so unknown fields are judged there.
//
// Upstream: github.com/evanphx/json-patch (v4, as vendored by Kubernetes),
// k8s.io/apimachinery/pkg/util/strategicpatch and sigs.k8s.io/structured-merge-diff.
package patch

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// decode parses JSON keeping numbers as json.Number, so 80 stays 80 and big
// integers keep their digits.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return v, nil
}

// deepCopy copies a generic JSON value.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// equal compares generic JSON values; numbers compare by value.
func equal(a, b any) bool {
	if an, ok := a.(json.Number); ok {
		if bn, ok := b.(json.Number); ok {
			if an == bn {
				return true
			}
			af, err1 := an.Float64()
			bf, err2 := bn.Float64()
			return err1 == nil && err2 == nil && af == bf
		}
		return false
	}
	switch a.(type) {
	case map[string]any, []any:
		return reflect.DeepEqual(a, b)
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

// scalarKey turns a scalar into a comparable map key; maps and lists (which
// upstream would panic on) get a key that never matches a scalar.
func scalarKey(v any) any {
	switch v := v.(type) {
	case map[string]any, []any:
		b, _ := json.Marshal(v)
		return struct{ s string }{string(b)}
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return f
		}
	}
	return v
}
