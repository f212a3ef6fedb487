package apiserver_test

import (
	"net/http"
	"testing"
)

// TestEviction follows upstream's EvictionREST case by case; every answer
// was compared with kube-apiserver v1.35.4's.
func TestEviction(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	pods := "/api/v1/namespaces/" + ns + "/pods/"
	pdbs := "/apis/policy/v1/namespaces/" + ns + "/poddisruptionbudgets/"
	evict := func(name, query string, body any) response {
		if body == nil {
			body = obj{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": obj{"name": name}}
		}
		return c.post(t, pods+name+"/eviction"+query, body)
	}
	running := func(name string) {
		c.post(t, "/api/v1/namespaces/"+ns+"/pods", pod(name, map[string]string{"app": "ev"})).must(t, http.StatusCreated)
		c.patch(t, pods+name+"/status", "application/merge-patch+json",
			`{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`).must(t, http.StatusOK)
	}
	success := func(r response) {
		t.Helper()
		o := r.must(t, http.StatusCreated)
		if o.str("kind") != "Status" || o.str("status") != "Success" || o.num("code") != int64(201) {
			t.Errorf("not a Success Status: %s", r.body)
		}
	}
	gone := func(name string) {
		t.Helper()
		c.get(t, pods+name).expectError(t, http.StatusNotFound, "NotFound", `pods "`+name+`" not found`)
	}

	evict("missing", "", nil).expectError(t, http.StatusNotFound, "NotFound", `pods "missing" not found`)
	c.post(t, "/api/v1/namespaces/"+ns+"/pods", pod("pending", map[string]string{"app": "ev"})).must(t, http.StatusCreated)
	evict("pending", "", obj{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": obj{"name": "other"}}).
		expectError(t, http.StatusBadRequest, "BadRequest", "name in URL does not match name in Eviction object")
	evict("pending", "", obj{"apiVersion": "v1", "kind": "Pod", "metadata": obj{"name": "pending"}}).
		expectError(t, http.StatusBadRequest, "BadRequest", `Pod in version "v1" cannot be handled as a Eviction: converting (v1.Pod) to (policy.Eviction): unknown conversion`)
	evict("pending", "?dryRun=All", obj{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": obj{"name": "pending"},
		"deleteOptions": obj{"dryRun": []string{"x"}}}).
		expectError(t, http.StatusBadRequest, "BadRequest", "Non-matching dry-run options in request and content: [All] and [x]")
	// A pending pod is no disruption, whatever the budgets: deleted.
	success(evict("pending", "", nil))
	gone("pending")

	// A running pod that no budget selects.
	running("free")
	success(evict("free", "", obj{"apiVersion": "policy/v1beta1", "kind": "Eviction", "metadata": obj{"name": "free"}}))
	gone("free")

	// A budget whose status the disruption controller has not computed yet.
	running("guarded")
	c.post(t, pdbs, obj{"metadata": obj{"name": "pdb"}, "spec": obj{"minAvailable": 1, "selector": obj{"matchLabels": obj{"app": "ev"}}}}).must(t, http.StatusCreated)
	st := evict("guarded", "", nil).expectError(t, http.StatusTooManyRequests, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.")
	jsonEqual(t, "details", st.Details, `{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget pdb is still being processed by the server."}],"retryAfterSeconds":10}`)
	// Computed, and no disruption allowed.
	c.patch(t, pdbs+"pdb/status", "application/merge-patch+json",
		`{"status":{"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":1,"desiredHealthy":1,"expectedPods":1}}`).must(t, http.StatusOK)
	st = evict("guarded", "", nil).expectError(t, http.StatusTooManyRequests, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.")
	jsonEqual(t, "details", st.Details, `{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget pdb needs 1 healthy pods and has 1 currently"}]}`)
	// One allowed: a dry run changes nothing, the real one takes it.
	c.patch(t, pdbs+"pdb/status", "application/merge-patch+json", `{"status":{"disruptionsAllowed":1,"currentHealthy":2}}`).must(t, http.StatusOK)
	success(evict("guarded", "?dryRun=All", nil))
	c.get(t, pods+"guarded").must(t, http.StatusOK)
	if n := c.get(t, pdbs+"pdb").must(t, http.StatusOK).num("status.disruptionsAllowed"); n != int64(1) {
		t.Errorf("after a dry run disruptionsAllowed = %v", n)
	}
	success(evict("guarded", "", nil))
	gone("guarded")
	p := c.get(t, pdbs+"pdb").must(t, http.StatusOK)
	equal(t, "disruptionsAllowed", p.num("status.disruptionsAllowed"), int64(0))
	if p.str("status.disruptedPods.guarded") == "" {
		t.Errorf("the evicted pod is not in disruptedPods: %v", p["status"])
	}
	equal(t, "condition", p.str("status.conditions.0.type")+"/"+p.str("status.conditions.0.status")+"/"+p.str("status.conditions.0.reason"),
		"DisruptionAllowed/False/InsufficientPods")

	// Two budgets select the pod: not supported.
	running("twice")
	c.post(t, pdbs, obj{"metadata": obj{"name": "pdb2"}, "spec": obj{"minAvailable": 1, "selector": obj{"matchLabels": obj{"app": "ev"}}}}).must(t, http.StatusCreated)
	r := evict("twice", "", nil)
	if r.code != http.StatusInternalServerError || r.status(t).Message != "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support." {
		t.Errorf("two budgets: %d %s", r.code, r.body)
	}
	c.get(t, pods+"twice").must(t, http.StatusOK)
}
