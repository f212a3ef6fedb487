package serializer

import (
	"reflect"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// Small stand-ins for the real kinds, shaped like corev1.Pod.
type testPod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              testPodSpec `json:"spec,omitempty"`
}

type testPodSpec struct {
	Containers   []testContainer              `json:"containers"`
	NodeSelector map[string]string            `json:"nodeSelector,omitempty"`
	Overhead     map[string]resource.Quantity `json:"overhead,omitempty"`
	Templates    map[string]testContainer     `json:"templates,omitempty"`
	Replicas     *int32                       `json:"replicas,omitempty"`
	Extra        any                          `json:"extra,omitempty"`
}

type testContainer struct {
	Name            string             `json:"name"`
	Image           string             `json:"image,omitempty"`
	ImagePullPolicy string             `json:"imagePullPolicy,omitempty"`
	Port            intstr.IntOrString `json:"port,omitempty"`
	Args            []string           `json:"args,omitempty"`
}

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		strict  []string
		wantErr string
		check   func(*testing.T, *testPod)
	}{
		{
			name: "clean",
			in:   `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx","port":80}]}}`,
			check: func(t *testing.T, p *testPod) {
				if p.Name != "web" || p.Kind != "Pod" || p.Spec.Containers[0].Image != "nginx" || p.Labels["app"] != "web" {
					t.Errorf("decoded %+v", p)
				}
			},
		},
		{
			name:   "typo at spec",
			in:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"typo"},"spec":{"contaienrs":[{"name":"c","image":"nginx"}]}}`,
			strict: []string{`unknown field "spec.contaienrs"`},
			check: func(t *testing.T, p *testPod) {
				if len(p.Spec.Containers) != 0 {
					t.Errorf("unknown field was decoded: %+v", p.Spec)
				}
			},
		},
		{
			name:   "unknown in list item and at top, document order",
			in:     `{"x":1,"spec":{"containers":[{"name":"a"},{"name":"b","imagePullPolice":"Always"}]},"y":{"z":1}}`,
			strict: []string{`unknown field "x"`, `unknown field "spec.containers[1].imagePullPolice"`, `unknown field "y"`},
		},
		{
			name:   "case sensitive",
			in:     `{"metadata":{"Name":"x"}}`,
			strict: []string{`unknown field "metadata.Name"`},
			check: func(t *testing.T, p *testPod) {
				if p.Name != "" {
					t.Errorf("case-insensitive match decoded Name=%q", p.Name)
				}
			},
		},
		{
			name:   "duplicate fields, last wins",
			in:     `{"metadata":{"name":"a","name":"b","labels":{"k":"1","k":"2"}}}`,
			strict: []string{`duplicate field "metadata.name"`, `duplicate field "metadata.labels.k"`},
			check: func(t *testing.T, p *testPod) {
				if p.Name != "b" || p.Labels["k"] != "2" {
					t.Errorf("got name=%q labels=%v", p.Name, p.Labels)
				}
			},
		},
		{
			name:   "map of structs walked with the key in the path",
			in:     `{"spec":{"templates":{"main":{"name":"m","bogus":true}}}}`,
			strict: []string{`unknown field "spec.templates.main.bogus"`},
		},
		{
			name:   "interface values checked for duplicates only",
			in:     `{"spec":{"extra":{"a":[{"b":1,"b":2}],"c":{"d":1}}}}`,
			strict: []string{`duplicate field "spec.extra.a[0].b"`},
		},
		{
			name: "custom unmarshalers are leaves",
			in:   `{"metadata":{"creationTimestamp":"2024-01-01T00:00:00Z","managedFields":[{"manager":"m","fieldsV1":{"f:data":{"f:x":{}}}}]},"spec":{"overhead":{"cpu":"100m"}}}`,
		},
		{
			name:    "type mismatch is a hard error",
			in:      `{"spec":{"replicas":"three","bogus":1}}`,
			wantErr: `json: cannot unmarshal string into Go struct field testPodSpec.spec.replicas of type int32`,
		},
		{
			name:    "syntax error",
			in:      `{"spec":`,
			wantErr: `unexpected end of JSON input`,
		},
		{
			name: "indented, escaped keys and values, unknown field dropped",
			in: "{\n  \"metadata\" : {\"na\\u006de\": \"a\\\"b\" , \"labels\": {\"k\\\"q\": \"v]}\"}},\n" +
				"  \"spec\": {\"bogus\": {\"x\": [1, {\"y\": \"}\"}]},\t\"replicas\" : 2 ,\"containers\":[ {\"name\":\"c\"} , {\"name\":\"d\", \"q\": null} ]}\r\n}",
			strict: []string{`unknown field "spec.bogus"`, `unknown field "spec.containers[1].q"`},
			check: func(t *testing.T, p *testPod) {
				if p.Name != `a"b` || p.Labels[`k"q`] != "v]}" || *p.Spec.Replicas != 2 || len(p.Spec.Containers) != 2 || p.Spec.Containers[1].Name != "d" {
					t.Errorf("decoded %+v", p)
				}
			},
		},
		{
			name:   "same error twice is reported once",
			in:     `{"spec":{"containers":[{"name":"a","q":1}]},"spec":{"containers":[{"name":"a","q":1}]}}`,
			strict: []string{`unknown field "spec.containers[0].q"`, `duplicate field "spec"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p testPod
			strict, err := DecodeStrict([]byte(tt.in), &p)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual([]string(strict), tt.strict) && !(len(strict) == 0 && len(tt.strict) == 0) {
				t.Errorf("strict = %q, want %q", strict, tt.strict)
			}
			if tt.check != nil {
				tt.check(t, &p)
			}
		})
	}
}

