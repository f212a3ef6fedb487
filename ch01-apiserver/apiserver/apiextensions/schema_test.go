package apiextensions

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/apiserver/serializer"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, kind: Widget, shortNames: [wd], categories: [all]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [color]
            properties:
              color: {type: string, enum: [red, green, blue]}
              replicas: {type: integer, minimum: 0, maximum: 10, default: 1}
              size: {type: string, maxLength: 5, pattern: '^[a-z]+$'}
              tags: {type: array, maxItems: 2, items: {type: string}}
              port: {x-kubernetes-int-or-string: true}
              when: {type: string, format: date-time}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
              ports:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    protocol: {type: string, default: TCP}
          status:
            type: object
            properties:
              replicas: {type: integer}
`

func widgetSchema(t *testing.T) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	return decodeCRD(t, widgetCRD).Spec.Versions[0].Schema.OpenAPIV3Schema
}

func object(t *testing.T, js string) map[string]any {
	t.Helper()
	m, err := DecodeObject([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The messages are kube-apiserver v1.35.4's for the same objects.
func TestValidateValues(t *testing.T) {
	tests := []struct {
		obj  string
		want []string
	}{
		{`{"spec":{"color":"red","replicas":3}}`, nil},
		{`{"spec":{"replicas":20}}`, []string{
			"spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10",
			"spec.color: Required value"}},
		{`{"spec":{"color":"pink","replicas":"x","size":""}}`, []string{
			`spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"`,
			`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
			`spec.size: Invalid value: "": spec.size in body should match '^[a-z]+$'`}},
		{`{"spec":{"color":"red","size":"ABCDEFG","tags":["a","b","c"],"port":1.5}}`, []string{
			`spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"`,
			`spec.size: Too long: may not be more than 5 bytes`,
			`spec.tags: Too many: 3: must have at most 2 items`}},
		{`{"spec":{"color":"red","replicas":-1,"tags":"x"}}`, []string{
			`spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0`,
			`spec.tags: Invalid value: "string": spec.tags in body must be of type array: "string"`}},
		{`{"spec":{"color":"red","replicas":2.5,"tags":[1]}}`, []string{
			`spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"`,
			`spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"`}},
		{`{"spec":{"color":"red","template":{}}}`, []string{
			"spec.template.apiVersion: Required value",
			"spec.template.kind: Required value"}},
		{`{"spec":{"color":"red","when":"yesterday","port":"http"}}`, []string{
			`spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"`}},
		{`{"spec":5}`, []string{`spec: Invalid value: "integer": spec in body must be of type object: "integer"`}},
	}
	s := widgetSchema(t)
	for _, tt := range tests {
		errs := ValidateValues(object(t, tt.obj), s)
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got  %q\n want %q", tt.obj, got, tt.want)
		}
	}
}

func TestPruneAndDefault(t *testing.T) {
	s := widgetSchema(t)
	obj := object(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"color":"red","unknown":5,"ports":[{"name":"a","x":1}],
		"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","junk":1},"spec":{"a":1}},
		"extra":{"k":{"deep":true}}},
		"status":{"replicas":1,"phase":"Up"},"top":1}`)
	pruned := Prune(obj, s)
	want := []string{"spec.ports[0].x", "spec.unknown", "status.phase", "top", "spec.template.metadata.junk"}
	if !reflect.DeepEqual(pruned, want) {
		t.Errorf("pruned %q, want %q", pruned, want)
	}
	Default(obj, s)
	b, _ := json.Marshal(obj)
	const wantObj = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","extra":{"k":{"deep":true}},"ports":[{"name":"a","protocol":"TCP"}],"replicas":1,"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"a":1}}},"status":{"replicas":1}}`
	if string(b) != wantObj {
		t.Errorf("after pruning and defaulting:\n got  %s\n want %s", b, wantObj)
	}
}

func TestDefaultNullField(t *testing.T) {
	obj := object(t, `{"spec":{"color":"red","replicas":null}}`)
	Default(obj, widgetSchema(t))
	if got, _ := NestedField(obj, "spec", "replicas"); got != json.Number("1") {
		t.Errorf("replicas = %v, want the default 1", got)
	}
}

