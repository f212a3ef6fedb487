package apiserver_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCreate(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	base := "/api/v1/namespaces/" + ns + "/configmaps"

	o := c.post(t, base, configMap("x", map[string]string{"k": "v"}, nil)).must(t, http.StatusCreated)
	if o.str("metadata.uid") == "" || o.str("metadata.creationTimestamp") == "" || o.str("metadata.resourceVersion") == "" {
		t.Fatalf("server-set metadata missing: %v", o["metadata"])
	}
	equal(t, "namespace", o.str("metadata.namespace"), ns)
	equal(t, "kind", o.str("kind"), "ConfigMap")

	st := c.post(t, base, configMap("x", nil, nil)).expectError(t, http.StatusConflict, "AlreadyExists", `configmaps "x" already exists`)
	jsonEqual(t, "details", st.Details, `{"name":"x","kind":"configmaps"}`)

	// generateName: five random characters appended.
	o = c.post(t, base, obj{"metadata": obj{"generateName": "gen-"}}).must(t, http.StatusCreated)
	if n := o.str("metadata.name"); !strings.HasPrefix(n, "gen-") || len(n) != len("gen-")+5 {
		t.Fatalf("generated name %q", n)
	}

	// A missing namespace, named by NamespaceLifecycle.
	st = c.post(t, "/api/v1/namespaces/nope/configmaps", configMap("x", nil, nil)).
		expectError(t, http.StatusNotFound, "NotFound", `namespaces "nope" not found`)
	jsonEqual(t, "details", st.Details, `{"name":"nope","kind":"namespaces"}`)

	// The body's namespace must be the URL's.
	cm := configMap("y", nil, nil)
	cm["metadata"].(obj)["namespace"] = "default"
	c.post(t, base, cm).expectError(t, http.StatusBadRequest, "BadRequest",
		"the namespace of the provided object does not match the namespace sent on the request")

	// The body's kind must be the URL's (typo-and-nokind.txt).
	c.post(t, "/api/v1/namespaces/"+ns+"/pods?fieldValidation=Strict", deployment("d", 1)).expectError(t, http.StatusBadRequest, "BadRequest",
		`Deployment in version "v1" cannot be handled as a Pod: converting (v1.Deployment) to (core.Pod): unknown conversion`)
	// ... but a body without kind and apiVersion is fine: the URL says what it is.
	noKind := pod("nokind", nil)
	delete(noKind, "kind")
	delete(noKind, "apiVersion")
	o = c.post(t, "/api/v1/namespaces/"+ns+"/pods?fieldValidation=Strict", noKind).must(t, http.StatusCreated)
	equal(t, "kind", o.str("kind"), "Pod")
	equal(t, "apiVersion", o.str("apiVersion"), "v1")

	// POST to a named URL is not allowed.
	c.post(t, base+"/x", configMap("x", nil, nil)).expectError(t, http.StatusMethodNotAllowed, "MethodNotAllowed",
		"the server does not allow this method on the requested resource")
}

func TestCreateFieldValidation(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	pods := "/api/v1/namespaces/" + ns + "/pods"
	typo := func(name string) obj {
		p := pod(name, nil)
		p["spec"].(obj)["foo"] = "bar"
		return p
	}
	const warning = `299 - "unknown field \"spec.foo\""`

	c.post(t, pods+"?fieldValidation=Strict", typo("strict")).expectError(t, http.StatusBadRequest, "BadRequest",
		`Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.foo"`)
	c.get(t, pods+"/strict").must(t, http.StatusNotFound)

	r := c.post(t, pods+"?fieldValidation=Warn", typo("warn"))
	r.must(t, http.StatusCreated)
	equal(t, "Warning", r.header.Values("Warning"), []string{warning})

	r = c.post(t, pods+"?fieldValidation=Ignore", typo("ignore"))
	r.must(t, http.StatusCreated)
	equal(t, "Warning", r.header.Values("Warning"), []string(nil))

	r = c.post(t, pods, typo("default")) // the server's default is Warn
	r.must(t, http.StatusCreated)
	equal(t, "Warning", r.header.Values("Warning"), []string{warning})

	// Duplicate fields are strict errors too.
	dup := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"dup"}}`
	c.post(t, "/api/v1/namespaces/"+ns+"/configmaps?fieldValidation=Strict", dup).expectError(t, http.StatusBadRequest, "BadRequest",
		`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name"`)
	r = c.post(t, "/api/v1/namespaces/"+ns+"/configmaps", dup)
	equal(t, "last duplicate wins", r.must(t, http.StatusCreated).str("metadata.name"), "dup")
	equal(t, "Warning", r.header.Values("Warning"), []string{`299 - "duplicate field \"metadata.name\""`})

	// The typo pod of typo-and-nokind.txt: Warn, then 422 for the missing containers.
	yamlTypo := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  contaienrs:\n  - name: app\n    image: nginx\n"
	r = c.post(t, pods, yamlTypo, "Content-Type", "application/yaml")
	equal(t, "Warning", r.header.Values("Warning"), []string{`299 - "unknown field \"spec.contaienrs\""`})
	if r.code != http.StatusUnprocessableEntity {
		t.Fatalf("got %d: %s", r.code, r.body)
	}
	jsonEqual(t, "Status", r.status(t), `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"Pod \"typo\" is invalid: spec.containers: Required value","reason":"Invalid",
		"details":{"name":"typo","kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"}]},"code":422}`)
	c.post(t, pods+"?fieldValidation=Strict", yamlTypo, "Content-Type", "application/yaml").expectError(t, http.StatusBadRequest, "BadRequest",
		`Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.contaienrs"`)
}

