package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"kubik/ch01-apiserver/api/corev1"
	kubikmetav1 "kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/protobuf"
)

// protobufClient is client-go's REST client asking for protobuf only, as
// client-go's clientsets do with ContentType protobuf, and decoding the
// answers with apimachinery's protobuf serializer and upstream's generated
// code. Its scheme reads a ConfigMap into PartialObjectMetadata and a
// ConfigMapList into PartialObjectMetadataList: their protobuf fields are
// the first ones of those kinds (metadata = 1; items = 2), and the
// generated code skips the rest, as it skips any unknown field.
func protobufClient(t *testing.T, c *cluster) *rest.RESTClient {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.AdminKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	gv := schema.GroupVersion{Version: "v1"}
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(gv.WithKind("ConfigMap"), &metav1.PartialObjectMetadata{})
	s.AddKnownTypeWithName(gv.WithKind("ConfigMapList"), &metav1.PartialObjectMetadataList{})
	metav1.AddToGroupVersion(s, gv)
	cfg.APIPath = "/api"
	cfg.GroupVersion = &gv
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(s).WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// TestProtobufAnswers: get, list, watch, create and a Status error in
// protobuf, read by client-go; the same object in protobuf and in JSON;
// the Content-Type headers; and the 406 of a custom resource asked for in
// protobuf only, byte for byte as upstream writes it.
func TestProtobufAnswers(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rc := protobufClient(t, c)
	cms := func() *rest.Request { return rc.Get().Namespace(ns).Resource("configmaps") }

	// Create, with a protobuf body from client-go, answered in protobuf.
	var created metav1.PartialObjectMetadata
	body := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "web"}}}
	if err := rc.Post().Namespace(ns).Resource("configmaps").Body(body).Do(ctx).Into(&created); err != nil {
		t.Fatal(err)
	}
	if created.Name != "a" || created.Namespace != ns || created.Labels["app"] != "web" || created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() {
		t.Fatalf("created: %+v", created.ObjectMeta)
	}

	// Get: the same object, and the raw answer is the envelope.
	var got metav1.PartialObjectMetadata
	if err := cms().Name("a").Do(ctx).Into(&got); err != nil {
		t.Fatal(err)
	}
	if got.UID != created.UID || got.ResourceVersion != created.ResourceVersion || len(got.ManagedFields) != 1 {
		t.Errorf("get: %+v, created %+v", got.ObjectMeta, created.ObjectMeta)
	}
	getRaw, err := cms().Name("a").Do(ctx).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if apiVersion, kind, _, err := protobuf.DecodeEnvelope(getRaw); err != nil || apiVersion != "v1" || kind != "ConfigMap" {
		t.Errorf("get: %q %q %v", apiVersion, kind, err)
	}

	// List.
	var list metav1.PartialObjectMetadataList
	if err := cms().Do(ctx).Into(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "a" || list.ResourceVersion == "" {
		t.Fatalf("list: %+v", list)
	}

	// Watch from the list: what happens next, in protobuf frames.
	w, err := cms().VersionedParams(&metav1.ListOptions{Watch: true, ResourceVersion: list.ResourceVersion}, metav1.ParameterCodec).Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	c.post(t, "/api/v1/namespaces/"+ns+"/configmaps", configMap("b", nil, nil)).must(t, http.StatusCreated)
	c.del(t, "/api/v1/namespaces/"+ns+"/configmaps/b", nil).must(t, http.StatusOK)
	for _, want := range []watch.EventType{watch.Added, watch.Deleted} {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch closed")
			}
			m, isMeta := ev.Object.(*metav1.PartialObjectMetadata)
			if ev.Type != want || !isMeta || m.Name != "b" {
				t.Fatalf("got %s %#v, want %s b", ev.Type, ev.Object, want)
			}
		case <-ctx.Done():
			t.Fatalf("no %s event", want)
		}
	}

	// A Status error, decoded from protobuf.
	err = cms().Name("nope").Do(ctx).Into(&got)
	if !apierrors.IsNotFound(err) || err.Error() != `configmaps "nope" not found` {
		t.Errorf("not found: %v", err)
	}
	if raw, _ := cms().Name("nope").Do(ctx).Raw(); !bytes.HasPrefix(raw, protobuf.Magic) {
		t.Errorf("not found: %q", raw)
	}

	// Every field of a pod survives protobuf: read in both formats, the
	// protobuf answer decoded (protobuf.Unmarshal) is the JSON answer.
	pods := "/api/v1/namespaces/" + ns + "/pods"
	c.post(t, pods, pod("p", map[string]string{"app": "web"})).must(t, http.StatusCreated)
	asJSON := c.get(t, pods+"/p")
	asProtobuf := c.get(t, pods+"/p", "Accept", "application/vnd.kubernetes.protobuf, application/json")
	if ct := asProtobuf.header.Get("Content-Type"); ct != "application/vnd.kubernetes.protobuf" {
		t.Fatalf("Content-Type %q", ct)
	}
	apiVersion, kind, raw, err := protobuf.DecodeEnvelope(asProtobuf.body)
	if err != nil || apiVersion != "v1" || kind != "Pod" {
		t.Fatalf("envelope: %q %q %v", apiVersion, kind, err)
	}
	p := &corev1.Pod{}
	if err := protobuf.Unmarshal(raw, p); err != nil {
		t.Fatal(err)
	}
	p.APIVersion, p.Kind = apiVersion, kind
	if b, _ := json.Marshal(p); !bytes.Equal(append(b, '\n'), asJSON.body) {
		t.Errorf("pod from protobuf:\n%s\nin JSON:\n%s", b, asJSON.body)
	}

	// A longer list, encoded by several workers, is the JSON list item for
	// item, in order.
	for i := range 130 {
		c.post(t, "/api/v1/namespaces/"+ns+"/configmaps", configMap(fmt.Sprintf("cm-%03d", i), map[string]string{"i": strconv.Itoa(i)}, nil)).must(t, http.StatusCreated)
	}
	cmList := "/api/v1/namespaces/" + ns + "/configmaps"
	type configMapList struct {
		kubikmetav1.ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
		Items                []corev1.ConfigMap `json:"items" protobuf:"bytes,2,rep,name=items"`
	}
	sameList := func(query string, n int) {
		t.Helper()
		var fromJSON, fromPB configMapList
		if err := json.Unmarshal(c.get(t, cmList+query).body, &fromJSON); err != nil {
			t.Fatal(err)
		}
		_, kind, raw, err := protobuf.DecodeEnvelope(c.get(t, cmList+query, "Accept", "application/vnd.kubernetes.protobuf").body)
		if err != nil || kind != "ConfigMapList" {
			t.Fatalf("list envelope: %q %v", kind, err)
		}
		if err := protobuf.Unmarshal(raw, &fromPB); err != nil {
			t.Fatal(err)
		}
		if len(fromPB.Items) != n {
			t.Fatalf("protobuf list %s: %d items, want %d", query, len(fromPB.Items), n)
		}
		if a, b := mustJSON(t, fromPB), mustJSON(t, fromJSON); !bytes.Equal(a, b) {
			t.Errorf("list %s from protobuf:\n%s\nin JSON:\n%s", query, a, b)
		}
	}
	sameList("", 131)
	// The items listed are kept encoded by revision: after one of them
	// changes, the next lists (whole, from the watch cache, by a selector)
	// carry its new state and the others as they were.
	c.patch(t, cmList+"/cm-007", "application/merge-patch+json", map[string]any{"data": map[string]string{"i": "changed"}}).must(t, http.StatusOK)
	sameList("", 131)
	sameList("?resourceVersion=0", 131)
	sameList("?fieldSelector=metadata.name%3Dcm-007", 1)
	c.patch(t, cmList+"/cm-007", "application/merge-patch+json", map[string]any{"data": map[string]string{"i": "again"}}).must(t, http.StatusOK)
	sameList("?fieldSelector=metadata.name%3Dcm-007", 1)
	sameList("", 131)

	// Content types: a list, a watch, an error.
	for path, want := range map[string]string{
		pods:                                "application/vnd.kubernetes.protobuf",
		pods + "?watch=1&timeoutSeconds=-1": "application/vnd.kubernetes.protobuf;stream=watch",
		pods + "/nope":                      "application/vnd.kubernetes.protobuf",
	} {
		if ct := c.get(t, path, "Accept", "application/vnd.kubernetes.protobuf").header.Get("Content-Type"); ct != want {
			t.Errorf("%s: Content-Type %q, want %q", path, ct, want)
		}
	}

	// A Table has no protobuf form: upstream's 406 in JSON.
	c.get(t, pods, "Accept", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io").expectError(t, http.StatusNotAcceptable, "NotAcceptable",
		"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf")

	// Nor has YAML a stream form.
	c.get(t, pods+"?watch=1", "Accept", "application/yaml").expectError(t, http.StatusNotAcceptable, "NotAcceptable",
		"only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch")

	// A custom resource has none either: JSON when the client takes it, else
	// upstream's 406, itself in protobuf.
	if r := c.post(t, crdPath, crd("pb.example.com", "dials", "Dial", "Namespaced", nil)); r.code != http.StatusConflict {
		r.must(t, http.StatusCreated) // (a conflict: made by an earlier run with -count)
	}
	c.condition(t, "dials.pb.example.com", "Established", "True")
	dials := "/apis/pb.example.com/v1/namespaces/" + ns + "/dials"
	c.post(t, dials, obj{"apiVersion": "pb.example.com/v1", "kind": "Dial", "metadata": map[string]any{"name": "d"}}).must(t, http.StatusCreated)
	if o := c.get(t, dials+"/d", "Accept", "application/vnd.kubernetes.protobuf, application/json").must(t, http.StatusOK); o.str("kind") != "Dial" {
		t.Errorf("custom resource, protobuf then JSON: %v", o)
	}
	want, err := os.ReadFile("testdata/protobuf/status-notacceptable.pb")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dials + "/d", dials, dials + "?watch=1"} {
		r := c.get(t, path, "Accept", "application/vnd.kubernetes.protobuf")
		if r.code != http.StatusNotAcceptable || r.header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" || !bytes.Equal(r.body, want) {
			t.Errorf("%s: %d %q %q\nwant %q", path, r.code, r.header.Get("Content-Type"), r.body, want)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
