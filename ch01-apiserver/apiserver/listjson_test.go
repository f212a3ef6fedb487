package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/storage"
)

// TestListFastPathSameBytes: a JSON list built from the stored bytes
// (listjson.go) is byte for byte the list the slow path writes — decode every
// object, json.Marshal a metav1.List — for varied objects, selectors and pages.
func TestListFastPathSameBytes(t *testing.T) {
	ctx := context.Background()
	store := storage.NewMemory(0)
	s := &Server{cfg: Config{Storage: store}}
	put := func(group, version, resource, body string) {
		t.Helper()
		res := scheme.Lookup(group, version, resource)
		obj := res.New()
		if err := json.Unmarshal([]byte(body), obj); err != nil {
			t.Fatal(err)
		}
		data, err := encodeForStorage(res, obj)
		if err != nil {
			t.Fatal(err)
		}
		m := obj.GetObjectMeta()
		if _, err := store.Create(ctx, storageKey(res, m.Namespace, m.Name), data); err != nil {
			t.Fatal(err)
		}
	}
	put("", "v1", "pods", `{"metadata":{"name":"full","generateName":"fu","namespace":"a","selfLink":"/x","uid":"u-\"}1",
		"generation":3,"creationTimestamp":"2025-01-02T03:04:05Z","deletionTimestamp":"2025-01-02T03:05:05Z","deletionGracePeriodSeconds":30,
		"labels":{"app":"web","tier":"<b>&"},"annotations":{"note":"{\"x\":\"}\\\"é\u2028\"}"},
		"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"r1","controller":true}],
		"finalizers":["x/y"],"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2025-01-02T03:04:05Z",
		"fieldsType":"FieldsV1","fieldsV1":{"f:metadata": {"f:labels":{}}}}]},
		"spec":{"nodeName":"n1","containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":"0.5","memory":"1024Mi"}}}]},
		"status":{"phase":"Running"}}`)
	put("", "v1", "pods", `{"metadata":{"name":"min","namespace":"a"}}`)
	put("", "v1", "pods", `{"metadata":{"name":"other","namespace":"a","labels":{"app":"db"}},"spec":{"nodeName":"n2"}}`)
	put("", "v1", "pods", `{"metadata":{"name":"p","namespace":"b","uid":"u2","labels":{"app":"web"}}}`)
	put("", "v1", "configmaps", `{"metadata":{"name":"cm","namespace":"a"},"data":{"k":"<v> & \"w\""}}`)
	put("", "v1", "namespaces", `{"metadata":{"name":"a","labels":{"team":"x"}}}`)
	put("", "v1", "namespaces", `{"metadata":{"name":"b"}}`)
	put("apps", "v1", "deployments", `{"metadata":{"name":"d","namespace":"a","generation":2},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
		"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}}}}`)
	put("", "v1", "events", `{"metadata":{"name":"e","namespace":"a"},"involvedObject":{"kind":"Pod","name":"full"},"reason":"Started",
		"eventTime":"2025-01-02T03:04:05.123456Z","count":2}`)
	put("coordination.k8s.io", "v1", "leases", `{"metadata":{"name":"l","namespace":"a"},"spec":{"holderIdentity":"h","renewTime":"2025-01-02T03:04:05.000001Z"}}`)
	put("", "v1", "secrets", `{"metadata":{"name":"s","namespace":"a"},"data":{"k":"PGI+"},"type":"Opaque"}`)
	put("", "v1", "services", `{"metadata":{"name":"svc","namespace":"b"},"spec":{"ports":[{"port":80,"targetPort":"http"},{"port":81,"targetPort":8081}]}}`)
	put("", "v1", "nodes", `{"metadata":{"name":"n1"},"status":{"capacity":{"cpu":"2","memory":"4096Ki"}}}`)
	// Values not shaped as encodeForStorage writes them take the decoding path.
	odd := map[string]string{
		"/registry/configmaps/a/odd":    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"a","name":"odd"},"data":{"k":"v"}}`,
		"/registry/configmaps/a/withrv": `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"withrv","namespace":"a","resourceVersion":"1"}}`,
	}
	for key, value := range odd {
		if _, err := store.Create(ctx, key, []byte(value)); err != nil {
			t.Fatal(err)
		}
	}

	// Every value that encodeForStorage wrote is spliced, not decoded.
	all, err := store.List(ctx, "/registry/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range all.KVs {
		var tm metav1.TypeMeta
		json.Unmarshal(kv.Value, &tm)
		res := scheme.ByKind(tm.APIVersion, tm.Kind)
		if _, _, ok := resourceVersionAt(res, kv); ok != (odd[kv.Key] == "") {
			t.Errorf("%s: spliced %v", kv.Key, ok)
		}
	}

	list := func(t *testing.T, group, version, resource, namespace, query string) string {
		t.Helper()
		res := scheme.Lookup(group, version, resource)
		q := &request{w: httptest.NewRecorder(), r: httptest.NewRequest(http.MethodGet, "/?"+query, nil),
			info: &RequestInfo{Verb: "list", Namespace: namespace}, res: res}
		if !useListFastPath(q) {
			t.Fatalf("%s: no fast path", resource)
		}
		opts, err := parseListOptions(q)
		if err != nil {
			t.Fatal(err)
		}
		// The slow path, as handleList writes it.
		items, listMeta, err := s.list(ctx, res, namespace, opts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(metav1.List{
			TypeMeta: metav1.TypeMeta{Kind: res.ListKind(), APIVersion: res.GroupVersion()},
			ListMeta: listMeta,
			Items:    nonNilItems(withoutTypeMeta(q, items)),
		})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n') // writeJSON ends the answer as upstream's serializer does
		if err := s.writeListJSON(ctx, q, opts); err != nil {
			t.Fatal(err)
		}
		got := q.w.(*httptest.ResponseRecorder).Body.String()
		if strings.Contains(got, `"items":[{"kind"`) || strings.Contains(got, `},{"kind"`) {
			t.Fatalf("%s: typed list items carry their kind: %.200s", resource, got)
		}
		if got != string(want) {
			t.Fatalf("%s %s ?%s:\nfast: %s\nslow: %s", resource, namespace, query, got, want)
		}
		return got
	}
	for _, c := range []struct{ group, version, resource, namespace, query string }{
		{"", "v1", "pods", "a", ""},
		{"", "v1", "pods", "", ""},
		{"", "v1", "pods", "", "labelSelector=app%3Dweb"},
		{"", "v1", "pods", "", "labelSelector=app!%3Dweb,tier"},
		{"", "v1", "pods", "", "fieldSelector=spec.nodeName%3Dn2"},
		{"", "v1", "pods", "", "fieldSelector=metadata.name!%3Dmin&labelSelector=app"},
		{"", "v1", "pods", "", "resourceVersion=0"},
		{"", "v1", "services", "a", ""}, // "items":[]
		{"", "v1", "configmaps", "a", ""},
		{"", "v1", "namespaces", "", "labelSelector=team"},
		{"", "v1", "namespaces", "", ""},
		{"apps", "v1", "deployments", "a", ""},
		{"", "v1", "events", "", ""},
		{"coordination.k8s.io", "v1", "leases", "", ""},
		{"", "v1", "secrets", "", ""},
		{"", "v1", "services", "", ""},
		{"", "v1", "nodes", "", ""},
	} {
		list(t, c.group, c.version, c.resource, c.namespace, c.query)
	}
	// Pages, with and without a selector.
	for _, query := range []string{"limit=1", "limit=2&labelSelector=app"} {
		pages := 0
		for page := query; ; pages++ {
			var l struct {
				Metadata metav1.ListMeta `json:"metadata"`
			}
			if err := json.Unmarshal([]byte(list(t, "", "v1", "pods", "", page)), &l); err != nil {
				t.Fatal(err)
			}
			if l.Metadata.Continue == "" {
				break
			}
			page = query + "&continue=" + url.QueryEscape(l.Metadata.Continue)
		}
		if pages < 1 {
			t.Errorf("?%s: one page, want several", query)
		}
	}
}

// TestListFastPathNotTaken: Tables and kinds with a storage conversion take
// the slow path.
func TestListFastPathNotTaken(t *testing.T) {
	table := httptest.NewRequest(http.MethodGet, "/", nil)
	table.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	for _, c := range []struct {
		res *scheme.Resource
		r   *http.Request
	}{
		{scheme.Lookup("", "v1", "pods"), table},
		{scheme.Lookup("events.k8s.io", "v1", "events"), httptest.NewRequest(http.MethodGet, "/", nil)},
	} {
		if useListFastPath(&request{r: c.r, res: c.res}) {
			t.Errorf("%s %s: fast path taken", c.res.GroupResource(), c.r.Header.Get("Accept"))
		}
	}
}

// BenchmarkListJSON10kPods: the server's side of a LIST of 10,000 pods from
// memory, without HTTP — the fast path against decode-and-encode.
func BenchmarkListJSON10kPods(b *testing.B) {
	ctx := context.Background()
	store := storage.NewMemory(0)
	s := &Server{cfg: Config{Storage: store}}
	res := scheme.Lookup("", "v1", "pods")
	for i := range 10000 {
		obj := res.New()
		json.Unmarshal([]byte(`{"metadata":{"name":"pod-`+strconv.Itoa(i)+`","namespace":"bench","uid":"0f4e5c2a-8d41-4a7e-9b8e-1c2d3e4f5a6b",
			"creationTimestamp":"2025-01-02T03:04:05Z","labels":{"app":"bench"}},
			"spec":{"containers":[{"name":"app","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],
			"resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
			"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default",
			"schedulerName":"default-scheduler","enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority","priority":0,
			"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]},
			"status":{"phase":"Pending","qosClass":"BestEffort"}}`), obj)
		data, err := encodeForStorage(res, obj)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := store.Create(ctx, storageKey(res, "bench", obj.GetObjectMeta().Name), data); err != nil {
			b.Fatal(err)
		}
	}
	newRequest := func() *request {
		return &request{w: discardWriter{http.Header{}}, r: httptest.NewRequest(http.MethodGet, "/", nil),
			info: &RequestInfo{Verb: "list", Namespace: "bench"}, res: res}
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if err := s.writeListJSON(ctx, newRequest(), listOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("slow", func(b *testing.B) {
		for b.Loop() {
			q := newRequest()
			items, listMeta, err := s.list(ctx, res, "bench", listOptions{})
			if err != nil {
				b.Fatal(err)
			}
			writeJSON(q.w, http.StatusOK, metav1.List{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: listMeta, Items: items})
		}
	})
}

type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header         { return d.h }
func (d discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d discardWriter) WriteHeader(int)             {}