func TestCreateBodies(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	base := "/api/v1/namespaces/" + ns + "/configmaps"

	o := c.post(t, base, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: \"1\"\n", "Content-Type", "application/yaml").must(t, http.StatusCreated)
	equal(t, "data.a", o.str("data.a"), "1")

	c.post(t, base, "<xml/>", "Content-Type", "application/xml").expectError(t, http.StatusUnsupportedMediaType, "UnsupportedMediaType",
		"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf")

	r := c.post(t, base, "{not json")
	if r.code != http.StatusBadRequest || r.status(t).Reason != "BadRequest" {
		t.Fatalf("bad JSON: %d %s", r.code, r.body)
	}

	// Over the 3 MiB request body limit.
	big := strings.Repeat("x", 3*1024*1024+10)
	c.post(t, base, configMap("huge", map[string]string{"k": big}, nil)).expectError(t, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
		"Request entity too large: limit is 3145728")

	// Under the body limit but over what a ConfigMap may hold (1 MiB).
	r = c.post(t, base, configMap("big", map[string]string{"k": strings.Repeat("x", 1200*1024)}, nil))
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.status(t).Message, "Too long: may not be more than 1048576 bytes") {
		t.Fatalf("1.2 MiB ConfigMap: %d %s", r.code, r.body[:min(len(r.body), 300)])
	}
	// An object over etcd's 1.5 MiB value limit that validation lets through.
	p := pod("huge-pod", nil)
	p["spec"].(obj)["containers"].([]obj)[0]["args"] = []string{strings.Repeat("a", 1600*1024)}
	r = c.post(t, "/api/v1/namespaces/"+ns+"/pods", p)
	if r.code != http.StatusRequestEntityTooLarge {
		t.Fatalf("1.6 MiB pod: %d %s", r.code, r.body[:min(len(r.body), 300)])
	}
	c.get(t, "/api/v1/namespaces/"+ns+"/pods/huge-pod").must(t, http.StatusNotFound)
}

func TestDryRun(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	o := c.post(t, base+"?dryRun=All", configMap("dry", map[string]string{"a": "b"}, nil)).must(t, http.StatusCreated)
	equal(t, "name", o.str("metadata.name"), "dry")
	if o.str("metadata.uid") == "" {
		t.Fatal("a dry-run create still fills metadata.uid")
	}
	c.get(t, base+"/dry").expectError(t, http.StatusNotFound, "NotFound", `configmaps "dry" not found`)

	c.post(t, base, configMap("real", map[string]string{"a": "b"}, nil)).must(t, http.StatusCreated)
	c.patch(t, base+"/real?dryRun=All", "application/merge-patch+json", `{"data":{"a":"changed"}}`).must(t, http.StatusOK)
	equal(t, "data after dry-run patch", c.get(t, base+"/real").must(t, http.StatusOK).str("data.a"), "b")
	c.del(t, base+"/real?dryRun=All", nil).must(t, http.StatusOK)
	c.get(t, base+"/real").must(t, http.StatusOK)
}

