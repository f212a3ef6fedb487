package apiserver_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"kubik/ch01-apiserver/storage"
)

func TestWatchInitialAndLiveEvents(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	c.post(t, cms, configMap("a", nil, nil)).must(t, http.StatusCreated)
	c.post(t, cms, configMap("b", nil, nil)).must(t, http.StatusCreated)

	// No resourceVersion: ADDED for what exists, then changes.
	w := c.watch(t, cms+"?watch=true")
	w.expect(t, "ADDED", "a")
	w.expect(t, "ADDED", "b")
	c.post(t, cms, configMap("c", nil, nil)).must(t, http.StatusCreated)
	w.expect(t, "ADDED", "c")
	o := c.patch(t, cms+"/a", "application/merge-patch+json", `{"data":{"k":"v"}}`).must(t, http.StatusOK)
	ev := w.expect(t, "MODIFIED", "a")
	equal(t, "event resourceVersion", ev.Object.str("metadata.resourceVersion"), o.str("metadata.resourceVersion"))
	equal(t, "event kind", ev.Object.str("kind"), "ConfigMap")
	c.del(t, cms+"/b", nil).must(t, http.StatusOK)
	w.expect(t, "DELETED", "b")

	// From a resourceVersion: only what came later, in order.
	w2 := c.watch(t, cms+"?watch=true&resourceVersion="+o.str("metadata.resourceVersion"))
	w2.expect(t, "DELETED", "b")
	c.post(t, cms, configMap("d", nil, nil)).must(t, http.StatusCreated)
	w2.expect(t, "ADDED", "d")
	w.expect(t, "ADDED", "d")
	w2.expectQuiet(t, 100*time.Millisecond)

	// The legacy /watch/ path and a watch of one object by name.
	w3 := c.watch(t, "/api/v1/watch/namespaces/"+ns+"/configmaps/c")
	w3.expect(t, "ADDED", "c")
	c.patch(t, cms+"/d", "application/merge-patch+json", `{"data":{"k":"v"}}`).must(t, http.StatusOK)
	c.patch(t, cms+"/c", "application/merge-patch+json", `{"data":{"k":"v"}}`).must(t, http.StatusOK)
	w3.expect(t, "MODIFIED", "c")
}

func TestWatchLabelSelectorTransitions(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	o := c.post(t, cms, configMap("x", nil, map[string]string{"app": "web"})).must(t, http.StatusCreated)
	w := c.watch(t, cms+"?watch=true&labelSelector=app%3Dweb&resourceVersion="+o.str("metadata.resourceVersion"))

	// Stops matching: DELETED, carrying the last state that matched at the new resourceVersion.
	o = c.patch(t, cms+"/x", "application/merge-patch+json", `{"metadata":{"labels":{"app":"db"}}}`).must(t, http.StatusOK)
	ev := w.expect(t, "DELETED", "x")
	equal(t, "DELETED resourceVersion", ev.Object.str("metadata.resourceVersion"), o.str("metadata.resourceVersion"))
	// Changes while not matching are not seen.
	c.patch(t, cms+"/x", "application/merge-patch+json", `{"data":{"a":"b"}}`).must(t, http.StatusOK)
	// Starts matching: ADDED.
	c.patch(t, cms+"/x", "application/merge-patch+json", `{"metadata":{"labels":{"app":"web"}}}`).must(t, http.StatusOK)
	ev = w.expect(t, "ADDED", "x")
	equal(t, "label", ev.Object.str("metadata.labels.app"), "web")
	c.post(t, cms, configMap("other", nil, map[string]string{"app": "db"})).must(t, http.StatusCreated)
	w.expectQuiet(t, 100*time.Millisecond)
}

