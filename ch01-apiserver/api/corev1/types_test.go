package corev1

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/internal/apitest"
)

// Every top-level kind gets metav1.Object through its embedded TypeMeta and ObjectMeta.
var (
	_ metav1.Object = &Pod{}
	_ metav1.Object = &PodTemplate{}
	_ metav1.Object = &Binding{}
	_ metav1.Object = &Node{}
	_ metav1.Object = &Service{}
	_ metav1.Object = &Endpoints{}
	_ metav1.Object = &Namespace{}
	_ metav1.Object = &ConfigMap{}
	_ metav1.Object = &Secret{}
	_ metav1.Object = &Event{}
	_ metav1.Object = &ServiceAccount{}
	_ metav1.Object = &PersistentVolume{}
	_ metav1.Object = &PersistentVolumeClaim{}
	_ metav1.Object = &LimitRange{}
	_ metav1.Object = &ResourceQuota{}
)

// TestRealObjectsRoundTrip decodes objects written by a real kube-apiserver
// strictly (any unknown field is an error), encodes them again and checks
// that the JSON is the same: the field names and omitempty choices match.
func TestRealObjectsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		file string
		obj  any
	}{
		{"testdata/pod-web.json", &Pod{}},
		{"testdata/node-1.json", &Node{}},
		{"testdata/events-list.json", &EventList{}},
		{"testdata/resourcequota-tq.json", &ResourceQuota{}},
		{"testdata/limitrange-tl.json", &LimitRange{}},
		{"testdata/podtemplate-two.json", &PodTemplate{}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			in, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			apitest.RoundTrip(t, in, tc.obj)
		})
	}
}

func TestPodSatisfiesObject(t *testing.T) {
	var o metav1.Object = &Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: NamespaceDefault}}
	if got := o.GetObjectMeta().Name; got != "web" {
		t.Errorf("GetObjectMeta().Name = %q, want web", got)
	}
	o.GetTypeMeta().Kind = "Pod"
	if o.(*Pod).Kind != "Pod" {
		t.Errorf("GetTypeMeta does not point into the Pod")
	}
}

// TestEmptyStructsStay checks the upstream shapes that make "kubectl get -o
// yaml" print "resources: {}" and "securityContext: {}".
func TestEmptyStructsStay(t *testing.T) {
	p := Pod{Spec: PodSpec{Containers: []Container{{Name: "c"}}, SecurityContext: &PodSecurityContext{}}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"resources":{}`, `"securityContext":{}`, `"status":{}`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s missing in %s", want, b)
		}
	}
}

func TestSecretDataIsBase64(t *testing.T) {
	s := Secret{Data: map[string][]byte{"k": []byte("v")}, Type: SecretTypeOpaque}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"data":{"k":"dg=="}`)) || !bytes.Contains(b, []byte(`"type":"Opaque"`)) {
		t.Errorf("unexpected secret JSON %s", b)
	}
}

func TestToleratesTaint(t *testing.T) {
	noSchedule := Taint{Key: TaintNodeNotReady, Effect: TaintEffectNoSchedule}
	for _, tc := range []struct {
		tol  Toleration
		want bool
	}{
		{Toleration{Operator: TolerationOpExists}, true},
		{Toleration{Key: TaintNodeNotReady, Operator: TolerationOpExists}, true},
		{Toleration{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoExecute}, false},
		{Toleration{Key: TaintNodeNotReady}, true},
		{Toleration{Key: TaintNodeNotReady, Value: "x"}, false},
		{Toleration{Key: TaintNodeUnreachable, Operator: TolerationOpExists}, false},
	} {
		if got := tc.tol.ToleratesTaint(&noSchedule); got != tc.want {
			t.Errorf("%+v tolerates %+v = %v, want %v", tc.tol, noSchedule, got, tc.want)
		}
	}
	if got := (&Taint{Key: "k", Value: "v", Effect: TaintEffectNoSchedule}).ToString(); got != "k=v:NoSchedule" {
		t.Errorf("ToString = %q", got)
	}
}