func TestGetAndList(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	pods := "/api/v1/namespaces/" + ns + "/pods"
	st := c.get(t, pods+"/nope").expectError(t, http.StatusNotFound, "NotFound", `pods "nope" not found`)
	jsonEqual(t, "details", st.Details, `{"name":"nope","kind":"pods"}`)
	c.get(t, "/apis/apps/v1/namespaces/"+ns+"/deployments/nope").expectError(t, http.StatusNotFound, "NotFound", `deployments.apps "nope" not found`)
	c.get(t, "/api/v1/namespaces/"+ns+"/nopes").expectError(t, http.StatusNotFound, "NotFound", "the server could not find the requested resource")

	for _, spec := range []struct {
		name, env, tier string
		node            string
	}{{"a", "prod", "web", "node-1"}, {"b", "prod", "db", ""}, {"c", "dev", "web", "node-2"}, {"d", "", "", ""}} {
		labels := map[string]string{}
		if spec.env != "" {
			labels["env"] = spec.env
			labels["tier"] = spec.tier
		}
		p := pod(spec.name, labels)
		if spec.node != "" {
			p["spec"].(obj)["nodeName"] = spec.node
		}
		c.post(t, pods, p).must(t, http.StatusCreated)
	}
	// Pod c has finished.
	c.patch(t, pods+"/c/status", "application/merge-patch+json", `{"status":{"phase":"Succeeded"}}`).must(t, http.StatusOK)

	list := func(query string) []string {
		t.Helper()
		o := c.get(t, pods+"?"+query).must(t, http.StatusOK)
		equal(t, "kind", o.str("kind"), "PodList")
		got := names(o.items())
		sort.Strings(got)
		return got
	}
	q := func(k, v string) string { return k + "=" + url.QueryEscape(v) }
	for sel, want := range map[string][]string{
		q("labelSelector", "env=prod"):                                                    {"a", "b"},
		q("labelSelector", "env==prod,tier=web"):                                          {"a"},
		q("labelSelector", "env!=prod"):                                                   {"c", "d"},
		q("labelSelector", "env in (prod,dev)"):                                           {"a", "b", "c"},
		q("labelSelector", "env notin (prod)"):                                            {"c", "d"},
		q("labelSelector", "env"):                                                         {"a", "b", "c"},
		q("labelSelector", "!env"):                                                        {"d"},
		q("fieldSelector", "metadata.name=b"):                                             {"b"},
		q("fieldSelector", "spec.nodeName=node-1"):                                        {"a"},
		q("fieldSelector", "spec.nodeName="):                                              {"b", "d"},
		q("fieldSelector", "status.phase!=Succeeded"):                                     {"a", "b", "d"},
		q("fieldSelector", "metadata.namespace="+ns):                                      {"a", "b", "c", "d"},
		q("labelSelector", "tier=web") + "&" + q("fieldSelector", "spec.nodeName=node-2"): {"c"},
	} {
		equal(t, sel, list(sel), want)
	}
	c.get(t, pods+"?"+q("fieldSelector", "spec.foo=bar")).expectError(t, http.StatusBadRequest, "BadRequest",
		`field label not supported: spec.foo`)
	r := c.get(t, pods+"?"+q("labelSelector", "env in prod"))
	if r.code != http.StatusBadRequest {
		t.Fatalf("bad label selector: %d %s", r.code, r.body)
	}

	// All namespaces.
	o := c.get(t, "/api/v1/pods?"+q("fieldSelector", "metadata.namespace="+ns)).must(t, http.StatusOK)
	equal(t, "all-namespace list", len(o.items()), 4)
}

