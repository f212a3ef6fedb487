package patch

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
)

// canon re-encodes JSON with sorted keys for comparison.
func canon(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestMergePatch(t *testing.T) {
	got, err := MergePatch([]byte(`{"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"x":[1,2]}}`),
		[]byte(`{"metadata":{"labels":{"a":null,"env":"prod"}},"spec":{"x":[3]},"new":{"k":null,"v":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"labels":{"b":"2","env":"prod"}},"new":{"v":1},"spec":{"x":[3]}}`
	if string(got) != canon(t, want) {
		t.Errorf("got %s", got)
	}
	if _, err := MergePatch([]byte(`{}`), []byte(`{`)); err != ErrBadJSONPatch || err.Error() != "Invalid JSON Patch" {
		t.Errorf("bad patch error = %v", err)
	}
}

func TestJSONPatch(t *testing.T) {
	doc := `{"metadata":{"labels":{"a/b":"1","c~d":"2"}},"spec":{"list":[1,2,3]}}`
	tests := []struct{ name, patch, want, err string }{
		{name: "add/remove/replace with escapes", patch: `[{"op":"add","path":"/metadata/labels/x","value":"y"},{"op":"remove","path":"/metadata/labels/a~1b"},{"op":"replace","path":"/metadata/labels/c~0d","value":"3"}]`,
			want: `{"metadata":{"labels":{"c~d":"3","x":"y"}},"spec":{"list":[1,2,3]}}`},
		{name: "append and insert", patch: `[{"op":"add","path":"/spec/list/-","value":4},{"op":"add","path":"/spec/list/0","value":0}]`,
			want: `{"metadata":{"labels":{"a/b":"1","c~d":"2"}},"spec":{"list":[0,1,2,3,4]}}`},
		{name: "move copy test", patch: `[{"op":"copy","from":"/spec/list","path":"/spec/copy"},{"op":"move","from":"/spec/list","path":"/spec/moved"},{"op":"test","path":"/spec/copy/1","value":2}]`,
			want: `{"metadata":{"labels":{"a/b":"1","c~d":"2"}},"spec":{"copy":[1,2,3],"moved":[1,2,3]}}`},
		{name: "missing parent", patch: `[{"op":"add","path":"/spec/nope/x","value":1}]`, err: `add operation does not apply: doc is missing path: "/spec/nope/x": missing value`},
		{name: "remove missing key", patch: `[{"op":"remove","path":"/metadata/labels/zz"}]`, err: `error in remove for path: '/metadata/labels/zz': Unable to remove nonexistent key: zz: missing value`},
		{name: "test fails", patch: `[{"op":"test","path":"/spec/list/0","value":9}]`, err: `testing value /spec/list/0 failed: test failed`},
		{name: "bad index", patch: `[{"op":"replace","path":"/spec/list/7","value":9}]`, err: `replace operation does not apply: doc is missing key: /spec/list/7: missing value`},
		{name: "unknown op", patch: `[{"op":"frob","path":"/x"}]`, err: `Unexpected kind: frob`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSONPatch([]byte(doc), []byte(tt.patch))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != canon(t, tt.want) {
				t.Errorf("got %s", got)
			}
		})
	}
	var bad *BadJSONPatchError
	if _, err := JSONPatch([]byte(doc), []byte(`{"op":"add"}`)); !errors.As(err, &bad) {
		t.Errorf("non-list patch: %v", err)
	}
}

var deploymentType = reflect.TypeFor[appsv1.Deployment]()

const liveDeployment = `{"apiVersion":"apps/v1","kind":"Deployment",
 "metadata":{"name":"web","namespace":"default","labels":{"app":"web"},"finalizers":["a","b"],
   "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
  "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},
  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
    {"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
    {"name":"sidecar","image":"busybox","args":["sleep","3600"]}]}}}}`

func TestStrategicMergePatchDeployment(t *testing.T) {
	tests := []struct {
		name, patch string
		check       func(t *testing.T, d *appsv1.Deployment)
	}{
		{"set image keeps the other container", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				c := d.Spec.Template.Spec.Containers
				if len(c) != 2 || c[0].Name != "nginx" || c[0].Image != "nginx:1.28" || len(c[0].Ports) != 1 || len(c[0].Env) != 2 || c[1].Image != "busybox" {
					t.Errorf("containers = %+v", c)
				}
			}},
		{"add a port", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","ports":[{"containerPort":443}]}]}}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				p := d.Spec.Template.Spec.Containers[0].Ports
				if len(p) != 2 || p[0].ContainerPort != 443 || p[1].ContainerPort != 80 {
					t.Errorf("ports = %+v", p)
				}
			}},
		{"delete an env var", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"A","$patch":"delete"}]}]}}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				e := d.Spec.Template.Spec.Containers[0].Env
				if len(e) != 1 || e[0].Name != "B" {
					t.Errorf("env = %+v", e)
				}
			}},
		{"set element order", `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"sidecar"},{"name":"nginx"}]}}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				c := d.Spec.Template.Spec.Containers
				if len(c) != 2 || c[0].Name != "sidecar" || c[1].Name != "nginx" {
					t.Errorf("containers = %+v", c)
				}
			}},
		{"delete from primitive list", `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				if !reflect.DeepEqual(d.Finalizers, []string{"b"}) {
					t.Errorf("finalizers = %v", d.Finalizers)
				}
			}},
		{"finalizers merge as a set", `{"metadata":{"finalizers":["c","a"]}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				if !reflect.DeepEqual(d.Finalizers, []string{"b", "c", "a"}) && !reflect.DeepEqual(d.Finalizers, []string{"c", "a", "b"}) {
					t.Errorf("finalizers = %v", d.Finalizers)
				}
			}},
		{"non-merge list replaced", `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","args":["sleep","1"]}]}}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				if a := d.Spec.Template.Spec.Containers[1].Args; !reflect.DeepEqual(a, []string{"sleep", "1"}) {
					t.Errorf("args = %v", a)
				}
			}},
		{"rollout restart annotation", `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-05-01T10:00:00Z"}}}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				if d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] != "2024-05-01T10:00:00Z" || d.Spec.Template.Labels["app"] != "web" {
					t.Errorf("template metadata = %+v", d.Spec.Template.ObjectMeta)
				}
			}},
		{"retainKeys clears rollingUpdate", `{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				if d.Spec.Strategy.Type != "Recreate" || d.Spec.Strategy.RollingUpdate != nil {
					t.Errorf("strategy = %+v", d.Spec.Strategy)
				}
			}},
		{"client-side apply three-way patch", `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"x\":1}\n"},"labels":{"tier":"front"}},"spec":{"replicas":3,"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"},{"name":"sidecar"}],"containers":[{"$setElementOrder/env":[{"name":"B"}],"env":[{"$patch":"delete","name":"A"}],"image":"nginx:1.28","name":"nginx"}]}}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				c := d.Spec.Template.Spec.Containers
				if *d.Spec.Replicas != 3 || d.Labels["tier"] != "front" || d.Labels["app"] != "web" || c[0].Image != "nginx:1.28" || len(c[0].Env) != 1 || c[0].Env[0].Name != "B" || c[1].Name != "sidecar" {
					t.Errorf("deployment = %+v", d)
				}
			}},
		{"replace a whole list", `{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"x"},{"$patch":"replace"}]}}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				if c := d.Spec.Template.Spec.Containers; len(c) != 1 || c[0].Name != "only" {
					t.Errorf("containers = %+v", c)
				}
			}},
		{"null deletes", `{"metadata":{"labels":{"app":null}},"spec":{"template":{"spec":{"containers":[{"name":"sidecar","args":null}]}}}}`,
			func(t *testing.T, d *appsv1.Deployment) {
				if len(d.Labels) != 0 || d.Spec.Template.Spec.Containers[1].Args != nil {
					t.Errorf("labels %v args %v", d.Labels, d.Spec.Template.Spec.Containers[1].Args)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := StrategicMergePatch([]byte(liveDeployment), []byte(tt.patch), deploymentType)
			if err != nil {
				t.Fatal(err)
			}
			var d appsv1.Deployment
			if err := json.Unmarshal(out, &d); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			tt.check(t, &d)
		})
	}
}

func TestStrategicMergePatchCordonAndErrors(t *testing.T) {
	node := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1"},"spec":{"podCIDR":"10.0.0.0/24"}}`
	out, err := StrategicMergePatch([]byte(node), []byte(`{"spec":{"unschedulable":true}}`), reflect.TypeFor[corev1.Node]())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1"},"spec":{"podCIDR":"10.0.0.0/24","unschedulable":true}}`
	if string(out) != canon(t, want) {
		t.Errorf("got %s", out)
	}
	if _, err := StrategicMergePatch([]byte(liveDeployment), []byte(`{"metadata":{"$patch":"frob"}}`), deploymentType); err == nil {
		t.Error("no error for unknown $patch")
	}
	if _, err := StrategicMergePatch([]byte(liveDeployment), []byte(`{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}`), deploymentType); err == nil ||
		err.Error() != "map: map[image:x] does not contain declared merge key: name" {
		t.Errorf("missing merge key error = %v", err)
	}
}
