package apiserver_test

// The tests of this package drive a real apiserver in-process over HTTPS with
// the admin kubeconfig's client certificate, and compare status codes,
// reasons and messages with what upstream kube-apiserver answers.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/storage"
)

// cluster is one in-process apiserver and a client for it.
type cluster struct {
	*app.Cluster
	client *http.Client // admin: the kubeconfig's client certificate
	anon   *http.Client // trusts the CA, presents no certificate
	store  storage.Interface
}

// shared is the apiserver most tests use; each test works in its own namespace.
var shared *cluster

func TestMain(m *testing.M) {
	apiserver.SetBookmarkInterval(200 * time.Millisecond)
	dir, err := os.MkdirTemp("", "kubik-apiserver-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	shared, err = startCluster(ctx, dir, storage.NewMemory(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the apiserver:", err)
		os.Exit(1)
	}
	code := m.Run()
	cancel()
	os.RemoveAll(dir)
	os.Exit(code)
}

func startCluster(ctx context.Context, dir string, store storage.Interface) (*cluster, error) {
	opts := &app.Options{DataDir: dir, SecurePort: 0, BindAddress: "127.0.0.1",
		ServiceClusterIPRange: "10.96.0.0/12", ServiceNodePortRange: "30000-32767",
		MinRequestTimeout: 1800, RequestTimeout: time.Minute, LogLevel: "error"}
	log := slog.New(slog.DiscardHandler)
	c, _, err := app.Start(ctx, opts, store, log, nil)
	if err != nil {
		return nil, err
	}
	kc, err := pki.LoadKubeconfig(c.AdminKubeconfig)
	if err != nil {
		return nil, err
	}
	anonTLS := kc.TLS.Clone()
	anonTLS.Certificates = nil
	return &cluster{Cluster: c, client: kc.HTTPClient(), store: store,
		anon: &http.Client{Transport: &http.Transport{TLSClientConfig: anonTLS}}}, nil
}

// newCluster starts a private apiserver on store for one test.
func newCluster(t *testing.T, store storage.Interface) *cluster {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := startCluster(ctx, t.TempDir(), store)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return c
}

// response is what one request got back.
type response struct {
	code   int
	header http.Header
	body   []byte
}

// req sends body (nil, string, []byte or anything JSON-encodable) with the
// given headers ("Content-Type", "application/yaml", ...); JSON by default.
func (c *cluster) req(t testing.TB, method, path string, body any, headers ...string) response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	r, err := http.NewRequest(method, c.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.client.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: data}
}

func (c *cluster) get(t testing.TB, path string, headers ...string) response {
	t.Helper()
	return c.req(t, http.MethodGet, path, nil, headers...)
}

func (c *cluster) post(t testing.TB, path string, body any, headers ...string) response {
	t.Helper()
	return c.req(t, http.MethodPost, path, body, headers...)
}

func (c *cluster) put(t testing.TB, path string, body any, headers ...string) response {
	t.Helper()
	return c.req(t, http.MethodPut, path, body, headers...)
}

func (c *cluster) patch(t testing.TB, path, contentType string, body any) response {
	t.Helper()
	return c.req(t, http.MethodPatch, path, body, "Content-Type", contentType)
}

func (c *cluster) del(t testing.TB, path string, body any) response {
	t.Helper()
	return c.req(t, http.MethodDelete, path, body)
}

// must checks the code and returns the body as a generic object.
func (r response) must(t testing.TB, code int) obj {
	t.Helper()
	if r.code != code {
		t.Fatalf("got %d, want %d: %s", r.code, code, r.body)
	}
	var o obj
	if err := json.Unmarshal(r.body, &o); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.body)
	}
	return o
}

// status decodes a Status body and checks its code, which must match the HTTP code.
func (r response) status(t testing.TB) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatalf("not a Status: %v: %s", err, r.body)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" {
		t.Fatalf("kind/apiVersion = %q/%q, want Status/v1: %s", st.Kind, st.APIVersion, r.body)
	}
	if st.Status != metav1.StatusSuccess && int(st.Code) != r.code {
		t.Fatalf("Status code %d, HTTP code %d: %s", st.Code, r.code, r.body)
	}
	return st
}

// expectError checks an error response: HTTP code, reason and exact message.
func (r response) expectError(t testing.TB, code int, reason, message string) metav1.Status {
	t.Helper()
	if r.code != code {
		t.Fatalf("got %d, want %d: %s", r.code, code, r.body)
	}
	st := r.status(t)
	if st.Status != metav1.StatusFailure || st.Reason != reason || st.Message != message {
		t.Fatalf("got status=%q reason=%q message=%q\nwant reason=%q message=%q", st.Status, st.Reason, st.Message, reason, message)
	}
	return st
}