func TestPagination(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	for i := 0; i < 5; i++ {
		c.post(t, base, configMap(fmt.Sprintf("cm-%d", i), nil, nil)).must(t, http.StatusCreated)
	}
	first := c.get(t, base+"?limit=2").must(t, http.StatusOK)
	equal(t, "page 1", names(first.items()), []string{"cm-0", "cm-1"})
	equal(t, "remainingItemCount", first.num("metadata.remainingItemCount"), int64(3))
	rv := first.str("metadata.resourceVersion")
	token := first.str("metadata.continue")
	if token == "" {
		t.Fatal("no continue token")
	}
	// A write between pages is not seen: every page is read at the first page's revision.
	c.del(t, base+"/cm-3", nil).must(t, http.StatusOK)
	second := c.get(t, base+"?limit=2&continue="+url.QueryEscape(token)).must(t, http.StatusOK)
	equal(t, "page 2", names(second.items()), []string{"cm-2", "cm-3"})
	equal(t, "page 2 resourceVersion", second.str("metadata.resourceVersion"), rv)
	equal(t, "remainingItemCount", second.num("metadata.remainingItemCount"), int64(1))
	third := c.get(t, base+"?limit=2&continue="+url.QueryEscape(second.str("metadata.continue"))).must(t, http.StatusOK)
	equal(t, "page 3", names(third.items()), []string{"cm-4"})
	if third.str("metadata.continue") != "" || third.path("metadata.remainingItemCount") != nil {
		t.Fatalf("last page metadata: %v", third["metadata"])
	}
	// A filtered paginated list has no remainingItemCount.
	o := c.get(t, base+"?limit=1&labelSelector=a!=b").must(t, http.StatusOK)
	if o.str("metadata.continue") == "" || o.path("metadata.remainingItemCount") != nil {
		t.Fatalf("filtered page metadata: %v", o["metadata"])
	}
	// Upstream's messages, checked against kube-apiserver v1.35.
	c.get(t, base+"?limit=2&continue=garbage").expectError(t, http.StatusBadRequest, "BadRequest",
		`invalid continue token: continue key is not valid: invalid character '\u0081' looking for beginning of value`)
	c.get(t, base+"?limit=2&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiJhIn0").expectError(t, http.StatusBadRequest, "BadRequest",
		"invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	c.get(t, base+"?limit=2&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjIiLCJydiI6NSwic3RhcnQiOiJhIn0").expectError(t, http.StatusBadRequest, "BadRequest",
		"invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2")
}