func TestUnstructuredRoundTrip(t *testing.T) {
	const in = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","labels":{"a":"b"}},"spec":{"big":12345678901234567890,"n":3,"f":1.5}}`
	u := &Unstructured{}
	if err := json.Unmarshal([]byte(in), u); err != nil {
		t.Fatal(err)
	}
	if u.Name != "w" || u.Labels["a"] != "b" || u.Kind != "Widget" {
		t.Errorf("typed parts: %+v", u)
	}
	out, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"big":12345678901234567890`) || !strings.Contains(string(out), `"f":1.5`) {
		t.Errorf("numbers changed: %s", out)
	}
	for _, bad := range []string{`[]`, `"x"`, `{"metadata":5}`, `{"kind":1}`, `{} {}`} {
		if err := json.Unmarshal([]byte(bad), &Unstructured{}); err == nil {
			t.Errorf("%s: decoded without error", bad)
		}
	}
}

func TestJSONPathColumns(t *testing.T) {
	obj := object(t, `{"metadata":{"name":"w"},"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"False"}]},"spec":{"n":3,"items":[{"a":"x"},{"a":"y"}]}}`)
	for path, want := range map[string]string{
		`.status.conditions[?(@.type=="Synced")].status`: "False",
		`.spec.items[1].a`:  "y",
		`.spec.items[-1].a`: "y",
		`.spec.items[*].a`:  "x",
		`.spec.n`:           "3",
		`.spec['n']`:        "3",
	} {
		steps, err := parseJSONPath(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		r := evalJSONPath(steps, obj)
		if len(r) == 0 || printJSONValue(r[0]) != want {
			t.Errorf("%s = %v, want %s", path, r, want)
		}
	}
	for _, bad := range []string{"spec.n", ".spec[", ".spec[?(@.a)]", ".a..b"} {
		if _, err := parseJSONPath(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzCustomObjectDecoding feeds arbitrary bodies through what a write of a
// custom object does before storage: decoding, pruning, defaulting,
// validation and a Table row. Nothing may panic.
func FuzzCustomObjectDecoding(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","ports":[{}],"template":{"kind":"Pod","metadata":{"x":1}}}}`))
	f.Add([]byte(`{"spec":{"replicas":1e400,"tags":[null,{}],"port":{"a":[[[]]]}},"status":null}`))
	f.Add([]byte(`{"metadata":{"labels":{"a":1}}}`))
	f.Add([]byte("apiVersion: v1\nspec: {color: [x]}\n"))
	crd := &apiextensionsv1.CustomResourceDefinition{}
	data, _ := serializer.YAMLToJSON([]byte(widgetCRD))
	if _, err := serializer.DecodeStrict(data, crd); err != nil {
		f.Fatal(err)
	}
	SetDefaults(crd)
	served := BuildServed(crd)[0]
	f.Fuzz(func(t *testing.T, body []byte) {
		if j, err := serializer.ToJSON(body, "application/yaml"); err == nil {
			body = j
		}
		u := &Unstructured{}
		if err := json.Unmarshal(body, u); err != nil {
			return
		}
		ValidateEmbeddedTypes(u.Object, served.Schema)
		Prune(u.Object, served.Schema)
		Default(u.Object, served.Schema)
		ValidateValues(u.Object, served.Schema)
		served.ValidateScale(u, false)
		served.ValidateScale(u, true)
		served.SelectableFields(u)
		if _, err := served.Table(nil, metav1ListMeta(), "", false); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(u); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
	})
}

// More of kube-apiserver v1.35.4's messages, for the value validations a
// widget does not use.
func TestValidateValuesMore(t *testing.T) {
	crd := decodeCRD(t, crdHeader+`  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              l: {type: array, minItems: 2, items: {type: string}}
              p: {type: object, minProperties: 2, maxProperties: 3, additionalProperties: {type: string}}
              s: {type: string, minLength: 3}
              e: {type: number, exclusiveMinimum: true, minimum: 1, exclusiveMaximum: true, maximum: 5}
              m: {type: integer, multipleOf: 3}
              a: {anyOf: [{type: integer}, {type: string}], x-kubernetes-int-or-string: true}
              o: {type: integer, oneOf: [{minimum: 1}, {maximum: 10}]}
              nn: {type: string, not: {enum: ["x"]}}
              ls: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              lm: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, required: [k], properties: {k: {type: string}}}}
`)
	if errs := ValidateCustomResourceDefinition(crd); len(errs) > 0 {
		t.Fatalf("CRD: %v", errs)
	}
	s := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	for obj, want := range map[string][]string{
		`{"spec":{"l":["a"],"p":{"a":"b"},"s":"ab","e":1,"m":4,"o":5,"nn":"x","ls":["a","a"],"lm":[{"k":"a"},{"k":"a"}]}}`: {
			`spec.e: Invalid value: 1: spec.e in body should be greater than 1`,
			`spec.l: Invalid value: 1: spec.l in body should have at least 2 items`,
			`spec.lm[1]: Duplicate value: {"k":"a"}`,
			`spec.ls[1]: Duplicate value: "a"`,
			`spec.m: Invalid value: 4: spec.m in body should be a multiple of 3`,
			`<nil>: Invalid value: "": "spec.nn" must not validate the schema (not)`,
			`<nil>: Invalid value: "": "spec.o" must validate one and only one schema (oneOf). Found 2 valid alternatives`,
			`spec.p: Invalid value: 1: spec.p in body should have at least 2 properties`,
			`spec.s: Invalid value: "ab": spec.s in body should be at least 3 chars long`,
		},
		`{"spec":{"p":{"a":"b","c":"d","e":"f","g":"h"},"e":5,"a":true}}`: {
			`spec.a: Invalid value: "boolean": spec.a in body must be of type integer,string: "boolean"`,
			`<nil>: Invalid value: "": "spec.a" must validate at least one schema (anyOf)`,
			`spec.a: Invalid value: "boolean": spec.a in body must be of type integer: "boolean"`,
			`spec.e: Invalid value: 5: spec.e in body should be less than 5`,
			`spec.p: Too many: 4: must have at most 3 items`,
		},
	} {
		var got []string
		for _, e := range ValidateValues(object(t, obj), s) {
			got = append(got, e.Error())
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got  %q\n want %q", obj, got, want)
		}
	}
}
