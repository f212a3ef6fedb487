package validation

import (
	"encoding/json"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/defaults"
)

// load decodes JSON into obj, defaults it as the server would, and fills the namespace.
func load(t *testing.T, s string, obj metav1.Object) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), obj); err != nil {
		t.Fatal(err)
	}
	defaults.Default(obj)
}

func TestPodRealMessages(t *testing.T) {
	var pod corev1.Pod
	load(t, `{"metadata":{"name":"typo","namespace":"default"},"spec":{}}`, &pod)
	errs := Validate(&pod, nil)
	if got := AggregateMessage(errs); got != "spec.containers: Required value" {
		t.Errorf("got %q", got)
	}
	st := InvalidStatus("", "Pod", "typo", errs)
	b, _ := json.Marshal(st)
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \"typo\" is invalid: spec.containers: Required value","reason":"Invalid","details":{"name":"typo","kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"}]},"code":422}`
	if string(b) != want {
		t.Errorf("status:\ngot  %s\nwant %s", b, want)
	}

	load(t, `{"metadata":{"name":"Foo","namespace":"default"},"spec":{"restartPolicy":"Sometimes","containers":[{"name":""},{"name":"b","image":"x","volumeMounts":[{"name":"x","mountPath":"/x"}],"ports":[{"containerPort":70000,"protocol":"ICMP"}]}]}}`, &pod)
	got := AggregateMessage(Validate(&pod, nil))
	for _, want := range []string{
		`metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		`spec.containers[0].name: Required value`,
		`spec.containers[0].image: Required value`,
		`spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
		`spec.containers[1].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`,
		`spec.containers[1].volumeMounts[0].name: Not found: "x"`,
		`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s\nin %s", want, got)
		}
	}
	if !strings.HasPrefix(got, "[") || !strings.HasSuffix(got, "]") {
		t.Errorf("several errors are bracketed: %s", got)
	}
}

func TestPodUpdate(t *testing.T) {
	var old, cur corev1.Pod
	base := `{"metadata":{"name":"web","namespace":"default","resourceVersion":"1"},"spec":{"containers":[{"name":"a","image":"nginx:1","ports":[{"containerPort":80}]}]}}`
	load(t, base, &old)
	load(t, strings.Replace(base, "nginx:1", "nginx:2", 1), &cur)
	if errs := Validate(&cur, &old); len(errs) != 0 {
		t.Errorf("image change must be allowed: %v", AggregateMessage(errs))
	}
	load(t, strings.Replace(base, "80", "81", 1), &cur)
	got := AggregateMessage(Validate(&cur, &old))
	want := "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got %s", got)
	}
}

func TestServiceAndConfig(t *testing.T) {
	var svc corev1.Service
	load(t, `{"metadata":{"name":"s","namespace":"default"},"spec":{"type":"Weird","selector":{"app":"x"}}}`, &svc)
	got := AggregateMessage(Validate(&svc, nil))
	want := `[spec.ports: Required value, spec.type: Unsupported value: "Weird": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	var old, cm corev1.ConfigMap
	load(t, `{"metadata":{"name":"c","namespace":"default","resourceVersion":"1"},"immutable":true,"data":{"a":"1"}}`, &old)
	load(t, `{"metadata":{"name":"c","namespace":"default","resourceVersion":"1"},"immutable":true,"data":{"a":"2","b c":"x"}}`, &cm)
	got = AggregateMessage(Validate(&cm, &old))
	if !strings.Contains(got, "data: Forbidden: field is immutable when `immutable` is set") ||
		!strings.Contains(got, `data[b c]: Invalid value: "b c": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`) {
		t.Errorf("got %s", got)
	}
}

func TestWorkloads(t *testing.T) {
	var d appsv1.Deployment
	load(t, `{"metadata":{"name":"d","namespace":"default"},"spec":{"replicas":-1,"selector":{"matchLabels":{"app":"y"}},
		"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"a","image":"i"}]}}}}`, &d)
	got := AggregateMessage(Validate(&d, nil))
	want := "[spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.metadata.labels: Invalid value: {\"app\":\"x\"}: `selector` does not match template `labels`]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	var old, cur appsv1.Deployment
	base := `{"metadata":{"name":"d","namespace":"default","resourceVersion":"1"},"spec":{"selector":{"matchLabels":{"app":"x"}},
		"template":{"metadata":{"labels":{"app":"x","v":"1"}},"spec":{"containers":[{"name":"a","image":"i"}]}}}}`
	load(t, base, &old)
	load(t, strings.Replace(base, `"matchLabels":{"app":"x"}`, `"matchLabels":{"app":"x","v":"1"}`, 1), &cur)
	got = AggregateMessage(Validate(&cur, &old))
	want = `spec.selector: Invalid value: {"matchLabels":{"app":"x","v":"1"}}: field is immutable`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	var job batchv1.Job
	load(t, `{"metadata":{"name":"j","namespace":"default"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"a","image":"i"}]}}}}`, &job)
	got = AggregateMessage(Validate(&job, nil))
	want = `spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	var cj batchv1.CronJob
	load(t, `{"metadata":{"name":"c","namespace":"default"},"spec":{"schedule":"61 * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"a","image":"i"}]}}}}}}`, &cj)
	got = AggregateMessage(Validate(&cj, nil))
	want = `spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestObjectMeta(t *testing.T) {
	var ns corev1.Namespace
	load(t, `{"metadata":{"labels":{"bad key!":"v"}}}`, &ns)
	got := AggregateMessage(Validate(&ns, nil))
	if !strings.HasPrefix(got, "[metadata.name: Required value: name or generateName is required, metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters") {
		t.Errorf("got %s", got)
	}
	var old, cur corev1.Namespace
	load(t, `{"metadata":{"name":"a","uid":"1","resourceVersion":"1"}}`, &old)
	load(t, `{"metadata":{"name":"a","uid":"2","resourceVersion":"1"}}`, &cur)
	if got := AggregateMessage(Validate(&cur, &old)); got != `metadata.uid: Invalid value: "2": field is immutable` {
		t.Errorf("got %s", got)
	}
}