func TestResourceVersionSemantics(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	o := c.post(t, base, configMap("a", nil, nil)).must(t, http.StatusCreated)
	rvA, _ := strconv.ParseInt(o.str("metadata.resourceVersion"), 10, 64)

	l := c.get(t, base).must(t, http.StatusOK)
	listRV, _ := strconv.ParseInt(l.str("metadata.resourceVersion"), 10, 64)
	if listRV < rvA {
		t.Fatalf("list resourceVersion %d < object's %d", listRV, rvA)
	}
	c.post(t, base, configMap("b", nil, nil)).must(t, http.StatusCreated)
	c.put(t, base+"/a", configMap("a", map[string]string{"x": "y"}, nil)).must(t, http.StatusOK)

	// Exact: the state as of that revision.
	old := c.get(t, base+"?resourceVersion="+strconv.FormatInt(rvA, 10)+"&resourceVersionMatch=Exact").must(t, http.StatusOK)
	equal(t, "list at rvA", names(old.items()), []string{"a"})
	equal(t, "list at rvA resourceVersion", old.str("metadata.resourceVersion"), strconv.FormatInt(rvA, 10))
	if old.items()[0].path("data") != nil {
		t.Fatalf("old a has data: %v", old.items()[0])
	}
	// NotOlderThan / "0": at least that fresh.
	equal(t, "rv=0", len(c.get(t, base+"?resourceVersion=0").must(t, http.StatusOK).items()), 2)
	equal(t, "NotOlderThan", len(c.get(t, base+"?resourceVersion="+strconv.FormatInt(rvA, 10)+"&resourceVersionMatch=NotOlderThan").must(t, http.StatusOK).items()), 2)

	cur, _ := strconv.ParseInt(c.get(t, base).must(t, http.StatusOK).str("metadata.resourceVersion"), 10, 64)
	future := cur + 1000
	st := c.get(t, base+"?resourceVersion="+strconv.FormatInt(future, 10)).expectError(t, http.StatusGatewayTimeout, "Timeout",
		fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", future, cur))
	jsonEqual(t, "details", st.Details, `{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1}`)

	c.get(t, base+"?sendInitialEvents=true").expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`)
	c.get(t, base+"?watch=true&resourceVersionMatch=NotOlderThan").expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`)
	st = c.get(t, base+"?resourceVersionMatch=Exact").expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`)
}

func TestUpdate(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	o := c.post(t, base, configMap("u", map[string]string{"a": "1"}, nil)).must(t, http.StatusCreated)
	rv1 := o.str("metadata.resourceVersion")
	uid := o.str("metadata.uid")
	created := o.str("metadata.creationTimestamp")

	cm := configMap("u", map[string]string{"a": "2"}, nil)
	cm["metadata"].(obj)["resourceVersion"] = rv1
	o = c.put(t, base+"/u", cm).must(t, http.StatusOK)
	rv2 := o.str("metadata.resourceVersion")
	if rv2 == rv1 {
		t.Fatal("resourceVersion did not change")
	}
	equal(t, "generation of a ConfigMap", o.path("metadata.generation"), nil)

	// Stale resourceVersion.
	st := c.put(t, base+"/u", cm).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on configmaps "u": the object has been modified; please apply your changes to the latest version and try again`)
	jsonEqual(t, "details", st.Details, `{"name":"u","kind":"configmaps"}`)

	// No resourceVersion: unconditional.
	o = c.put(t, base+"/u", configMap("u", map[string]string{"a": "3"}, nil)).must(t, http.StatusOK)
	equal(t, "data.a", o.str("data.a"), "3")

	// uid and creationTimestamp cannot be changed through an update.
	cm = configMap("u", map[string]string{"a": "4"}, nil)
	cm["metadata"].(obj)["creationTimestamp"] = "2001-01-01T00:00:00Z"
	o = c.put(t, base+"/u", cm).must(t, http.StatusOK)
	equal(t, "creationTimestamp", o.str("metadata.creationTimestamp"), created)
	cm["metadata"].(obj)["uid"] = "00000000-0000-0000-0000-000000000000"
	st = c.put(t, base+"/u", cm).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on configmaps "u": Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: `+uid)

	// Name and namespace must be the URL's.
	c.put(t, base+"/u", configMap("other", nil, nil)).expectError(t, http.StatusBadRequest, "BadRequest",
		"the name of the object (other) does not match the name on the URL (u)")
	cm = configMap("u", nil, nil)
	cm["metadata"].(obj)["namespace"] = "default"
	c.put(t, base+"/u", cm).expectError(t, http.StatusBadRequest, "BadRequest",
		"the namespace of the provided object does not match the namespace sent on the request")

	// PUT of a missing ConfigMap does not create it.
	c.put(t, base+"/missing", configMap("missing", nil, nil)).expectError(t, http.StatusNotFound, "NotFound", `configmaps "missing" not found`)
	// An update that changes nothing keeps the resourceVersion.
	cur := c.get(t, base+"/u").must(t, http.StatusOK)
	again := c.put(t, base+"/u", cur).must(t, http.StatusOK)
	equal(t, "no-op update resourceVersion", again.str("metadata.resourceVersion"), cur.str("metadata.resourceVersion"))
}

func TestStatusSubresourceAndGeneration(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	deps := "/apis/apps/v1/namespaces/" + ns + "/deployments"
	o := c.post(t, deps, deployment("web", 1)).must(t, http.StatusCreated)
	equal(t, "generation", o.num("metadata.generation"), int64(1))

	// The main resource ignores status.
	o["status"] = obj{"replicas": 5}
	o = c.put(t, deps+"/web", o).must(t, http.StatusOK)
	equal(t, "status.replicas via main resource", o.path("status.replicas"), nil)
	equal(t, "generation after a status-only change", o.num("metadata.generation"), int64(1))

	// /status ignores spec.
	o["status"] = obj{"replicas": 5}
	o["spec"].(map[string]any)["replicas"] = 7
	o = c.put(t, deps+"/web/status", o).must(t, http.StatusOK)
	equal(t, "status.replicas via /status", o.num("status.replicas"), int64(5))
	equal(t, "spec.replicas via /status", o.num("spec.replicas"), int64(1))
	equal(t, "generation", o.num("metadata.generation"), int64(1))

	// A spec change bumps generation; a metadata change does not.
	o = c.patch(t, deps+"/web", "application/merge-patch+json", `{"spec":{"replicas":3}}`).must(t, http.StatusOK)
	equal(t, "generation after spec change", o.num("metadata.generation"), int64(2))
	o = c.patch(t, deps+"/web", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`).must(t, http.StatusOK)
	equal(t, "generation after label change", o.num("metadata.generation"), int64(2))
	equal(t, "status kept", o.num("status.replicas"), int64(5))

	// Pods: generation 1 at create, bumped by a spec change (image).
	pods := "/api/v1/namespaces/" + ns + "/pods"
	p := c.post(t, pods, pod("p", nil)).must(t, http.StatusCreated)
	equal(t, "pod generation", p.num("metadata.generation"), int64(1))
	p = c.patch(t, pods+"/p", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}`).must(t, http.StatusOK)
	equal(t, "pod generation after image change", p.num("metadata.generation"), int64(2))
	p = c.patch(t, pods+"/p/status", "application/merge-patch+json", `{"status":{"phase":"Running"}}`).must(t, http.StatusOK)
	equal(t, "pod generation after status change", p.num("metadata.generation"), int64(2))
	equal(t, "pod phase", p.str("status.phase"), "Running")

	// namespaces/<name>/status is the namespace's status, not a resource "status" in it.
	nsStatus := c.get(t, "/api/v1/namespaces/"+ns+"/status").must(t, http.StatusOK)
	equal(t, "namespaces/status kind", nsStatus.str("kind"), "Namespace")
	equal(t, "namespaces/status phase", nsStatus.str("status.phase"), "Active")

	// ConfigMaps never have a generation.
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	c.post(t, cms, configMap("c", nil, nil)).must(t, http.StatusCreated)
	o = c.patch(t, cms+"/c", "application/merge-patch+json", `{"data":{"a":"b"}}`).must(t, http.StatusOK)
	equal(t, "configmap generation", o.path("metadata.generation"), nil)
}

func TestPatch(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	c.post(t, cms, configMap("p", map[string]string{"a": "1", "b": "2"}, nil)).must(t, http.StatusCreated)

	o := c.patch(t, cms+"/p", "application/merge-patch+json", `{"data":{"a":null,"c":"3"}}`).must(t, http.StatusOK)
	equal(t, "merge patch", o.path("data"), map[string]any{"b": "2", "c": "3"})

	o = c.patch(t, cms+"/p", "application/json-patch+json", `[{"op":"replace","path":"/data/b","value":"20"},{"op":"add","path":"/data/d","value":"4"}]`).must(t, http.StatusOK)
	equal(t, "json patch", o.path("data"), map[string]any{"b": "20", "c": "3", "d": "4"})

	r := c.patch(t, cms+"/p", "application/json-patch+json", `[{"op":"test","path":"/data/b","value":"nope"}]`)
	if r.code != http.StatusUnprocessableEntity || r.status(t).Reason != "Invalid" {
		t.Fatalf("failed test op: %d %s", r.code, r.body)
	}
	r = c.patch(t, cms+"/p", "application/json-patch+json", `{"not":"a list"}`)
	if r.code != http.StatusBadRequest {
		t.Fatalf("malformed JSON patch: %d %s", r.code, r.body)
	}

	// A resourceVersion in the patch is a precondition.
	c.patch(t, cms+"/p", "application/merge-patch+json", `{"metadata":{"resourceVersion":"1"},"data":{"a":"x"}}`).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on configmaps "p": the object has been modified; please apply your changes to the latest version and try again`)

	// An unknown patch type is refused by the route, before the handler: a bare 415.
	st := c.patch(t, cms+"/p", "text/plain", `{}`).expectError(t, http.StatusUnsupportedMediaType, "UnsupportedMediaType",
		"415: Unsupported Media Type")
	jsonEqual(t, "details", st.Details, `{}`)
	c.patch(t, cms+"/missing", "application/merge-patch+json", `{"data":{"a":"b"}}`).expectError(t, http.StatusNotFound, "NotFound", `configmaps "missing" not found`)

	// Strategic merge patch merges containers by name.
	pods := "/api/v1/namespaces/" + ns + "/pods"
	p := pod("sm", nil)
	p["spec"].(obj)["containers"] = []obj{{"name": "app", "image": "nginx:1.27"}, {"name": "side", "image": "busybox"}}
	c.post(t, pods, p).must(t, http.StatusCreated)
	o = c.patch(t, pods+"/sm", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"side","image":"busybox:1.36"}]}}`).must(t, http.StatusOK)
	equal(t, "containers[0].image", o.str("spec.containers.0.image"), "nginx:1.27")
	equal(t, "containers[1].image", o.str("spec.containers.1.image"), "busybox:1.36")
	equal(t, "containers", len(o.list("spec.containers")), 2)
	// ... while a merge patch replaces the list.
	o = c.patch(t, pods+"/sm", "application/merge-patch+json", `{"metadata":{"labels":{"k":"v"}}}`).must(t, http.StatusOK)
	equal(t, "labels", o.path("metadata.labels"), map[string]any{"k": "v"})
}

func TestServerSideApply(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	applied := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: \"1\"\n"
	apply := func(manager, body string, force bool) response {
		q := "?fieldManager=" + manager
		if force {
			q += "&force=true"
		}
		return c.patch(t, cms+"/ssa"+q, "application/apply-patch+yaml", body)
	}
	o := apply("alice", applied, false).must(t, http.StatusCreated)
	equal(t, "data", o.path("data"), map[string]any{"a": "1"})
	equal(t, "manager", o.str("metadata.managedFields.0.manager"), "alice")
	equal(t, "operation", o.str("metadata.managedFields.0.operation"), "Apply")

	// Re-applying the same configuration: 200, nothing changes.
	again := apply("alice", applied, false).must(t, http.StatusOK)
	equal(t, "resourceVersion", again.str("metadata.resourceVersion"), o.str("metadata.resourceVersion"))

	// Another manager setting the same field to another value: conflict.
	st := apply("bob", strings.Replace(applied, `"1"`, `"2"`, 1), false).expectError(t, http.StatusConflict, "Conflict",
		`Apply failed with 1 conflict: conflict with "alice": .data.a`)
	jsonEqual(t, "details", st.Details, `{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \"alice\"","field":".data.a"}]}`)
	// force takes the field over.
	o = apply("bob", strings.Replace(applied, `"1"`, `"2"`, 1), true).must(t, http.StatusOK)
	equal(t, "data.a", o.str("data.a"), "2")

	st = c.patch(t, cms+"/ssa", "application/apply-patch+yaml", applied).expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`)
	jsonEqual(t, "details", st.Details, `{"group":"meta.k8s.io","kind":"PatchOptions","causes":[{"reason":"FieldValueRequired","message":"Required value: is required for apply patch","field":"fieldManager"}]}`)
}