func TestStrictErrorsMessages(t *testing.T) {
	e := StrictErrors{`unknown field "spec.contaienrs"`, `unknown field "x"`}
	want := `strict decoding error: unknown field "spec.contaienrs", unknown field "x"`
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	if w := e.Warnings(); len(w) != 2 || w[0] != `unknown field "spec.contaienrs"` {
		t.Errorf("Warnings() = %q", w)
	}
}

func TestDecodeStrictCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 150; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"u` + strings.Repeat("x", i) + `":1`)
	}
	b.WriteString("}")
	strict, err := DecodeStrict([]byte(b.String()), &testPod{})
	if err != nil || len(strict) != maxStrictErrors {
		t.Fatalf("got %d strict errors, err %v", len(strict), err)
	}
}

func FuzzDecodeStrict(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"},"spec":{"contaienrs":[]}}`))
	f.Add([]byte(`{"spec":{"containers":[{"name":"a","port":"http"},{"port":8080}],"extra":[1,{"a":null}]}}`))
	f.Add([]byte(`[1,2,{"x":"y"}]`))
	f.Add([]byte(`{"metadata":{"creationTimestamp":null,"labels":{"a":1}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p testPod
		strict, err := DecodeStrict(data, &p)
		if err != nil && len(strict) > 0 {
			t.Fatalf("both error and strict errors")
		}
	})
}

// BenchmarkDecodeStrict: a pod without problems (the common case: checked,
// then decoded) and one with an unknown and a duplicate field (checked,
// cleaned, decoded).
func BenchmarkDecodeStrict(b *testing.B) {
	docs := map[string]string{
		"clean": `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"app":"web","tier":"front"},` +
			`"annotations":{"note":"a \"quoted\" \u00e9 value"}},"spec":{"containers":[{"name":"c","image":"nginx:1.27","imagePullPolicy":"IfNotPresent",` +
			`"port":80,"args":["--a","--b=1","--c"]},{"name":"d","image":"busybox","port":"http","args":[]}],` +
			`"nodeSelector":{"disk":"ssd"},"overhead":{"cpu":"250m","memory":"120Mi"},"replicas":3,"extra":{"x":[1,2.5,true,null,{"y":"z"}]}}}`,
		"unknown and duplicate": `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},` +
			`"spec":{"contaienrs":[],"containers":[{"name":"c","image":"nginx:1.27","image":"nginx:1.28","port":80}],"replicas":3}}`,
	}
	for name, doc := range docs {
		b.Run(name, func(b *testing.B) {
			data := []byte(doc)
			b.ReportAllocs()
			for b.Loop() {
				var p testPod
				if _, err := DecodeStrict(data, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
