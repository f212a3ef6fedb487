package apiserver_test

import (
	"net/http"
	"testing"
)

func TestTables(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	pods := "/api/v1/namespaces/" + ns + "/pods"
	c.post(t, pods, pod("p1", nil)).must(t, http.StatusCreated)
	c.post(t, pods, pod("p2", nil)).must(t, http.StatusCreated)
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

	tb := c.get(t, pods, "Accept", table).must(t, http.StatusOK)
	equal(t, "kind", tb.str("kind"), "Table")
	equal(t, "apiVersion", tb.str("apiVersion"), "meta.k8s.io/v1")
	var cols []string
	for _, cd := range tb.list("columnDefinitions") {
		cols = append(cols, cd.(map[string]any)["name"].(string))
	}
	equal(t, "columns", cols, []string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"})
	equal(t, "rows", len(tb.list("rows")), 2)
	equal(t, "cells", tb.list("rows.0.cells")[:4], []any{"p1", "0/1", "Pending", "0"})
	equal(t, "default row object", tb.str("rows.0.object.kind"), "PartialObjectMetadata")
	equal(t, "row object name", tb.str("rows.0.object.metadata.name"), "p1")
	if tb.str("metadata.resourceVersion") == "" {
		t.Fatal("Table without resourceVersion")
	}

	tb = c.get(t, pods+"?includeObject=Object", "Accept", table).must(t, http.StatusOK)
	equal(t, "row object", tb.str("rows.0.object.kind"), "Pod")
	equal(t, "row object spec", tb.str("rows.0.object.spec.containers.0.name"), "app")
	tb = c.get(t, pods+"?includeObject=None", "Accept", table).must(t, http.StatusOK)
	if o := tb.path("rows.0.object"); o != nil {
		t.Fatalf("includeObject=None: row object %v", o)
	}

	// One object as a one-row Table.
	tb = c.get(t, pods+"/p2", "Accept", table).must(t, http.StatusOK)
	equal(t, "kind", tb.str("kind"), "Table")
	equal(t, "rows", len(tb.list("rows")), 1)
	// Without the Table Accept: the list itself.
	equal(t, "kind", c.get(t, pods, "Accept", "application/json").must(t, http.StatusOK).str("kind"), "PodList")
}