func TestDelete(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	o := c.post(t, cms, configMap("d", nil, nil)).must(t, http.StatusCreated)

	// Wrong uid precondition.
	c.del(t, cms+"/d", obj{"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": obj{"uid": "nope"}}).expectError(t, http.StatusConflict, "Conflict",
		`Operation cannot be fulfilled on configmaps "d": Precondition failed: UID in precondition: nope, UID in object meta: `+o.str("metadata.uid"))

	// A ConfigMap delete answers a Success Status.
	r := c.del(t, cms+"/d", obj{"preconditions": obj{"uid": o.str("metadata.uid")}})
	if r.code != http.StatusOK {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	jsonEqual(t, "delete Status", r.status(t), fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",
		"details":{"name":"d","kind":"configmaps","uid":%q}}`, o.str("metadata.uid")))
	c.del(t, cms+"/d", nil).expectError(t, http.StatusNotFound, "NotFound", `configmaps "d" not found`)

	// A pod delete answers the pod; unscheduled, it goes at once.
	pods := "/api/v1/namespaces/" + ns + "/pods"
	c.post(t, pods, pod("gone", nil)).must(t, http.StatusCreated)
	o = c.del(t, pods+"/gone", nil).must(t, http.StatusOK)
	equal(t, "kind", o.str("kind"), "Pod")
	c.get(t, pods+"/gone").must(t, http.StatusNotFound)

	// A pod bound to a node is deleted gracefully: it stays with a deletionTimestamp.
	p := pod("graceful", nil)
	p["spec"].(obj)["nodeName"] = "node-1"
	c.post(t, pods, p).must(t, http.StatusCreated)
	o = c.del(t, pods+"/graceful", nil).must(t, http.StatusOK)
	equal(t, "deletionGracePeriodSeconds", o.num("metadata.deletionGracePeriodSeconds"), int64(30))
	if o.str("metadata.deletionTimestamp") == "" {
		t.Fatal("no deletionTimestamp")
	}
	o = c.get(t, pods+"/graceful").must(t, http.StatusOK)
	equal(t, "deletionGracePeriodSeconds", o.num("metadata.deletionGracePeriodSeconds"), int64(30))
	// gracePeriodSeconds=0 finishes it.
	c.del(t, pods+"/graceful?gracePeriodSeconds=0", nil).must(t, http.StatusOK)
	c.get(t, pods+"/graceful").expectError(t, http.StatusNotFound, "NotFound", `pods "graceful" not found`)

	c.del(t, cms+"/x?propagationPolicy=Sideways", nil).expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"`)
}