// obj is a decoded JSON object with dotted-path access.
type obj map[string]any

func (o obj) path(p string) any {
	var cur any = map[string]any(o)
	for _, part := range strings.Split(p, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[part]
		case obj:
			cur = c[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

func (o obj) str(p string) string {
	s, _ := o.path(p).(string)
	return s
}

func (o obj) num(p string) int64 {
	f, _ := o.path(p).(float64)
	return int64(f)
}

func (o obj) list(p string) []any {
	l, _ := o.path(p).([]any)
	return l
}

func (o obj) items() []obj {
	var out []obj
	for _, it := range o.list("items") {
		out = append(out, obj(it.(map[string]any)))
	}
	return out
}

func names(items []obj) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.str("metadata.name"))
	}
	return out
}

func equal(t testing.TB, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s = %#v, want %#v", what, got, want)
	}
}

// jsonEqual compares got with the JSON text want, ignoring formatting.
func jsonEqual(t testing.TB, what string, got any, want string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	json.Unmarshal(b, &g)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s =\n%s\nwant\n%s", what, b, want)
	}
}

var nsCounter atomic.Int64

// newNamespace creates a namespace for one test.
func (c *cluster) newNamespace(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%s", nsCounter.Add(1), strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name())))
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	c.post(t, "/api/v1/namespaces", obj{"metadata": obj{"name": name}}).must(t, http.StatusCreated)
	return name
}

func configMap(name string, data map[string]string, labels map[string]string) obj {
	o := obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": name}, "data": data}
	if labels != nil {
		o["metadata"].(obj)["labels"] = labels
	}
	return o
}

func pod(name string, labels map[string]string) obj {
	m := obj{"name": name}
	if labels != nil {
		m["labels"] = labels
	}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": m,
		"spec": obj{"containers": []obj{{"name": "app", "image": "nginx:1.27"}}}}
}

func deployment(name string, replicas int) obj {
	labels := map[string]string{"app": name}
	return obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": obj{"name": name},
		"spec": obj{"replicas": replicas, "selector": obj{"matchLabels": labels},
			"template": obj{"metadata": obj{"labels": labels},
				"spec": obj{"containers": []obj{{"name": "app", "image": "nginx:1.27"}}}}}}
}

// watcher reads a watch stream event by event.
type watcher struct {
	events chan event
	cancel context.CancelFunc
	done   chan struct{}
}

type event struct {
	Type   string
	Object obj
}

func (c *cluster) watch(t testing.TB, path string, headers ...string) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.client.Do(r)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("watch %s: %d %s", path, resp.StatusCode, b)
	}
	w := &watcher{events: make(chan event, 100), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer close(w.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 4<<20)
		for sc.Scan() {
			var ev event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				ev = event{Type: "UNPARSEABLE", Object: obj{"line": sc.Text()}}
			}
			w.events <- ev
		}
	}()
	t.Cleanup(w.stop)
	return w
}

func (w *watcher) stop() { w.cancel(); <-w.done }

// next returns the next event, failing after a few seconds.
func (w *watcher) next(t testing.TB) event {
	t.Helper()
	select {
	case ev, ok := <-w.events:
		if !ok {
			t.Fatal("watch closed, want an event")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no watch event within 5s")
	}
	return event{}
}

// nextNonBookmark skips bookmarks.
func (w *watcher) nextNonBookmark(t testing.TB) event {
	t.Helper()
	for {
		if ev := w.next(t); ev.Type != "BOOKMARK" {
			return ev
		}
	}
}

// expect reads one event and checks its type and object name.
func (w *watcher) expect(t testing.TB, typ, name string) event {
	t.Helper()
	ev := w.nextNonBookmark(t)
	if ev.Type != typ || ev.Object.str("metadata.name") != name {
		t.Fatalf("got %s %s, want %s %s", ev.Type, ev.Object.str("metadata.name"), typ, name)
	}
	return ev
}

// expectQuiet checks that no (non-bookmark) event arrives for a moment.
func (w *watcher) expectQuiet(t testing.TB, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-w.events:
			if !ok {
				return
			}
			if ev.Type != "BOOKMARK" {
				t.Fatalf("unexpected event %s %s", ev.Type, ev.Object.str("metadata.name"))
			}
		case <-deadline:
			return
		}
	}
}
