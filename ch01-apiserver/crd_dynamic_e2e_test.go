package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"kubik/internal/testenv"
)

// TestCustomResourcesDynamicClient: custom resources through client-go's
// dynamic client — the client operators and Helm are built on — against
// chapter 1's apiserver: create with schema defaulting, get, list with label
// and field selectors (selectableFields), update, the status and scale
// subresources, a merge patch, a watch that sees ADDED, MODIFIED and
// DELETED, schema validation and a conflict as client-go's typed errors,
// delete. The expected values are what kube-apiserver v1.35.4 answers.
func TestCustomResourcesDynamicClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the apiserver")
	}
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	c := testenv.Start(t, bin, testenv.Options{})
	testenv.Kubectl(t, "1.33")
	k := &kube{t: t, c: c, v: "1.33", dir: t.TempDir()}
	const group = "dyn.example.com"
	k.write("crd.yaml", widgetsCRD(group))
	k.ok("customresourcedefinition.apiextensions.k8s.io/widgets."+group+" created\n", "apply", "-f", k.dir+"/crd.yaml")
	k.ok("customresourcedefinition.apiextensions.k8s.io/widgets."+group+" condition met\n",
		"wait", "--for=condition=Established", "crd/widgets."+group, "--timeout=60s")

	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	widgets := client.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	w, err := widgets.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	obj := func(name, color string, labels map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": group + "/v1", "kind": "Widget",
			"metadata": map[string]any{"name": name, "labels": labels},
			"spec":     map[string]any{"color": color},
		}}
	}
	created, err := widgets.Create(ctx, obj("one", "red", map[string]any{"tier": "front"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(created.Object, "spec", "replicas"); n != 1 {
		t.Errorf("created spec.replicas = %d, want the schema's default 1: %v", n, created.Object)
	}
	if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetGeneration() != 1 {
		t.Errorf("created metadata: uid %q rv %q generation %d", created.GetUID(), created.GetResourceVersion(), created.GetGeneration())
	}
	if _, err := widgets.Create(ctx, obj("two", "blue", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	got, err := widgets.Get(ctx, "one", metav1.GetOptions{})
	if err != nil || got.GetKind() != "Widget" || got.GetAPIVersion() != group+"/v1" {
		t.Fatalf("get: %v %v", err, got)
	}
	names := func(opts metav1.ListOptions) string {
		t.Helper()
		l, err := widgets.List(ctx, opts)
		if err != nil {
			t.Fatalf("list %+v: %v", opts, err)
		}
		var out []string
		for _, it := range l.Items {
			if it.GetKind() != "Widget" { // an UnstructuredList's items keep their kind
				t.Errorf("list item %s has kind %q", it.GetName(), it.GetKind())
			}
			out = append(out, it.GetName())
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		opts metav1.ListOptions
		want string
	}{
		{metav1.ListOptions{}, "one,two"},
		{metav1.ListOptions{LabelSelector: "tier=front"}, "one"},
		{metav1.ListOptions{FieldSelector: "spec.color=blue"}, "two"},
		{metav1.ListOptions{FieldSelector: "metadata.name=one"}, "one"},
	} {
		if got := names(c.opts); got != c.want {
			t.Errorf("list %+v: %s, want %s", c.opts, got, c.want)
		}
	}
	if _, err := widgets.List(ctx, metav1.ListOptions{FieldSelector: "spec.size=3"}); !apierrors.IsBadRequest(err) ||
		err.Error() != `field label not supported: spec.size` { // kubectl prefixes its "Unable to find …
		t.Errorf("list by an unselectable field: %v", err)
	}

	// Update: the spec changes, generation goes up; a stale resourceVersion conflicts.
	unstructured.SetNestedField(got.Object, "green", "spec", "color")
	updated, err := widgets.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || updated.GetGeneration() != 2 {
		t.Fatalf("update: %v, generation %d", err, updated.GetGeneration())
	}
	if _, err := widgets.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update with a stale resourceVersion: %v, want a Conflict", err)
	}
	// The status subresource writes only the status.
	unstructured.SetNestedField(updated.Object, int64(4), "status", "replicas")
	unstructured.SetNestedField(updated.Object, "red", "spec", "color")
	st, err := widgets.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if color, _, _ := unstructured.NestedString(st.Object, "spec", "color"); color != "green" {
		t.Errorf("status update changed spec.color to %q", color)
	}
	if n, _, _ := unstructured.NestedInt64(st.Object, "status", "replicas"); n != 4 {
		t.Errorf("status.replicas = %d, want 4", n)
	}
	// A merge patch, and the scale subresource read back.
	if _, err := widgets.Patch(ctx, "one", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	scale, err := widgets.Get(ctx, "one", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatal(err)
	}
	if scale.GetKind() != "Scale" || scale.GetAPIVersion() != "autoscaling/v1" {
		t.Errorf("scale is %s %s", scale.GetAPIVersion(), scale.GetKind())
	}
	if n, _, _ := unstructured.NestedInt64(scale.Object, "spec", "replicas"); n != 3 {
		t.Errorf("scale spec.replicas = %d, want 3", n)
	}
	if n, _, _ := unstructured.NestedInt64(scale.Object, "status", "replicas"); n != 4 {
		t.Errorf("scale status.replicas = %d, want 4", n)
	}

	// Schema validation: client-go's Invalid error with the field's cause.
	_, err = widgets.Create(ctx, obj("bad", "purple", nil), metav1.CreateOptions{})
	var se *apierrors.StatusError
	if !apierrors.IsInvalid(err) || !errors.As(err, &se) {
		t.Fatalf("create with a color outside the enum: %v", err)
	}
	if want := `Widget.` + group + ` "bad" is invalid: spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"`; se.ErrStatus.Message != want {
		t.Errorf("invalid message:\n%s\nwant\n%s", se.ErrStatus.Message, want)
	}

	if err := widgets.Delete(ctx, "two", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Get(ctx, "two", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v", err)
	}

	// The watch saw it all, in order.
	want := []string{"ADDED one", "ADDED two", "MODIFIED one", "MODIFIED one", "MODIFIED one", "DELETED two"}
	var seen []string
	for len(seen) < len(want) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch ended after %v", seen)
			}
			if ev.Type == watch.Error {
				b, _ := json.Marshal(ev.Object)
				t.Fatalf("watch error: %s", b)
			}
			seen = append(seen, string(ev.Type)+" "+ev.Object.(*unstructured.Unstructured).GetName())
		case <-ctx.Done():
			t.Fatalf("watch: saw %v, want %v", seen, want)
		}
	}
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Errorf("watch events %v, want %v", seen, want)
	}
}
