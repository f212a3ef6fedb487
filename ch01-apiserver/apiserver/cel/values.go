package cel

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"
)

// NativeValue converts a decoded JSON value (maps, slices, strings,
// bools, nil and json.Number) into the Go values cel-go's default type
// adapter turns into CEL values, guided by the schema: integers become
// int64 and numbers float64, format date-time strings time.Time, format
// duration strings time.Duration, format byte strings []byte. A string
// its format does not parse stays a string (schema validation reports it).
// Upstream wraps the value lazily (UnstructuredToVal); converting up front
// is simpler and the object is bounded by the request size.
func NativeValue(x any, s Schema) any { return nativeValue(x, s, 0) }

func nativeValue(x any, s Schema, depth int) any {
	if depth > maxTypeDepth {
		return nil
	}
	switch v := x.(type) {
	case json.Number:
		if s != nil && s.Type() == "number" {
			f, _ := v.Float64()
			return f
		}
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case string:
		if s == nil || s.IsXIntOrString() {
			return v
		}
		switch s.Format() {
		case "date-time":
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return t
			}
		case "duration":
			if d, err := time.ParseDuration(v); err == nil {
				return d
			}
		case "byte":
			if b, err := base64.StdEncoding.DecodeString(v); err == nil {
				return b
			}
		}
		return v
	case []any:
		var items Schema
		if s != nil {
			items = s.Items()
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = nativeValue(e, items, depth+1)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			name := k
			if s != nil && s.Properties()[k] != nil {
				// Object fields are reached by their escaped names.
				var ok bool
				if name, ok = Escape(k); !ok {
					continue
				}
			}
			out[name] = nativeValue(e, childSchema(s, k), depth+1)
		}
		return out
	}
	return x
}

// childSchema is the schema of the member k of an object or map node.
func childSchema(s Schema, k string) Schema {
	if s == nil {
		return nil
	}
	if p, ok := s.Properties()[k]; ok {
		return p
	}
	return s.AdditionalProperties()
}
