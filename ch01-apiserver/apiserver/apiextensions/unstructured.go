package apiextensions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"kubik/ch01-apiserver/api/metav1"
)

// Unstructured is one custom object. apiVersion, kind and metadata are typed,
// so the generic store, admission and the field manager treat it as they
// treat every built-in kind; every other top-level field ("spec", "status",
// or anything the schema allows) is kept as decoded JSON in Object: maps,
// slices, strings, bools, nil, and json.Number for numbers (an integer stays
// an integer). Upstream: k8s.io/apimachinery/pkg/apis/meta/v1/unstructured,
// which keeps metadata as a map too.
type Unstructured struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Object map[string]any
}

// MarshalJSON writes one JSON object: kind, apiVersion and metadata
// first, as every stored object starts (the list fast path relies on it),
// then the other members with their keys sorted.
func (u *Unstructured) MarshalJSON() ([]byte, error) {
	meta, err := json.Marshal(&u.ObjectMeta)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(u.Object)+3)
	for k := range u.Object {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	head := []string{"metadata"}
	if u.APIVersion != "" {
		head = append([]string{"apiVersion"}, head...)
	}
	if u.Kind != "" {
		head = append([]string{"kind"}, head...)
	}
	keys = append(head, keys...)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		var v []byte
		switch k {
		case "apiVersion":
			v, err = json.Marshal(u.APIVersion)
		case "kind":
			v, err = json.Marshal(u.Kind)
		case "metadata":
			v = meta
		default:
			v, err = json.Marshal(u.Object[k])
		}
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a JSON object; a non-object is an error. metadata
// is decoded straight into ObjectMeta, the other members as JSON values.
func (u *Unstructured) UnmarshalJSON(data []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		var v any
		if json.Unmarshal(data, &v) == nil {
			return fmt.Errorf("expected a JSON object, got %s", jsonType(v))
		}
		return err
	}
	if members == nil {
		return errors.New("expected a JSON object, got null")
	}
	*u = Unstructured{Object: make(map[string]any, len(members))}
	for k, raw := range members {
		switch k {
		case "apiVersion", "kind":
			var s *string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("%s must be a string", k)
			}
			if s != nil && k == "apiVersion" {
				u.APIVersion = *s
			} else if s != nil {
				u.Kind = *s
			}
		case "metadata":
			if string(bytes.TrimSpace(raw)) == "null" {
				continue
			}
			if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
				return errors.New("metadata must be an object")
			}
			if err := json.Unmarshal(raw, &u.ObjectMeta); err != nil {
				return fmt.Errorf("metadata: %v", err)
			}
		default:
			v, err := decodeJSONValue(raw)
			if err != nil {
				return err
			}
			u.Object[k] = v
		}
	}
	return nil
}

// DecodeObject decodes a JSON object with numbers as json.Number.
func DecodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %s", jsonType(v))
	}
	return m, nil
}

// Content is the whole object as a map (metadata as a map too): the form
// the schema code walks. The result shares Object's values.
func (u *Unstructured) Content() map[string]any {
	out := make(map[string]any, len(u.Object)+3)
	for k, v := range u.Object {
		out[k] = v
	}
	if u.APIVersion != "" {
		out["apiVersion"] = u.APIVersion
	}
	if u.Kind != "" {
		out["kind"] = u.Kind
	}
	b, _ := json.Marshal(&u.ObjectMeta)
	md, _ := DecodeObject(b)
	out["metadata"] = md
	return out
}

// DeepCopyJSON copies a decoded JSON value.
func DeepCopyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = DeepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopyJSON(e)
		}
		return out
	}
	return v
}

// NestedField returns the value at path (nil, false when missing).
func NestedField(obj map[string]any, path ...string) (any, bool) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// SetNestedField sets the value at path, creating the maps on the way.
func SetNestedField(obj map[string]any, value any, path ...string) error {
	m := obj
	for i, p := range path[:len(path)-1] {
		next, ok := m[p]
		if !ok || next == nil {
			nm := map[string]any{}
			m[p] = nm
			m = nm
			continue
		}
		if m, ok = next.(map[string]any); !ok {
			return fmt.Errorf("value at %v is of the type %s, expected map[string]interface{}", path[:i+1], goType(next))
		}
	}
	m[path[len(path)-1]] = value
	return nil
}

// jsonType names a decoded JSON value as go-openapi's validator does:
// "object", "array", "string", "integer", "number", "boolean", "null".
func jsonType(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case json.Number:
		if isInteger(x) {
			return "integer"
		}
		return "number"
	case float64:
		return "number"
	case int64, int:
		return "integer"
	}
	return fmt.Sprintf("%T", v)
}

// goType names a value as upstream's unstructured accessors do in their errors.
func goType(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "map[string]interface {}"
	case []any:
		return "[]interface {}"
	case json.Number:
		if isInteger(x) {
			return "int64"
		}
		return "float64"
	}
	return fmt.Sprintf("%T", v)
}

func isInteger(n json.Number) bool {
	_, err := n.Int64()
	return err == nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// ApplyShape is the Go shape server-side apply's field manager walks for a
// custom object: typed metadata, spec and status as maps (upstream deduces
// the shape from the structural schema; nested objects are maps here).
type ApplyShape struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            map[string]any    `json:"spec,omitempty"`
	Status          map[string]any    `json:"status,omitempty"`
}
