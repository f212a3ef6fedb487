package apiserver_test

// Requests a hostile or careless client sends: each is refused the way
// upstream refuses it (status, reason and message measured against a real
// kube-apiserver v1.35.4), at a cost bounded by the request, and changes
// nothing.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// laughs is a "billion laughs" YAML document: each level an anchored
// sequence of ten aliases of the level below.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\na0: &a0 [\"lol\"]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// allocatedBy runs f and returns the bytes the whole process allocated
// meanwhile (the server's handling of the request included).
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestYAMLAliasBomb: a body of nested aliases (CVE-2019-11253), sent to an
// endpoint every authenticated user may call, is a 400 after bounded work.
func TestYAMLAliasBomb(t *testing.T) {
	c := shared
	for _, ct := range []string{"application/yaml", "application/apply-patch+yaml"} {
		var r response
		alloc := allocatedBy(func() {
			r = c.post(t, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", laughs(9), "Content-Type", ct)
		})
		if ct == "application/yaml" {
			r.expectError(t, http.StatusBadRequest, "BadRequest", "yaml: document contains excessive aliasing")
		} else if r.code != http.StatusUnsupportedMediaType && r.code != http.StatusBadRequest {
			t.Errorf("%s: got %d: %s", ct, r.code, r.body)
		}
		if alloc > 256<<20 {
			t.Errorf("%s: the server allocated %d MB for a %d-byte body", ct, alloc>>20, len(laughs(9)))
		}
	}
	// The same bomb as a server-side apply patch.
	ns := c.newNamespace(t)
	bomb := strings.Replace(laughs(9), "apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n", 1)
	alloc := allocatedBy(func() {
		c.req(t, http.MethodPatch, "/api/v1/namespaces/"+ns+"/configmaps/bomb?fieldManager=m", bomb, "Content-Type", "application/apply-patch+yaml").
			expectError(t, http.StatusBadRequest, "BadRequest", "yaml: document contains excessive aliasing")
	})
	if alloc > 256<<20 {
		t.Errorf("apply: the server allocated %d MB", alloc>>20)
	}
	c.get(t, "/api/v1/namespaces/"+ns+"/configmaps/bomb").expectError(t, http.StatusNotFound, "NotFound", `configmaps "bomb" not found`)
}

// podWithEmptyContainers is a pod of n containers with neither name nor image.
func podWithEmptyContainers(n int) []byte {
	return []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"big"},"spec":{"containers":[` +
		strings.TrimSuffix(strings.Repeat("{},", n), ",") + `]}}`)
}

// TestValidationErrorsBounded: every empty container has two errors; the
// 422 lists the first thousand, says how many more there were, and costs
// memory linear in the body (upstream's message building is quadratic).
func TestValidationErrorsBounded(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	path := "/api/v1/namespaces/" + ns + "/pods"

	// Few errors: upstream's answer to the byte.
	st := c.post(t, path, podWithEmptyContainers(2)).expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`Pod "big" is invalid: [spec.containers[0].name: Required value, spec.containers[0].image: Required value, spec.containers[1].name: Required value, spec.containers[1].image: Required value]`)
	if len(st.Details.Causes) != 4 {
		t.Errorf("causes: %d, want 4", len(st.Details.Causes))
	}

	sizes := []int{5000, 20000}
	allocs := make([]uint64, len(sizes))
	for i, n := range sizes {
		var r response
		allocs[i] = allocatedBy(func() { r = c.post(t, path, podWithEmptyContainers(n)) })
		st := r.status(t)
		if r.code != http.StatusUnprocessableEntity || len(st.Details.Causes) != 1000 {
			t.Fatalf("%d containers: %d with %d causes", n, r.code, len(st.Details.Causes))
		}
		if want := fmt.Sprintf(", and %d more errors]", 2*n-1000); !strings.HasSuffix(st.Message, want) {
			t.Errorf("%d containers: message ends %q, want %q", n, st.Message[max(0, len(st.Message)-60):], want)
		}
		if len(r.body) > 1<<20 {
			t.Errorf("%d containers: a %d-byte answer", n, len(r.body))
		}
	}
	// Four times the containers, about four times the memory (quadratic
	// message building: sixteen times).
	if ratio := float64(allocs[1]) / float64(allocs[0]); ratio > 8 {
		t.Errorf("allocated %d then %d bytes for 4x the containers (%.1fx)", allocs[0], allocs[1], ratio)
	}
	if per := allocs[1] / uint64(len(podWithEmptyContainers(sizes[1]))); per > 2000 {
		t.Errorf("%d bytes allocated per body byte", per)
	}
}

// TestQueryOptionsValidated: options a server does not know are refused
// with upstream's code and message, before anything is written.
func TestQueryOptionsValidated(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	c.post(t, cms, configMap("kept", nil, nil)).must(t, http.StatusCreated)
	body := configMap("new", nil, nil)
	long := strings.Repeat("a", 129)
	invalid := func(kind, field, reason, cause string) (string, string) {
		return fmt.Sprintf(`%s.meta.k8s.io "" is invalid: %s: %s`, kind, field, cause),
			fmt.Sprintf(`{"group":"meta.k8s.io","kind":%q,"causes":[{"reason":%q,"message":%q,"field":%q}]}`, kind, reason, cause, field)
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		headers            []string
		kind, field        string
		reason, cause      string
	}{
		{"create dryRun=Maybe", "POST", cms + "?dryRun=Maybe", body, nil, "CreateOptions", "dryRun", "FieldValueNotSupported", `Unsupported value: ["Maybe"]: supported values: "All"`},
		{"create dryRun=All&dryRun=x", "POST", cms + "?dryRun=All&dryRun=x", body, nil, "CreateOptions", "dryRun", "FieldValueNotSupported", `Unsupported value: ["All","x"]: supported values: "All"`},
		{"create fieldValidation=Loose", "POST", cms + "?fieldValidation=Loose", body, nil, "CreateOptions", "fieldValidation", "FieldValueNotSupported", `Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"`},
		{"create long fieldManager", "POST", cms + "?fieldManager=" + long, body, nil, "CreateOptions", "fieldManager", "FieldValueTooLong", "Too long: may not be more than 128 bytes"},
		{"create control char in fieldManager", "POST", cms + "?fieldManager=a%01b", body, nil, "CreateOptions", "fieldManager", "FieldValueInvalid", `Invalid value: "a\x01b": invalid character U+0001 (at position 1)`},
		{"update dryRun=yes", "PUT", cms + "/kept?dryRun=yes", configMap("kept", nil, nil), nil, "UpdateOptions", "dryRun", "FieldValueNotSupported", `Unsupported value: ["yes"]: supported values: "All"`},
		{"update fieldValidation=Loose", "PUT", cms + "/kept?fieldValidation=Loose", configMap("kept", nil, nil), nil, "UpdateOptions", "fieldValidation", "FieldValueNotSupported", `Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"`},
		{"patch dryRun=yes", "PATCH", cms + "/kept?dryRun=yes", `{}`, []string{"Content-Type", "application/merge-patch+json"}, "PatchOptions", "dryRun", "FieldValueNotSupported", `Unsupported value: ["yes"]: supported values: "All"`},
		{"patch force without apply", "PATCH", cms + "/kept?force=true", `{}`, []string{"Content-Type", "application/merge-patch+json"}, "PatchOptions", "force", "FieldValueForbidden", "Forbidden: may not be specified for non-apply patch"},
		{"delete dryRun=yes", "DELETE", cms + "/kept?dryRun=yes", nil, nil, "DeleteOptions", "dryRun", "FieldValueNotSupported", `Unsupported value: ["yes"]: supported values: "All"`},
		{"delete dryRun in the body", "DELETE", cms + "/kept", `{"dryRun":["yes"]}`, nil, "DeleteOptions", "dryRun", "FieldValueNotSupported", `Unsupported value: ["yes"]: supported values: "All"`},
		{"deletecollection dryRun=yes", "DELETE", cms + "?dryRun=yes", nil, nil, "DeleteOptions", "dryRun", "FieldValueNotSupported", `Unsupported value: ["yes"]: supported values: "All"`},
		{"delete orphan and policy", "DELETE", cms + "/kept", `{"orphanDependents":true,"propagationPolicy":"Orphan"}`, nil, "DeleteOptions", "propagationPolicy", "FieldValueInvalid", `Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, details := invalid(tc.kind, tc.field, tc.reason, tc.cause)
			st := c.req(t, tc.method, tc.path, tc.body, tc.headers...).expectError(t, http.StatusUnprocessableEntity, "Invalid", msg)
			jsonEqual(t, "details", st.Details, details)
		})
	}
	// Nothing was written: "new" was never created, "kept" is still there, unchanged.
	c.get(t, cms+"/new").expectError(t, http.StatusNotFound, "NotFound", `configmaps "new" not found`)
	if rv := c.get(t, cms+"/kept").must(t, http.StatusOK).str("metadata.resourceVersion"); rv == "" {
		t.Fatal("kept has no resourceVersion")
	}

	// Malformed numbers and durations: 400 with the parser's words.
	c.get(t, cms+"?timeout=abc").expectError(t, http.StatusBadRequest, "BadRequest", `invalid timeout specified in the request URL - time: invalid duration "abc"`)
	c.post(t, cms+"?timeout=abc", body).expectError(t, http.StatusBadRequest, "BadRequest", `invalid timeout specified in the request URL - time: invalid duration "abc"`)
	c.get(t, cms+"?limit=abc").expectError(t, http.StatusBadRequest, "BadRequest", `strconv.ParseInt: parsing "abc": invalid syntax`)
	c.del(t, cms+"/kept?gracePeriodSeconds=abc", nil).expectError(t, http.StatusBadRequest, "BadRequest", `strconv.ParseInt: parsing "abc": invalid syntax`)
	c.get(t, cms+"?resourceVersion=abc").expectError(t, http.StatusBadRequest, "BadRequest",
		`invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`)
	// A negative limit is no limit.
	if items := c.get(t, cms+"?limit=-1").must(t, http.StatusOK)["items"].([]any); len(items) != 1 {
		t.Errorf("limit=-1 listed %d items", len(items))
	}
	c.get(t, cms+"/new").expectError(t, http.StatusNotFound, "NotFound", `configmaps "new" not found`)
}

// TestMediaTypesNegotiated: bodies and answers of types the server does not
// speak are refused with upstream's 415 and 406.
func TestMediaTypesNegotiated(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	body := configMap("x", nil, nil)
	const bodyTypes = "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"
	c.post(t, cms, body, "Content-Type", ";;;").expectError(t, http.StatusUnsupportedMediaType, "UnsupportedMediaType", bodyTypes)
	c.post(t, cms, body, "Content-Type", "text/plain").expectError(t, http.StatusUnsupportedMediaType, "UnsupportedMediaType", bodyTypes)
	c.get(t, cms+"/x").expectError(t, http.StatusNotFound, "NotFound", `configmaps "x" not found`)
	// No Content-Type at all is JSON.
	c.post(t, cms, body, "Content-Type", "").must(t, http.StatusCreated)

	st := c.get(t, cms, "Accept", "foo/bar").expectError(t, http.StatusNotAcceptable, "NotAcceptable",
		"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch")
	jsonEqual(t, "details", st.Details, `{}`)
	c.get(t, cms+"/x", "Accept", "foo/bar").expectError(t, http.StatusNotAcceptable, "NotAcceptable",
		"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf")
	c.post(t, cms, configMap("y", nil, nil), "Accept", "foo/bar").expectError(t, http.StatusNotAcceptable, "NotAcceptable",
		"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf")
	c.get(t, cms+"/y").expectError(t, http.StatusNotFound, "NotFound", `configmaps "y" not found`)
	c.get(t, cms, "Accept", "application/json;as=Table;g=meta.k8s.io;v=v2").expectError(t, http.StatusNotAcceptable, "NotAcceptable",
		"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf")
	// What kubectl and client-go send is fine.
	c.get(t, cms+"/x", "Accept", "foo/bar, application/json").must(t, http.StatusOK)
	c.get(t, cms, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json").must(t, http.StatusOK)
	r := c.get(t, cms, "Accept", "application/vnd.kubernetes.protobuf, */*")
	if r.code != http.StatusOK || r.header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" || !bytes.HasPrefix(r.body, []byte("k8s\x00")) {
		t.Errorf("protobuf first: %d %q %q", r.code, r.header.Get("Content-Type"), r.body)
	}
}

// TestWatchParameters: ?watch= is read as upstream reads a boolean, and a
// negative timeoutSeconds ends the watch at once.
func TestWatchParameters(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	c.post(t, cms, configMap("a", nil, nil)).must(t, http.StatusCreated)

	// watch=maybe is a watch: the first line is an ADDED event.
	line := firstWatchLine(t, c, cms+"?watch=maybe")
	var ev struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Type != "ADDED" {
		t.Errorf("watch=maybe: first line %q", line)
	}
	// watch=false and watch=0 are lists.
	for _, v := range []string{"false", "0"} {
		if kind := c.get(t, cms+"?watch="+v).must(t, http.StatusOK).str("kind"); kind != "ConfigMapList" {
			t.Errorf("watch=%s: kind %q", v, kind)
		}
	}
	// A negative timeout: 200 and an empty stream, closed by the server.
	r := c.get(t, cms+"?watch=true&timeoutSeconds=-1")
	if r.code != http.StatusOK || len(r.body) != 0 {
		t.Errorf("timeoutSeconds=-1: %d %q", r.code, r.body)
	}
}

// firstWatchLine opens a watch and returns its first line.
func firstWatchLine(t *testing.T, c *cluster, path string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 4096)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		n, err := resp.Body.Read(tmp)
		buf = append(buf, tmp[:n]...)
		if i := strings.IndexByte(string(buf), '\n'); i >= 0 {
			return string(buf[:i])
		}
		if err != nil {
			break
		}
	}
	return string(buf)
}

// TestKubeletDialRefused: the apiserver dials a kubelet only at an IP
// address of a node that reports a kubelet port. A simulated node (port 0)
// and a node known only by a name are refused without any dial.
func TestKubeletDialRefused(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	for _, n := range []struct {
		name   string
		status obj
		want   string
	}{
		{"hollow-" + ns, obj{"addresses": []obj{{"type": "InternalIP", "address": "127.0.1.1"}}, "daemonEndpoints": obj{"kubeletEndpoint": obj{"Port": 0}}},
			`node "hollow-` + ns + `" reports no kubelet endpoint (status.daemonEndpoints.kubeletEndpoint.Port is 0): nothing on it answers for its pods`},
		{"named-" + ns, obj{"addresses": []obj{{"type": "Hostname", "address": "kubelet.example.com"}}, "daemonEndpoints": obj{"kubeletEndpoint": obj{"Port": 10250}}},
			`no preferred addresses found; known addresses: [{Hostname kubelet.example.com}]`},
	} {
		c.post(t, "/api/v1/nodes", obj{"metadata": obj{"name": n.name}}).must(t, http.StatusCreated)
		node := c.get(t, "/api/v1/nodes/"+n.name).must(t, http.StatusOK)
		node["status"] = n.status
		c.put(t, "/api/v1/nodes/"+n.name+"/status", node).must(t, http.StatusOK)
		t.Cleanup(func() { c.del(t, "/api/v1/nodes/"+n.name, nil) })
		p := pod("on-"+n.name, nil)
		p["spec"].(obj)["nodeName"] = n.name
		c.post(t, "/api/v1/namespaces/"+ns+"/pods", p).must(t, http.StatusCreated)
		base := "/api/v1/namespaces/" + ns + "/pods/on-" + n.name + "/"
		c.get(t, base+"log").expectError(t, http.StatusBadRequest, "BadRequest", n.want)
		upgrade(t, c, http.MethodPost, base+"exec?command=date&stdout=true", "Connection", "Upgrade", "Upgrade", "SPDY/3.1").
			expectError(t, http.StatusBadRequest, "BadRequest", n.want)
	}
}
