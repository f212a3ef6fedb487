package apiserver_test

// Optimistic concurrency through the HTTP API: a PUT carrying a
// resourceVersion succeeds only if nobody wrote the object since; otherwise
// 409 Conflict and the client reads again and retries. No update is lost.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"kubik/ch01-apiserver/api/metav1"
)

// TestHTTPConcurrentReadModifyWrite: 50 clients each increment a counter in a
// ConfigMap 10 times with GET + PUT(resourceVersion), retrying on 409.
func TestHTTPConcurrentReadModifyWrite(t *testing.T) {
	const workers, increments = 50, 10
	s := startBenchServer(t)
	s.createNamespace(t, "race")
	s.mustDo(t, http.MethodPost, "/api/v1/namespaces/race/configmaps",
		[]byte(`{"metadata":{"name":"counter"},"data":{"n":"0"}}`), http.StatusCreated)
	const path = "/api/v1/namespaces/race/configmaps/counter"

	ctx := context.Background()
	increment := func() (conflicts int, err error) {
		for {
			code, body, err := s.do(ctx, http.MethodGet, path, nil)
			if err != nil || code != http.StatusOK {
				return conflicts, fmt.Errorf("get: %d %v %s", code, err, body)
			}
			var cm map[string]any
			if err := json.Unmarshal(body, &cm); err != nil {
				return conflicts, err
			}
			data := cm["data"].(map[string]any)
			n, err := strconv.Atoi(data["n"].(string))
			if err != nil {
				return conflicts, err
			}
			data["n"] = strconv.Itoa(n + 1)
			body, _ = json.Marshal(cm) // metadata.resourceVersion as read: the precondition
			code, body, err = s.do(ctx, http.MethodPut, path, body)
			switch {
			case err != nil:
				return conflicts, err
			case code == http.StatusConflict:
				conflicts++
				continue
			case code != http.StatusOK:
				return conflicts, fmt.Errorf("put: %d %s", code, body)
			}
			return conflicts, nil
		}
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var totalConflicts int
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range increments {
				c, err := increment()
				mu.Lock()
				totalConflicts += c
				mu.Unlock()
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(s.mustDo(t, http.MethodGet, path, nil, http.StatusOK), &cm); err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(workers * increments); cm.Data["n"] != want {
		t.Fatalf("counter = %s after %s increments: updates were lost", cm.Data["n"], want)
	}
	t.Logf("%d increments, %d conflicts retried", workers*increments, totalConflicts)
}

// TestHTTPStaleResourceVersionConflict: a PUT with a resourceVersion that is
// no longer current gets upstream's 409.
func TestHTTPStaleResourceVersionConflict(t *testing.T) {
	s := startBenchServer(t)
	s.createNamespace(t, "stale")
	const path = "/api/v1/namespaces/stale/configmaps/x"
	created := s.mustDo(t, http.MethodPost, "/api/v1/namespaces/stale/configmaps",
		[]byte(`{"metadata":{"name":"x"},"data":{"k":"v1"}}`), http.StatusCreated)
	var cm map[string]any
	if err := json.Unmarshal(created, &cm); err != nil {
		t.Fatal(err)
	}
	// Someone else updates x first, with the resourceVersion it read...
	cm["data"] = map[string]any{"k": "v2"}
	first, _ := json.Marshal(cm)
	s.mustDo(t, http.MethodPut, path, first, http.StatusOK)
	// ...so the same resourceVersion is stale for the second writer.
	cm["data"] = map[string]any{"k": "v3"}
	second, _ := json.Marshal(cm)
	body := s.mustDo(t, http.MethodPut, path, second, http.StatusConflict)

	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	const want = `Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again`
	if st.Kind != "Status" || st.Status != metav1.StatusFailure || st.Code != http.StatusConflict ||
		st.Reason != metav1.StatusReasonConflict || st.Message != want {
		t.Fatalf("got %s\nwant kind Status, status Failure, code 409, reason Conflict, message %q", body, want)
	}
	if st.Details == nil || st.Details.Name != "x" || st.Details.Kind != "configmaps" {
		t.Errorf("details = %+v, want name x, kind configmaps", st.Details)
	}
	// The stale write changed nothing.
	var got struct {
		Data map[string]string `json:"data"`
	}
	json.Unmarshal(s.mustDo(t, http.MethodGet, path, nil, http.StatusOK), &got)
	if got.Data["k"] != "v2" {
		t.Errorf("after the refused PUT data.k = %q, want v2", got.Data["k"])
	}
}
