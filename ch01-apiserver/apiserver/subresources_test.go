package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"kubik/ch01-apiserver/storage"
)

func TestScaleSubresource(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	deps := "/apis/apps/v1/namespaces/" + ns + "/deployments"
	d := c.post(t, deps, deployment("nginx", 2)).must(t, http.StatusCreated)

	sc := c.get(t, deps+"/nginx/scale").must(t, http.StatusOK)
	jsonEqual(t, "Scale", sc, fmt.Sprintf(`{"kind":"Scale","apiVersion":"autoscaling/v1",
		"metadata":{"name":"nginx","namespace":%q,"uid":%q,"resourceVersion":%q,"creationTimestamp":%q},
		"spec":{"replicas":2},"status":{"replicas":0,"selector":"app=nginx"}}`,
		ns, d.str("metadata.uid"), d.str("metadata.resourceVersion"), d.str("metadata.creationTimestamp")))

	// PUT with the current resourceVersion.
	sc["spec"] = map[string]any{"replicas": 3}
	out := c.put(t, deps+"/nginx/scale", sc).must(t, http.StatusOK)
	equal(t, "spec.replicas", out.num("spec.replicas"), int64(3))
	equal(t, "deployment replicas", c.get(t, deps+"/nginx").must(t, http.StatusOK).num("spec.replicas"), int64(3))
	// ... and again with the now stale one.
	c.put(t, deps+"/nginx/scale", sc).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on deployments.apps "nginx": the object has been modified; please apply your changes to the latest version and try again`)

	// PATCH, as kubectl scale does.
	out = c.patch(t, deps+"/nginx/scale", "application/merge-patch+json", `{"spec":{"replicas":5}}`).must(t, http.StatusOK)
	equal(t, "spec.replicas", out.num("spec.replicas"), int64(5))
	dep := c.get(t, deps+"/nginx").must(t, http.StatusOK)
	equal(t, "deployment replicas", dep.num("spec.replicas"), int64(5))
	equal(t, "generation", dep.num("metadata.generation"), int64(3))

	c.patch(t, deps+"/nginx/scale", "application/merge-patch+json", `{"spec":{"replicas":-1}}`).expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`Scale.autoscaling "nginx" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`)
	c.get(t, deps+"/nope/scale").expectError(t, http.StatusNotFound, "NotFound", `deployments.apps "nope" not found`)
	c.get(t, "/api/v1/namespaces/"+ns+"/configmaps/x/scale").expectError(t, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
}

func TestBindingSubresource(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	pods := "/api/v1/namespaces/" + ns + "/pods"
	created := c.post(t, pods, pod("p", nil)).must(t, http.StatusCreated)
	uid := created.str("metadata.uid")
	// A nomination left by preemption; binding clears it (upstream's
	// ClearingNominatedNodeNameAfterBinding, on by default in 1.35).
	c.patch(t, pods+"/p/status", "application/merge-patch+json", `{"status":{"nominatedNodeName":"node-2"}}`).must(t, http.StatusOK)

	// The binding's uid is a precondition (upstream's scheduler sends the pod's).
	binding := obj{"apiVersion": "v1", "kind": "Binding", "metadata": obj{"name": "p", "uid": "not-the-pods"},
		"target": obj{"kind": "Node", "name": "node-1"}}
	c.post(t, pods+"/p/binding", binding).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, Key: /registry/pods/`+ns+
			`/p, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: not-the-pods, UID in object meta: `+uid)

	binding["metadata"] = obj{"name": "p", "uid": uid, "annotations": obj{"note": "bound"},
		"labels": obj{"topology.kubernetes.io/zone": "zone-a"}}
	r := c.post(t, pods+"/p/binding?fieldManager=kube-scheduler", binding)
	if r.code != http.StatusCreated {
		t.Fatalf("binding: %d %s", r.code, r.body)
	}
	jsonEqual(t, "binding answer", r.status(t), `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`)
	p := c.get(t, pods+"/p").must(t, http.StatusOK)
	equal(t, "nodeName", p.str("spec.nodeName"), "node-1")
	equal(t, "condition type", p.str("status.conditions.0.type"), "PodScheduled")
	equal(t, "condition status", p.str("status.conditions.0.status"), "True")
	// Upstream's binding sets type, status and lastTransitionTime only.
	if cond := p.path("status.conditions.0").(map[string]any); cond["lastTransitionTime"] == nil || cond["observedGeneration"] != nil {
		t.Errorf("PodScheduled condition: %v", cond)
	}
	equal(t, "nominatedNodeName", p.str("status.nominatedNodeName"), "")
	// The binding's annotations and labels are copied onto the pod.
	equal(t, "annotation", p.str("metadata.annotations.note"), "bound")
	labels, _ := p.path("metadata.labels").(map[string]any)
	equal(t, "label", labels["topology.kubernetes.io/zone"], any("zone-a"))
	// A binding is written straight to storage, as upstream's BindingREST
	// does (GuaranteedUpdate): no field manager records it, so the pod's
	// managedFields still name only the pod's creator and the status patch.
	mf := p.list("metadata.managedFields")
	for _, e := range mf {
		if m := obj(e.(map[string]any)).str("manager"); m == "kube-scheduler" {
			t.Errorf("managedFields after the binding: %v", mf)
		}
	}
	equal(t, "managedFields entries", len(mf), 2)

	c.post(t, pods+"/p/binding", binding).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"`)
	binding["metadata"] = obj{"name": "nope"}
	c.post(t, pods+"/nope/binding", binding).expectError(t, http.StatusNotFound, "NotFound", `pods "nope" not found`)

	// A pod with scheduling gates is not ready to be scheduled.
	gated := pod("g", nil)
	gated["spec"].(obj)["schedulingGates"] = []obj{{"name": "example.com/quota"}}
	c.post(t, pods, gated).must(t, http.StatusCreated)
	binding["metadata"] = obj{"name": "g"}
	c.post(t, pods+"/g/binding", binding).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on pods/binding "g": pod g has non-empty .spec.schedulingGates`)
	equal(t, "gated pod's nodeName", c.get(t, pods+"/g").must(t, http.StatusOK).str("spec.nodeName"), "")
}

// cachedStore is a storage with a "watch cache" the test controls: what
// GetCached answers, and how many reads reach the store.
type cachedStore struct {
	storage.Interface
	mu     sync.Mutex
	cached map[string]storage.KeyValue
	gets   int
}

func (s *cachedStore) GetCached(key string) (storage.KeyValue, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kv, ok := s.cached[key]
	return kv, ok
}

func (s *cachedStore) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	s.mu.Lock()
	s.gets++
	s.mu.Unlock()
	return s.Interface.Get(ctx, key)
}

// reads is how many reads reached the store since the last snapshot or reset.
func (s *cachedStore) reads(reset bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.gets
	if reset {
		s.gets = 0
	}
	return n
}

// snapshot puts the stored value of key into the cache, as it is now.
func (s *cachedStore) snapshot(t *testing.T, key string) {
	kv, err := s.Interface.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.cached[key] = kv
	s.gets = 0
	s.mu.Unlock()
}

// A binding starts from the pod in the watch cache, as upstream's
// Cacher.GuaranteedUpdate does; when that copy is old, etcd decides.
func TestBindingFromWatchCache(t *testing.T) {
	store := &cachedStore{Interface: storage.NewMemory(0), cached: map[string]storage.KeyValue{}}
	c := newCluster(t, store)
	pods := "/api/v1/namespaces/default/pods"
	const key = "/registry/pods/default/"
	bind := func(name, uid string) response {
		return c.post(t, pods+"/"+name+"/binding", obj{"apiVersion": "v1", "kind": "Binding",
			"metadata": obj{"name": name, "uid": uid}, "target": obj{"kind": "Node", "name": "node-1"}})
	}

	// A current copy: no read from the store at all.
	a := c.post(t, pods, pod("a", nil)).must(t, http.StatusCreated)
	store.snapshot(t, key+"a")
	bind("a", a.str("metadata.uid")).must(t, http.StatusCreated)
	equal(t, "reads from the store", store.reads(false), 0)
	equal(t, "nodeName", c.get(t, pods+"/a").must(t, http.StatusOK).str("spec.nodeName"), "node-1")

	// The cached copy is from before the pod was bound: the conditional
	// write fails and the read from the store finds it bound.
	c.post(t, pods, pod("b", nil)).must(t, http.StatusCreated)
	store.snapshot(t, key+"b")
	bind("b", "").must(t, http.StatusCreated)
	store.reads(true)
	bind("b", "").expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on pods/binding "b": pod b is already assigned to node "node-1"`)
	equal(t, "reads from the store", store.reads(false), 1)

	// The cached copy is of an earlier pod of the same name: its uid does
	// not match the binding's, but the current pod's does.
	c.post(t, pods, pod("c", nil)).must(t, http.StatusCreated)
	store.snapshot(t, key+"c")
	c.del(t, pods+"/c", obj{"gracePeriodSeconds": 0}).must(t, http.StatusOK)
	cur := c.post(t, pods, pod("c", nil)).must(t, http.StatusCreated)
	bind("c", cur.str("metadata.uid")).must(t, http.StatusCreated)
	equal(t, "nodeName", c.get(t, pods+"/c").must(t, http.StatusOK).str("spec.nodeName"), "node-1")
}
