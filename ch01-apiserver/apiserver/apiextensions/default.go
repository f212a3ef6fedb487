package apiextensions

import (
	"bytes"
	"encoding/json"
	"errors"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
)

// Defaulting sets the schema's defaults of missing fields, on every write
// (after decoding) and every read (a default added to the schema later shows
// on objects stored before). A field that is null where the schema says it is
// not nullable gets its default too. Upstream:
// pkg/apiserver/schema/defaulting/algorithm.go.

// Default applies s's defaults to obj in place.
func Default(obj map[string]any, s *apiextensionsv1.JSONSchemaProps) {
	defaultValue(obj, s, 0)
}

// defaultValue applies s's defaults to x; changed says whether it set any.
func defaultValue(x any, s *apiextensionsv1.JSONSchemaProps, depth int) (changed bool) {
	if s == nil || depth > maxSchemaDepth {
		return false
	}
	switch t := x.(type) {
	case map[string]any:
		for _, k := range sortedSchemaKeys(s.Properties) {
			prop := s.Properties[k]
			if prop.Default == nil {
				continue
			}
			if v, found := t[k]; !found || (v == nil && !prop.Nullable) {
				if d, err := decodeJSONValue(prop.Default.Raw); err == nil {
					t[k] = d
					changed = true
				}
			}
		}
		for k, v := range t {
			if prop, ok := s.Properties[k]; ok {
				changed = defaultValue(v, &prop, depth+1) || changed
			} else if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
				changed = defaultValue(v, ap.Schema, depth+1) || changed
			}
		}
	case []any:
		if s.Items == nil || s.Items.Schema == nil {
			return false
		}
		for i, e := range t {
			if e == nil && s.Items.Schema.Default != nil && !s.Items.Schema.Nullable {
				if d, err := decodeJSONValue(s.Items.Schema.Default.Raw); err == nil {
					t[i] = d
					e = d
					changed = true
				}
			}
			changed = defaultValue(e, s.Items.Schema, depth+1) || changed
		}
	}
	return changed
}

// decodeJSONValue decodes any JSON value, numbers as json.Number.
func decodeJSONValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}