func TestWatchTable(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	pods := "/api/v1/namespaces/" + ns + "/pods"
	c.post(t, pods, pod("p1", nil)).must(t, http.StatusCreated)
	w := c.watch(t, pods+"?watch=true", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	ev := w.next(t)
	equal(t, "type", ev.Type, "ADDED")
	equal(t, "kind", ev.Object.str("kind"), "Table")
	equal(t, "first column", ev.Object.str("columnDefinitions.0.name"), "Name")
	equal(t, "row", ev.Object.path("rows.0.cells.0"), "p1")
	c.post(t, pods, pod("p2", nil)).must(t, http.StatusCreated)
	ev = w.next(t)
	equal(t, "kind", ev.Object.str("kind"), "Table")
	if v, ok := ev.Object["columnDefinitions"]; !ok || v != nil {
		t.Fatalf("later events carry columnDefinitions: null, got %v (present %v)", v, ok)
	}
	equal(t, "row", ev.Object.path("rows.0.cells.0"), "p2")
}

func TestWatchTimeout(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	start := time.Now()
	w := c.watch(t, "/api/v1/namespaces/"+ns+"/configmaps?watch=true&timeoutSeconds=1")
	select {
	case _, ok := <-w.events:
		if ok {
			t.Fatal("unexpected event")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not end after timeoutSeconds=1")
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("the watch ended after %v", d)
	}
}

func TestWatchTooOldAndTooNew(t *testing.T) {
	c := newCluster(t, storage.NewMemory(5))
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	first := c.post(t, cms, configMap("a", nil, nil)).must(t, http.StatusCreated)
	for i := 0; i < 10; i++ {
		c.post(t, cms, configMap(fmt.Sprintf("b%d", i), nil, nil)).must(t, http.StatusCreated)
	}
	rv, _ := strconv.ParseInt(first.str("metadata.resourceVersion"), 10, 64)
	cur, _ := strconv.ParseInt(c.get(t, cms).must(t, http.StatusOK).str("metadata.resourceVersion"), 10, 64)
	w := c.watch(t, cms+"?watch=true&resourceVersion="+strconv.FormatInt(rv, 10))
	ev := w.next(t)
	equal(t, "type", ev.Type, "ERROR")
	jsonEqual(t, "ERROR object", ev.Object, fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"too old resource version: %d (%d)","reason":"Expired","code":410}`, rv, cur))

	w = c.watch(t, cms+"?watch=true&resourceVersion="+strconv.FormatInt(cur+100, 10))
	ev = w.next(t)
	equal(t, "type", ev.Type, "ERROR")
	equal(t, "code", ev.Object.num("code"), int64(504))
	equal(t, "message", ev.Object.str("message"), fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", cur+100, cur))
}

func TestWatchBookmarks(t *testing.T) {
	c := shared // TestMain lowered the bookmark interval to 200ms
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	o := c.post(t, cms, configMap("a", nil, nil)).must(t, http.StatusCreated)
	rv := o.str("metadata.resourceVersion")

	w := c.watch(t, cms+"?watch=true&allowWatchBookmarks=true&resourceVersion="+rv)
	ev := w.next(t)
	equal(t, "type", ev.Type, "BOOKMARK")
	equal(t, "kind", ev.Object.str("kind"), "ConfigMap")
	equal(t, "apiVersion", ev.Object.str("apiVersion"), "v1")
	if r, _ := strconv.ParseInt(ev.Object.str("metadata.resourceVersion"), 10, 64); r < 1 {
		t.Fatalf("bookmark resourceVersion %q", ev.Object.str("metadata.resourceVersion"))
	}
	// Without allowWatchBookmarks: none.
	w2 := c.watch(t, cms+"?watch=true&resourceVersion="+rv)
	w2.expectQuietStrict(t, 500*time.Millisecond)

	// A streaming list: initial events, then a bookmark marking their end.
	w3 := c.watch(t, cms+"?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan")
	w3.expect(t, "ADDED", "a")
	ev = w3.next(t)
	equal(t, "type", ev.Type, "BOOKMARK")
	equal(t, "annotations", ev.Object.path("metadata.annotations"), map[string]any{"k8s.io/initial-events-end": "true"})
	list := c.get(t, cms).must(t, http.StatusOK)
	equal(t, "bookmark resourceVersion", ev.Object.str("metadata.resourceVersion"), list.str("metadata.resourceVersion"))
}

// expectQuietStrict checks that nothing at all (not even a bookmark) arrives.
func (w *watcher) expectQuietStrict(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case ev, ok := <-w.events:
		if ok {
			t.Fatalf("unexpected %s event", ev.Type)
		}
	case <-time.After(d):
	}
}
