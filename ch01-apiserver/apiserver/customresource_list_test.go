package apiserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

// TestCustomResourceListSameAsGet: a list of custom objects whose schema
// has defaults writes the stored bytes of the objects the defaults change
// nothing in, and decodes and defaults the others; either way each item is
// byte for byte what a GET of the object answers. A default added to the
// schema after the objects were written shows in the list. A create
// answers with what a GET then shows.
func TestCustomResourceListSameAsGet(t *testing.T) {
	s := startBenchServer(t)
	s.createNamespace(t, "bench")
	s.installBenchCRD(t)
	for i := range 3 {
		created := s.mustDo(t, http.MethodPost, benchWidgets, benchWidgetJSON(fmt.Sprintf("w-%d", i)), http.StatusCreated)
		// The create answers with what a read shows (the defaults applied).
		if got := s.mustDo(t, http.MethodGet, fmt.Sprintf("%s/w-%d", benchWidgets, i), nil, http.StatusOK); !bytes.Equal(created, got) || !strings.Contains(string(got), `"replicas":1`) {
			t.Errorf("create answered\n%s\nGET:\n%s", created, got)
		}
	}
	s.mustDo(t, http.MethodPost, benchWidgets, []byte(`{"apiVersion":"bench.example.com/v1","kind":"Widget","metadata":{"name":"odd","annotations":{"a":"<&>"}},"spec":{"replicas":3,"key":"\u2028\"}"}}`), http.StatusCreated)
	check := func(want string) {
		t.Helper()
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(s.mustDo(t, http.MethodGet, benchWidgets, nil, http.StatusOK), &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 4 {
			t.Fatalf("%d items, want 4", len(list.Items))
		}
		for _, item := range list.Items {
			var meta struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			json.Unmarshal(item, &meta)
			got := s.mustDo(t, http.MethodGet, benchWidgets+"/"+meta.Metadata.Name, nil, http.StatusOK)
			if !bytes.Equal(item, bytes.TrimSuffix(got, []byte("\n"))) {
				t.Errorf("list item:\n%s\nGET:\n%s", item, got)
			}
			if !strings.Contains(string(item), want) {
				t.Errorf("list item %s: no %s", item, want)
			}
		}
	}
	check(`"replicas":`)

	// A default added later: stored objects lack it, reads show it.
	crdPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.bench.example.com"
	var crd map[string]any
	if err := json.Unmarshal(s.mustDo(t, http.MethodGet, crdPath, nil, http.StatusOK), &crd); err != nil {
		t.Fatal(err)
	}
	props := crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
	props["size"] = map[string]any{"type": "string", "default": "M"}
	body, _ := json.Marshal(crd)
	s.mustDo(t, http.MethodPut, crdPath, body, http.StatusOK)
	testenv.Eventually(t, "the new default served", 30*time.Second, func() (string, bool) {
		got := string(s.mustDo(t, http.MethodGet, benchWidgets+"/w-0", nil, http.StatusOK))
		return got, strings.Contains(got, `"size":"M"`)
	})
	check(`"size":"M"`)
}
