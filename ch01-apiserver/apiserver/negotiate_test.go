package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/apiextensions"
)

// TestNegotiate: the clause that wins, in goautoneg's order, for the Accept
// headers clients send.
func TestNegotiate(t *testing.T) {
	builtin := resourceFormats(&request{})
	for _, tc := range []struct {
		accept string
		want   format
		ok     bool
	}{
		{"", formatJSON, true},
		{"application/json", formatJSON, true},
		{"application/vnd.kubernetes.protobuf", formatProtobuf, true},
		{"application/vnd.kubernetes.protobuf, application/json", formatProtobuf, true},
		{"application/vnd.kubernetes.protobuf, */*", formatProtobuf, true},
		{"application/json, application/vnd.kubernetes.protobuf", formatJSON, true},
		// q-values first, then concrete types before wildcards.
		{"application/json;q=0.5, application/vnd.kubernetes.protobuf", formatProtobuf, true},
		{"*/*, application/vnd.kubernetes.protobuf", formatProtobuf, true},
		{"application/*", formatJSON, true},
		{"*/*", formatJSON, true},
		{"*", formatJSON, true},
		{"application/yaml", formatYAML, true},
		// A bad q is 0, and a q=0 clause still counts, last.
		{"application/vnd.kubernetes.protobuf;q=x, application/json", formatJSON, true},
		{"application/vnd.kubernetes.protobuf;q=0", formatProtobuf, true},
		// The stream parameter: watch, not for YAML.
		{"application/vnd.kubernetes.protobuf;stream=watch", formatProtobuf, true},
		{"application/vnd.kubernetes.protobuf;stream=other, application/json", formatJSON, true},
		{"application/yaml;stream=watch, application/vnd.kubernetes.protobuf", formatProtobuf, true},
		// Tables are JSON or YAML; kubectl get's header.
		{"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", formatJSON, true},
		{"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", 0, false},
		{"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/vnd.kubernetes.protobuf", formatProtobuf, true},
		// client-go's metadata client: its JSON clause.
		{"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json", formatJSON, true},
		{"application/json;as=Foo;g=meta.k8s.io;v=v1", 0, false},
		{"text/plain, foo", 0, false},
		{"text/plain/x, application/vnd.kubernetes.protobuf", formatProtobuf, true},
	} {
		f, ok := negotiate(tc.accept, builtin)
		if ok != tc.ok || ok && f != tc.want {
			t.Errorf("%q: got %d %v, want %d %v", tc.accept, f, ok, tc.want, tc.ok)
		}
	}

	// A custom resource has no protobuf form.
	custom := resourceFormats(&request{custom: &apiextensions.Served{}})
	if _, ok := negotiate("application/vnd.kubernetes.protobuf", custom); ok {
		t.Error("protobuf only: a custom resource has no protobuf form")
	}
	if f, _ := negotiate("application/vnd.kubernetes.protobuf, application/json", custom); f != formatJSON {
		t.Errorf("protobuf, then JSON: %d", f)
	}

	// Errors: no conversions.
	if f, ok := negotiate("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json", errorFormats); !ok || f != formatJSON {
		t.Errorf("error of a Table request: %d %v", f, ok)
	}
	if f, ok := negotiate("application/vnd.kubernetes.protobuf, application/json", errorFormats); !ok || f != formatProtobuf {
		t.Errorf("error of a protobuf request: %d %v", f, ok)
	}
}

// TestProtobufAnswersAsUpstream: the answers of a v1.35 apiserver in
// protobuf (testdata/protobuf, recorded with the same answers in JSON) come
// out byte for byte the same from the same objects here: two objects, a
// list, a watch event and two Status errors.
func TestProtobufAnswersAsUpstream(t *testing.T) {
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile("testdata/protobuf/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pods := scheme.Lookup("", "v1", "pods")
	configMaps := scheme.Lookup("", "v1", "configmaps")
	answer := func(res *scheme.Resource, write func(q *request)) []byte {
		rec := httptest.NewRecorder()
		q := &request{w: rec, r: httptest.NewRequest(http.MethodGet, "/", nil), res: res, protobuf: true}
		write(q)
		if ct := rec.Header().Get("Content-Type"); ct != "application/vnd.kubernetes.protobuf" {
			t.Errorf("Content-Type %q", ct)
		}
		return rec.Body.Bytes()
	}
	same := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, upstream %d\n got: %q\nwant: %q", what, len(got), len(want), got, want)
		}
	}

	for _, o := range []struct {
		file string
		res  *scheme.Resource
	}{
		{"pod", pods},
		{"customresourcedefinition", scheme.Lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")},
	} {
		obj := o.res.New()
		if err := json.Unmarshal(read(o.file+".json"), obj); err != nil {
			t.Fatal(err)
		}
		same(o.file, answer(o.res, func(q *request) { (&Server{}).writeObject(q, http.StatusOK, obj) }), read(o.file+".pb"))
	}

	var list struct {
		metav1.ListMeta `json:"metadata"`
		Items           []*corev1.ConfigMap `json:"items"`
	}
	if err := json.Unmarshal(read("configmaplist.json"), &list); err != nil {
		t.Fatal(err)
	}
	var items []metav1.Object
	for _, cm := range list.Items {
		items = append(items, cm)
	}
	same("list", answer(configMaps, func(q *request) { q.writeList(list.ListMeta, items) }), read("configmaplist.pb"))

	var ev struct {
		Type   string            `json:"type"`
		Object *corev1.ConfigMap `json:"object"`
	}
	if err := json.Unmarshal(read("watch-configmap.json"), &ev); err != nil {
		t.Fatal(err)
	}
	same("watch event", watchFrame(ev.Type, ev.Object), read("watch-configmap.pb"))

	var st metav1.Status
	if err := json.Unmarshal(read("status-notfound.json"), &st); err != nil {
		t.Fatal(err)
	}
	notFound := ErrNotFound("", "pods", "pods", "nope")
	if !equalJSON(t, notFound.Status, st) {
		t.Errorf("not found: %+v, upstream %+v", notFound.Status, st)
	}
	protobufError := func(err error) []byte {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept", "application/vnd.kubernetes.protobuf")
		writeStatus(rec, r, err)
		return rec.Body.Bytes()
	}
	same("not found", protobufError(notFound), read("status-notfound.pb"))
	same("not acceptable", protobufError(errNotAcceptable(mediaJSON, mediaYAML, mediaProtobuf)), read("status-notacceptable.pb"))
	if msg := errNotAcceptable(mediaJSON, mediaYAML, mediaProtobuf).Status.Message; !strings.HasPrefix(msg, "only the following media types are accepted: ") {
		t.Errorf("406 message %q", msg)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}
