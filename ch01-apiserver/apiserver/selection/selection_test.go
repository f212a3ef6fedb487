package selection

import (
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/eventsv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resourcev1"
)

// Upstream's TestSelectorParse: valid selectors print back without spaces.
func TestParseLabelSelectorRestring(t *testing.T) {
	for _, in := range []string{
		"x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5",
	} {
		sel, err := ParseLabelSelector(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if want := strings.ReplaceAll(in, " ", ""); sel.String() != want {
			t.Errorf("%q: String() = %q, want %q", in, sel.String(), want)
		}
	}
}

// Cases from upstream's TestSetSelectorParser, written as the normal form.
func TestParseLabelSelectorNormalForm(t *testing.T) {
	for in, want := range map[string]string{
		"\rx":                                    "x",
		"this-is-a-dns.domain.com/key-with-dash": "this-is-a-dns.domain.com/key-with-dash",
		"this-is-another-dns.domain.com/key-with-dash in (so,what)": "this-is-another-dns.domain.com/key-with-dash in (so,what)",
		"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)":      "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)",
		"foo  in\t (abc)":                      "foo in (abc)",
		"x notin\n (abc)":                      "x notin (abc)",
		"x in (abc,)":                          "x in (,abc)",
		"x in (abc,abc)":                       "x in (abc)",
		"x in ()":                              "x in ()",
		"x in (a,,a,,a,,a,,)":                  "x in (,a)",
		"x notin (abc,,def),bar,z in (),w":     "bar,w,x notin (,abc,def),z in ()",
		"x,y in (a)":                           "x,y in (a)",
		"x notin ( )":                          "x notin ()",
		"x notin (, a)":                        "x notin (,a)",
		"a ":                                   "a",
		"a in (x,y,notin, z,in)":               "a in (in,notin,x,y,z)",
		"x=a,y!=b,z in (h,i,j)":                "x=a,y!=b,z in (h,i,j)",
		"app==web":                             "app==web",
		"environment in (production, qa),tier": "environment in (production,qa),tier",
	} {
		sel, err := ParseLabelSelector(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if sel.String() != want {
			t.Errorf("%q: String() = %q, want %q", in, sel.String(), want)
		}
	}
}

func TestParseLabelSelectorErrors(t *testing.T) {
	const valueRegex = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	for in, want := range map[string]string{
		"x=a||y=b":       `unable to parse requirement: values[0][x]: Invalid value: "a||y": ` + valueRegex,
		"x==a==b":        "found '==', expected: ',' or 'end of string'",
		"!x=a":           "found '=', expected: ',' or 'end of string'",
		"x<a":            `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
		"x,,y":           "found ',', expected: identifier after ','",
		",x,y":           "found ',', expected: !, identifier, or 'end of string'",
		"x nott in (y)":  "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt",
		"a in (xyz),":    "found '', expected: identifier after ','",
		"a in (xyz)b":    "found 'b', expected: ',' or 'end of string'",
		"a in (xyz abc)": "unable to parse requirement: found 'abc', expected: ',' or ')'",
		"a notin(":       "unable to parse requirement: found '', expected: ',', ')' or identifier",
		"a (":            "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt",
		"(":              "found '(', expected: !, identifier, or 'end of string'",
		"a in b":         "unable to parse requirement: found 'b' expected: '('",
		"a/b/c":          `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
		"-a":             `unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		"/a":             `unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty`,
	} {
		_, err := ParseLabelSelector(in)
		if err == nil {
			t.Errorf("%q: no error, want %q", in, want)
			continue
		}
		if err.Error() != want {
			t.Errorf("%q:\n got %s\nwant %s", in, err, want)
		}
	}
}

func TestLabelSelectorMatches(t *testing.T) {
	for _, tc := range []struct {
		sel    string
		labels map[string]string
		want   bool
	}{
		{"", map[string]string{"x": "y"}, true},
		{"x=y", map[string]string{"x": "y"}, true},
		{"x=y,z=w", map[string]string{"x": "y", "z": "w"}, true},
		{"x!=y,z!=w", map[string]string{"x": "z", "z": "a"}, true},
		{"notin=in", map[string]string{"notin": "in"}, true},
		{"x", map[string]string{"x": "z"}, true},
		{"!x", map[string]string{"y": "z"}, true},
		{"x>1", map[string]string{"x": "2"}, true},
		{"x<1", map[string]string{"x": "0"}, true},
		{"x in (y,z)", map[string]string{"x": "z"}, true},
		{"x notin (y)", map[string]string{}, true},
		{"x=", map[string]string{"x": ""}, true},
		{"x=z", map[string]string{}, false},
		{"x=y", map[string]string{"x": "z"}, false},
		{"x=y,z=w", map[string]string{"x": "w", "z": "w"}, false},
		{"x!=y,z!=w", map[string]string{"x": "z", "z": "w"}, false},
		{"x", map[string]string{"y": "z"}, false},
		{"!x", map[string]string{"x": "z"}, false},
		{"x>1", map[string]string{"x": "0"}, false},
		{"x<1", map[string]string{"x": "2"}, false},
		{"x>1", map[string]string{"x": "a"}, false},
		{"x in (y)", map[string]string{}, false},
		{"x=", map[string]string{}, false},
	} {
		sel, err := ParseLabelSelector(tc.sel)
		if err != nil {
			t.Fatalf("%q: %v", tc.sel, err)
		}
		if got := sel.Matches(tc.labels); got != tc.want {
			t.Errorf("%q matches %v = %v, want %v", tc.sel, tc.labels, got, tc.want)
		}
	}
}

func TestFromLabelSelector(t *testing.T) {
	nothing, err := FromLabelSelector(nil)
	if err != nil || nothing.Matches(map[string]string{}) || nothing.String() != "" {
		t.Errorf("nil selector: %v %q", err, nothing.String())
	}
	everything, err := FromLabelSelector(&metav1.LabelSelector{})
	if err != nil || !everything.Matches(map[string]string{"a": "b"}) || !everything.Empty() {
		t.Errorf("empty selector: %v", err)
	}
	sel, err := FromLabelSelector(&metav1.LabelSelector{
		MatchLabels: map[string]string{"app": "nginx", "pod-template-hash": "7c5ddbdf54"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "api"}},
			{Key: "canary", Operator: metav1.LabelSelectorOpDoesNotExist},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "app=nginx,!canary,pod-template-hash=7c5ddbdf54,tier in (api,web)"; sel.String() != want {
		t.Errorf("String() = %q, want %q", sel.String(), want)
	}
	if !sel.Matches(map[string]string{"app": "nginx", "pod-template-hash": "7c5ddbdf54", "tier": "api"}) {
		t.Error("want a match")
	}
	_, err = FromLabelSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Foo"}}})
	if err == nil || err.Error() != `"Foo" is not a valid label selector operator` {
		t.Errorf("bad operator: %v", err)
	}
	_, err = FromLabelSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "In"}}})
	if want := `values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty`; err == nil || err.Error() != want {
		t.Errorf("empty In: %v, want %s", err, want)
	}
	_, err = FromLabelSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Exists", Values: []string{"x"}}}})
	if want := `values: Invalid value: ["x"]: values set must be empty for exists and does not exist`; err == nil || err.Error() != want {
		t.Errorf("Exists with values: %v, want %s", err, want)
	}
	if got := FormatLabelSelector(&metav1.LabelSelector{}); got != "<none>" {
		t.Errorf("FormatLabelSelector(empty) = %q", got)
	}
}

func TestNewRequirementAggregates(t *testing.T) {
	_, err := NewRequirement("-x", Equals, []string{"a", "b"})
	want := `[key: Invalid value: "-x": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), values: Invalid value: ["a","b"]: exact-match compatibility requires one single value]`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestParseFieldSelector(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "",
		"metadata.name=web":     "metadata.name=web",
		"spec.nodeName==node-1": "spec.nodeName=node-1",
		"status.phase!=Failed,status.phase!=Succeeded": "status.phase!=Failed,status.phase!=Succeeded",
		"b=2,a=1":      "a=1,b=2",
		`x=a\,b\=c\\d`: `x=a\,b\=c\\d`,
		"x=":           "x=",
		"a=1,,b=2":     "a=1,b=2",
	} {
		sel, err := ParseFieldSelector(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if sel.String() != want {
			t.Errorf("%q: String() = %q, want %q", in, sel.String(), want)
		}
	}
	sel, _ := ParseFieldSelector(`x=a\,b`)
	if v, ok := sel.RequiresExactMatch("x"); !ok || v != "a,b" {
		t.Errorf("unescaped value = %q", v)
	}
	for in, want := range map[string]string{
		"spec.foo":  "invalid selector: 'spec.foo'; can't understand 'spec.foo'",
		"a=b,c":     "invalid selector: 'a=b,c'; can't understand 'c'",
		`x=a\b`:     `invalid field selector: invalid escape sequence: \b`,
		`x=a\`:      `invalid field selector: invalid escape sequence: \`,
		"x=a=b":     "invalid field selector: unescaped character in value: 61",
		"x==a=b,y=": "invalid field selector: unescaped character in value: 61",
	} {
		_, err := ParseFieldSelector(in)
		if err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %s", in, err, want)
		}
	}
}

func TestFieldSelectorMatches(t *testing.T) {
	fields := map[string]string{"metadata.name": "web", "status.phase": "Running"}
	for sel, want := range map[string]bool{
		"":                                       true,
		"metadata.name=web":                      true,
		"metadata.name=web,status.phase=Running": true,
		"status.phase!=Failed":                   true,
		"status.phase=Failed":                    false,
		"spec.nodeName=":                         true,
		"spec.nodeName!=":                        false,
	} {
		s, err := ParseFieldSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Matches(fields); got != want {
			t.Errorf("%q: %v, want %v", sel, got, want)
		}
	}
}

func TestSelectableFields(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}
	pod.Spec.NodeName = "node-1"
	pod.Spec.RestartPolicy = "Always"
	pod.Status.Phase = "Running"
	pod.Status.PodIPs = []corev1.PodIP{{IP: "10.244.0.5"}}
	got := SelectableFields(pod)
	for k, v := range map[string]string{
		"metadata.name": "web", "metadata.namespace": "default", "spec.nodeName": "node-1",
		"spec.restartPolicy": "Always", "spec.hostNetwork": "false", "status.phase": "Running",
		"status.podIP": "10.244.0.5", "status.nominatedNodeName": "",
	} {
		if got[k] != v {
			t.Errorf("pod %s = %q, want %q", k, got[k], v)
		}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	node.Spec.Unschedulable = true
	if got := SelectableFields(node); got["spec.unschedulable"] != "true" || len(got) != 2 {
		t.Errorf("node fields = %v", got)
	}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "default"}, ReportingController: "kubelet"}
	ev.InvolvedObject.Kind = "Pod"
	if got := SelectableFields(ev); got["source"] != "kubelet" || got["involvedObject.kind"] != "Pod" {
		t.Errorf("event fields = %v", got)
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "default"}}
	rs.Status.Replicas = 2
	if got := SelectableFields(rs); got["status.replicas"] != "2" {
		t.Errorf("replicaset fields = %v", got)
	}
}

func TestSelectableFieldsJobAndEventsV1(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default"}}
	job.Status.Succeeded = 1
	if got := SelectableFields(job); got["status.successful"] != "1" {
		t.Errorf("job fields = %v", got)
	}
	ev := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "default"}, ReportingController: "kubelet"}
	ev.Regarding.Name = "web"
	got := SelectableFields(ev)
	if got["involvedObject.name"] != "web" || got["reportingComponent"] != "kubelet" || got["metadata.name"] != "e" {
		t.Errorf("events.k8s.io fields = %v", got)
	}
	sel, _ := ParseFieldSelector("regarding.name=web")
	conv, err := ConvertFieldSelector("events.events.k8s.io", sel)
	if err != nil || !conv.Matches(got) {
		t.Errorf("regarding.name: %v %q", err, conv.String())
	}
}

func TestSelectableFieldsResourceSlice(t *testing.T) {
	node := "node-1"
	slice := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s"}}
	slice.Spec.Driver = "gpu.example.com"
	if got := SelectableFields(slice); got["spec.nodeName"] != "" || got["spec.driver"] != "gpu.example.com" {
		t.Errorf("slice without a node: %v", got)
	}
	slice.Spec.NodeName = &node
	if got := SelectableFields(slice); got["spec.nodeName"] != "node-1" || got["metadata.name"] != "s" {
		t.Errorf("slice of node-1: %v", got)
	}
}

func TestValidateFieldSelector(t *testing.T) {
	for _, tc := range []struct{ resource, sel, want string }{
		{"pods", "spec.nodeName=node-1,status.phase!=Failed", ""},
		{"pods", "spec.foo=bar", "field label not supported: spec.foo"},
		{"nodes", "metadata.namespace=x", "field label not supported: metadata.namespace"},
		{"configmaps", "metadata.name=x", ""},
		{"configmaps", "data.x=y", `"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{"deployments.apps", "status.replicas=1", `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{"replicasets.apps", "status.replicas=1", ""},
		{"jobs.batch", "status.successful=1", ""},
		{"events", "involvedObject.name=web,involvedObject.kind=Pod", ""},
		{"resourceslices.resource.k8s.io", "spec.nodeName=node-1,spec.driver=gpu.example.com", ""},
		{"resourceslices.resource.k8s.io", "spec.pool.name=p", "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.pool.name"},
	} {
		sel, err := ParseFieldSelector(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		err = ValidateFieldSelector(tc.resource, sel)
		if got := errString(err); got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.resource, tc.sel, got, tc.want)
		}
	}
	sel, _ := ParseFieldSelector("spec.host=node-1")
	conv, err := ConvertFieldSelector("pods", sel)
	if err != nil || conv.String() != "spec.nodeName=node-1" {
		t.Errorf("spec.host: %v %q", err, conv.String())
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
