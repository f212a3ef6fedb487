package openapi

import (
	"encoding/json"
	"testing"
)

func mustParseV2(t *testing.T, doc, prefix string) V2CustomResources {
	t.Helper()
	s, err := ParseV2([]byte(doc), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseV2Filters: only the group version's paths stay, with the
// definitions they reach (through other definitions too); a definition
// only a dropped path used goes, one nothing used stays.
func TestParseV2Filters(t *testing.T) {
	s := mustParseV2(t, `{"swagger":"2.0","paths":{
		"/apis/a.io/v1/things":{"get":{"responses":{"200":{"schema":{"$ref":"#/definitions/a.ThingList"}}}}},
		"/apis/a.io/v1":{"get":{"responses":{"200":{"schema":{"$ref":"#/definitions/meta.APIResourceList"}}}}},
		"/version/":{"get":{"responses":{"200":{"schema":{"$ref":"#/definitions/version.Info"}}}}}},
		"definitions":{
		"a.ThingList":{"properties":{"items":{"type":"array","items":{"$ref":"#/definitions/a.Thing"}}}},
		"a.Thing":{"type":"object"},
		"meta.APIResourceList":{"type":"object"},
		"version.Info":{"type":"object"},
		"unused":{"type":"string"}}}`, "/apis/a.io/v1/")
	if got, want := compactJSON(t, s.Paths), `{"/apis/a.io/v1/things":{"get":{"responses":{"200":{"schema":{"$ref":"#/definitions/a.ThingList"}}}}}}`; got != want {
		t.Errorf("paths:\n%s\nwant\n%s", got, want)
	}
	if got, want := compactJSON(t, sortedKeys(s.Definitions)), `["a.Thing","a.ThingList","unused"]`; got != want {
		t.Errorf("definitions %s, want %s", got, want)
	}
	if _, err := ParseV2([]byte(`{"openapi":"3.0.0"}`), ""); err == nil || err.Error() != `not an OpenAPI v2 document: swagger ""` {
		t.Errorf("a v3 document: %v", err)
	}
	if _, err := ParseV2([]byte(`{"swagger":"2.0","paths":[]}`), ""); err == nil {
		t.Error("paths as an array: no error")
	}
}

// TestMergeV2: upstream's rules — a path already there stays (and the
// definitions only it used are left out); an equal definition is shared
// and its group-version-kinds joined; a different one is renamed _v2, and
// the source's references follow.
func TestMergeV2(t *testing.T) {
	dest := V2CustomResources{
		Paths: map[string]any{"/apis/x.io/v1/xs": map[string]any{"get": map[string]any{"operationId": "local"}}},
		Definitions: map[string]any{
			"meta.Status": map[string]any{"type": "object", "x-kubernetes-group-version-kind": []any{
				map[string]any{"group": "", "kind": "Status", "version": "v1"}}},
			"meta.ObjectMeta": map[string]any{"type": "object", "description": "local"},
		},
	}
	src := mustParseV2(t, `{"swagger":"2.0","paths":{
		"/apis/x.io/v1/xs":{"get":{"operationId":"remote","responses":{"200":{"schema":{"$ref":"#/definitions/only.Conflicting"}}}}},
		"/apis/b.io/v1/bs":{"get":{"parameters":[{"$ref":"#/parameters/body"}],"responses":{"200":{"schema":{"$ref":"#/definitions/b.B"}}}}}},
		"parameters":{"body":{"name":"body","in":"body"}},
		"definitions":{
		"b.B":{"properties":{"metadata":{"$ref":"#/definitions/meta.ObjectMeta"},"status":{"$ref":"#/definitions/meta.Status"}}},
		"meta.ObjectMeta":{"type":"object","description":"remote"},
		"meta.Status":{"type":"object","x-kubernetes-group-version-kind":[{"group":"b.io","kind":"Status","version":"v1"}]},
		"only.Conflicting":{"type":"object"}}}`, "/apis/")
	MergeV2(&dest, src)
	if got, want := compactJSON(t, dest.Paths), `{"/apis/b.io/v1/bs":{"get":{"parameters":[{"$ref":"#/parameters/body"}],"responses":{"200":{"schema":{"$ref":"#/definitions/b.B"}}}}},"/apis/x.io/v1/xs":{"get":{"operationId":"local"}}}`; got != want {
		t.Errorf("paths:\n%s\nwant\n%s", got, want)
	}
	want := `{"b.B":{"properties":{"metadata":{"$ref":"#/definitions/meta.ObjectMeta_v2"},"status":{"$ref":"#/definitions/meta.Status"}}},` +
		`"meta.ObjectMeta":{"description":"local","type":"object"},"meta.ObjectMeta_v2":{"description":"remote","type":"object"},` +
		`"meta.Status":{"type":"object","x-kubernetes-group-version-kind":[{"group":"","kind":"Status","version":"v1"},{"group":"b.io","kind":"Status","version":"v1"}]}}`
	if got := compactJSON(t, dest.Definitions); got != want {
		t.Errorf("definitions:\n%s\nwant\n%s", got, want)
	}
	if got, want := compactJSON(t, dest.Parameters), `{"body":{"in":"body","name":"body"}}`; got != want {
		t.Errorf("parameters %s, want %s", got, want)
	}

	// A third document: its ObjectMeta, equal to the renamed one, reuses
	// meta.ObjectMeta_v2; its different b.B becomes b.B_v2.
	third := mustParseV2(t, `{"swagger":"2.0","paths":{"/apis/c.io/v1/cs":{"get":{"responses":{"200":{"schema":{"$ref":"#/definitions/c.C"}}}}}},
		"definitions":{"c.C":{"properties":{"m":{"$ref":"#/definitions/meta.ObjectMeta"},"p":{"$ref":"#/definitions/b.B"}}},
		"meta.ObjectMeta":{"type":"object","description":"remote"},"b.B":{"type":"string"}}}`, "/apis/")
	MergeV2(&dest, third)
	if got, want := compactJSON(t, dest.Definitions["c.C"]), `{"properties":{"m":{"$ref":"#/definitions/meta.ObjectMeta_v2"},"p":{"$ref":"#/definitions/b.B_v2"}}}`; got != want {
		t.Errorf("c.C: %s, want %s", got, want)
	}
	if got, want := compactJSON(t, sortedKeys(dest.Definitions)), `["b.B","b.B_v2","c.C","meta.ObjectMeta","meta.ObjectMeta_v2","meta.Status"]`; got != want {
		t.Errorf("definitions %s, want %s", got, want)
	}
}
