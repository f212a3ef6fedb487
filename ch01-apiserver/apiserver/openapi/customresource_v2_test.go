package openapi

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestToStructuralOpenAPIV2: the cases of upstream's
// pkg/controller/openapi/v2 conversion test, on the decoded JSON.
func TestToStructuralOpenAPIV2(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"nil", `null`, `null`},
		{"junctors dropped",
			`{"type":"string","allOf":[{"pattern":"a"}],"anyOf":[{"enum":["x"]}],"oneOf":[{"enum":["y"]}],"not":{"enum":["z"]},"pattern":"b"}`,
			`{"type":"string","pattern":"b"}`},
		{"nullable loses type, items and properties",
			`{"type":"object","nullable":true,"description":"d","properties":{"a":{"type":"string"}}}`,
			`{"description":"d"}`},
		{"nullable array",
			`{"type":"array","nullable":true,"items":{"type":"string"}}`,
			`{}`},
		{"preserve unknown fields object",
			`{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"string"}}}`,
			`{"x-kubernetes-preserve-unknown-fields":true}`},
		{"preserve unknown fields array",
			`{"type":"array","x-kubernetes-preserve-unknown-fields":true,"items":{"type":"string"}}`,
			`{"x-kubernetes-preserve-unknown-fields":true}`},
		{"array without items",
			`{"type":"array"}`,
			`{}`},
		{"nullable properties are not required",
			`{"type":"object","required":["a","b","c"],"properties":{"a":{"type":"string","nullable":true},"b":{"type":"string"},"c":{"type":"integer","nullable":true}}}`,
			`{"type":"object","required":["b"],"properties":{"a":{},"b":{"type":"string"},"c":{}}}`},
		{"all required fields nullable",
			`{"type":"object","required":["a"],"properties":{"a":{"type":"string","nullable":true}}}`,
			`{"type":"object","properties":{"a":{}}}`},
		{"nullable additionalProperties drops required",
			`{"type":"object","required":["a"],"additionalProperties":{"type":"string","nullable":true}}`,
			`{"type":"object","additionalProperties":{}}`},
		{"int-or-string keeps its extension",
			`{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}`,
			`{"x-kubernetes-int-or-string":true}`},
		{"defaults pruned, nested",
			`{"type":"object","properties":{"s":{"type":"object","default":{},"properties":{"n":{"type":"integer","default":1,"minimum":0}}}}}`,
			`{"type":"object","properties":{"s":{"type":"object","properties":{"n":{"type":"integer","minimum":0}}}}}`},
		{"items converted",
			`{"type":"array","items":{"type":"object","nullable":true,"properties":{"a":{"type":"string"}}}}`,
			`{"type":"array","items":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in, want map[string]any
			if err := json.Unmarshal([]byte(tt.in), &in); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			before := string(mustJSON(in))
			got := ToStructuralOpenAPIV2(in)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %s\nwant %s", mustJSON(got), mustJSON(want))
			}
			if after := string(mustJSON(in)); after != before {
				t.Errorf("input changed: %s", after)
			}
		})
	}
}

// TestToStructuralOpenAPIV2Deep: a schema nested past the bound is cut,
// not followed.
func TestToStructuralOpenAPIV2Deep(t *testing.T) {
	s := map[string]any{"type": "string"}
	for range 10 * maxSchemaDepth {
		s = map[string]any{"type": "object", "properties": map[string]any{"a": s}}
	}
	out := ToStructuralOpenAPIV2(s)
	depth := 0
	for p, ok := out["properties"].(map[string]any); ok; p, ok = out["properties"].(map[string]any) {
		out = p["a"].(map[string]any)
		depth++
	}
	if depth != maxSchemaDepth {
		t.Errorf("depth %d, want %d", depth, maxSchemaDepth)
	}
	_ = encodeV2Schema(s, 0)
}