func TestDeleteWithFinalizers(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	cm := configMap("f", nil, nil)
	cm["metadata"].(obj)["finalizers"] = []string{"example.com/hold"}
	o := c.post(t, cms, cm).must(t, http.StatusCreated)
	w := c.watch(t, cms+"?watch=true&resourceVersion="+o.str("metadata.resourceVersion"))

	// The delete answers the object, which stays with a deletionTimestamp.
	o = c.del(t, cms+"/f", nil).must(t, http.StatusOK)
	equal(t, "kind", o.str("kind"), "ConfigMap")
	if o.str("metadata.deletionTimestamp") == "" {
		t.Fatalf("no deletionTimestamp: %v", o["metadata"])
	}
	equal(t, "deletionGracePeriodSeconds", o.num("metadata.deletionGracePeriodSeconds"), int64(0))
	ev := w.expect(t, "MODIFIED", "f")
	if ev.Object.str("metadata.deletionTimestamp") == "" {
		t.Fatal("MODIFIED event without deletionTimestamp")
	}
	c.get(t, cms+"/f").must(t, http.StatusOK)
	// Deleting again changes nothing.
	c.del(t, cms+"/f", nil).must(t, http.StatusOK)

	// Removing the last finalizer deletes it.
	o = c.patch(t, cms+"/f", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`).must(t, http.StatusOK)
	c.get(t, cms+"/f").expectError(t, http.StatusNotFound, "NotFound", `configmaps "f" not found`)
	w.expect(t, "DELETED", "f")
	w.expectQuiet(t, 100*time.Millisecond)
}

func TestNamespaceDeletion(t *testing.T) {
	c := shared
	for _, name := range []string{"default", "kube-system", "kube-public"} {
		st := c.del(t, "/api/v1/namespaces/"+name, nil).expectError(t, http.StatusForbidden, "Forbidden",
			fmt.Sprintf(`namespaces "%s" is forbidden: this namespace may not be deleted`, name))
		jsonEqual(t, "details", st.Details, fmt.Sprintf(`{"name":%q,"kind":"namespaces"}`, name))
	}
	ns := c.newNamespace(t)
	// Admission has read the namespace before it is deleted (and keeps it
	// decoded while its revision is current).
	c.post(t, "/api/v1/namespaces/"+ns+"/configmaps", configMap("early", nil, nil)).must(t, http.StatusCreated)
	o := c.del(t, "/api/v1/namespaces/"+ns, nil).must(t, http.StatusOK)
	equal(t, "kind", o.str("kind"), "Namespace")
	equal(t, "phase", o.str("status.phase"), "Terminating")
	if o.str("metadata.deletionTimestamp") == "" {
		t.Fatal("no deletionTimestamp")
	}
	equal(t, "spec.finalizers", o.list("spec.finalizers"), []any{"kubernetes"})

	st := c.post(t, "/api/v1/namespaces/"+ns+"/configmaps", configMap("late", nil, nil)).expectError(t, http.StatusForbidden, "Forbidden",
		fmt.Sprintf(`configmaps "late" is forbidden: unable to create new content in namespace %s because it is being terminated`, ns))
	jsonEqual(t, "details", st.Details, fmt.Sprintf(`{"name":"late","kind":"configmaps","causes":[{"reason":"NamespaceTerminating","message":"namespace %s is being terminated","field":"metadata.namespace"}]}`, ns))

	// namespaces/finalize: removing the "kubernetes" finalizer lets the namespace go.
	o["spec"] = obj{"finalizers": []string{}}
	o = c.put(t, "/api/v1/namespaces/"+ns+"/finalize", o).must(t, http.StatusOK)
	c.get(t, "/api/v1/namespaces/"+ns).expectError(t, http.StatusNotFound, "NotFound", fmt.Sprintf(`namespaces "%s" not found`, ns))
}

func TestDeleteCollection(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	for i, env := range []string{"a", "a", "b"} {
		c.post(t, cms, configMap(fmt.Sprintf("c%d", i), nil, map[string]string{"env": env})).must(t, http.StatusCreated)
	}
	o := c.del(t, cms+"?labelSelector=env%3Da", nil).must(t, http.StatusOK)
	equal(t, "kind", o.str("kind"), "ConfigMapList")
	equal(t, "deleted", names(o.items()), []string{"c0", "c1"})
	equal(t, "left", names(c.get(t, cms).must(t, http.StatusOK).items()), []string{"c2"})
}
