package apiextensions

import (
	"encoding/json"
	"strings"
	"testing"

	"kubik/ch01-apiserver/apiserver/serializer"
)

// The expected messages are kube-apiserver v1.35.4's where the reference
// was run on the same schema (the compare scenario ch01-crd-cel); the
// others follow upstream's code.

// celCRD is a CRD whose schema (indented under openAPIV3Schema) is s.
func celCRD(s string) string {
	return crdHeader + `  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
` + s
}

func TestValidateCRDRules(t *testing.T) {
	const p = "spec.validation.openAPIV3Schema"
	tests := []struct {
		name   string
		schema string
		want   []string
	}{{
		name: "valid rules",
		schema: `        type: object
        x-kubernetes-validations:
        - rule: "self.spec.min <= self.spec.max"
          messageExpression: "'min exceeds max for ' + self.spec.name"
        properties:
          spec:
            type: object
            properties:
              min: {type: integer}
              max: {type: integer}
              name:
                type: string
                maxLength: 20
                x-kubernetes-validations:
                - {rule: "self == oldSelf", message: "is immutable"}
                - {rule: "self.matches('^[a-z]+$')", reason: FieldValueForbidden}
              items:
                type: array
                maxItems: 10
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [key]
                items:
                  type: object
                  required: [key]
                  properties:
                    key: {type: string, maxLength: 10}
                  x-kubernetes-validations:
                  - {rule: "self.key == oldSelf.key"}
`,
	}, {
		name: "syntax error",
		schema: `        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.a >"
`,
		want: []string{p + `.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.a \u003e","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | self.a >
 | ........^`},
	}, {
		name: "not a bool",
		schema: `        type: object
        properties:
          name:
            type: string
            x-kubernetes-validations:
            - rule: "self + 'x'"
`,
		want: []string{p + `.properties[name].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self + 'x'","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool`},
	}, {
		name: "oldSelf in an atomic list",
		schema: `        type: object
        properties:
          list:
            type: array
            maxItems: 10
            items:
              type: string
              maxLength: 10
              x-kubernetes-validations:
              - rule: "self == oldSelf"
`,
		want: []string{p + `.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ` + p + `.properties[list].items`},
	}, {
		name: "message, reason, fieldPath",
		schema: `        type: object
        x-kubernetes-validations:
        - {rule: "true", message: " "}
        - {rule: "true", reason: Bad}
        - {rule: "true", fieldPath: ".nope"}
        - {rule: "true", optionalOldSelf: true}
        - {rule: "true", messageExpression: "1"}
        properties:
          a: {type: string}
`,
		want: []string{
			p + `.x-kubernetes-validations[0].message: Invalid value: " ": message must be non-empty if specified`,
			p + `.x-kubernetes-validations[1].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
			p + `.x-kubernetes-validations[2].fieldPath: Invalid value: ".nope": must be a valid path`,
		},
	}, {
		name: "cost of an unbounded list",
		schema: `        type: object
        properties:
          list:
            type: array
            items:
              type: string
            x-kubernetes-validations:
            - rule: "self.all(x, self.all(y, x != y || true))"
`,
		want: []string{
			p + `.properties[list].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
			p + `.properties[list].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
			p + `: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := decodeCRD(t, celCRD(tc.schema))
			var got []string
			for _, e := range ValidateCustomResourceDefinition(crd) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// decodeObject reads a custom object in YAML.
func decodeObject(t *testing.T, manifest string) *Unstructured {
	t.Helper()
	data, err := serializer.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	u := &Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestValidateObjectRules(t *testing.T) {
	crd := decodeCRD(t, celCRD(`        type: object
        x-kubernetes-validations:
        - rule: "!has(self.spec.min) || self.spec.min <= self.spec.max"
          messageExpression: "'min exceeds max in mode ' + self.spec.mode"
        - rule: "self.metadata.name.startsWith('w-')"
          message: "name must start with w-"
          fieldPath: ".spec.min"
        properties:
          spec:
            type: object
            properties:
              min: {type: integer}
              max: {type: integer}
              mode:
                type: string
                maxLength: 20
                x-kubernetes-validations:
                - {rule: "self == oldSelf", message: "mode is immutable"}
              tags:
                type: object
                maxProperties: 10
                additionalProperties:
                  type: string
                  x-kubernetes-validations:
                  - {rule: "size(self) < 5", reason: FieldValueForbidden}
              ports:
                type: array
                maxItems: 10
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string, maxLength: 10}
                    port: {type: integer}
                  x-kubernetes-validations:
                  - {rule: "self.port > oldSelf.port", message: "port may only grow"}
                  - {rule: "self.port != 0", messageExpression: "''"}
`))
	if errs := ValidateCustomResourceDefinition(crd); len(errs) > 0 {
		t.Fatal(errs)
	}
	served := BuildServed(crd)[0]
	if served.CEL == nil {
		t.Fatal("no rules compiled")
	}
	tests := []struct {
		name     string
		obj, old string
		want     []string
	}{{
		name: "valid create",
		obj:  `{apiVersion: example.com/v1, kind: Foo, metadata: {name: w-1}, spec: {min: 1, max: 2, mode: a}}`,
	}, {
		name: "failing root rules",
		obj:  `{apiVersion: example.com/v1, kind: Foo, metadata: {name: x}, spec: {min: 3, max: 2, mode: m}}`,
		want: []string{
			`<nil>: Invalid value: min exceeds max in mode m`,
			`spec.min: Invalid value: name must start with w-`,
		},
	}, {
		name: "map values and reason",
		obj:  `{apiVersion: example.com/v1, kind: Foo, metadata: {name: w-1}, spec: {tags: {a: "long value"}}}`,
		want: []string{`spec.tags[a]: Forbidden: failed rule: size(self) < 5`},
	}, {
		name: "transition rules skipped on create",
		obj:  `{apiVersion: example.com/v1, kind: Foo, metadata: {name: w-1}, spec: {ports: [{name: a, port: 1}]}}`,
	}, {
		name: "transition rule on update",
		obj:  `{apiVersion: example.com/v1, kind: Foo, metadata: {name: w-1}, spec: {mode: b, ports: [{name: b, port: 1}, {name: a, port: 1}]}}`,
		old:  `{apiVersion: example.com/v1, kind: Foo, metadata: {name: w-1}, spec: {mode: a, ports: [{name: a, port: 2}]}}`,
		want: []string{
			`spec.mode: Invalid value: "b": mode is immutable`,
			`spec.ports[1]: Invalid value: port may only grow`,
		},
	}, {
		name: "empty messageExpression falls back",
		obj:  `{apiVersion: example.com/v1, kind: Foo, metadata: {name: w-1}, spec: {ports: [{name: a, port: 0}]}}`,
		want: []string{`spec.ports[0]: Invalid value: failed rule: self.port != 0`},
	}, {
		name: "type error blocks the rules",
		obj:  `{apiVersion: example.com/v1, kind: Foo, metadata: {name: w-1}, spec: {min: "a"}}`,
		want: []string{
			`spec.min: Invalid value: "string": spec.min in body must be of type integer: "string"`,
			`<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := decodeObject(t, tc.obj)
			var old *Unstructured
			if tc.old != "" {
				old = decodeObject(t, tc.old)
			}
			errs := ValidateValues(obj.Object, served.Schema)
			errs = append(errs, served.CEL.ValidateObject(errs, obj, old)...)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// Properties whose names are CEL reserved words or hold "-" are reached
// by their escaped names; optionalOldSelf rules run on create too.
func TestValidateObjectRulesEscapingAndOptionalOldSelf(t *testing.T) {
	crd := decodeCRD(t, celCRD(`        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.__namespace__ == self.my__dash__name"
              message: "namespace and my-name differ"
            - rule: "!oldSelf.hasValue() || oldSelf.value().__namespace__ == self.__namespace__"
              optionalOldSelf: true
              reason: FieldValueForbidden
              message: "namespace is immutable"
            properties:
              namespace: {type: string, maxLength: 10}
              my-name: {type: string, maxLength: 10}
`))
	if errs := ValidateCustomResourceDefinition(crd); len(errs) > 0 {
		t.Fatal(errs)
	}
	served := BuildServed(crd)[0]
	check := func(obj, old string, want ...string) {
		t.Helper()
		var o *Unstructured
		if old != "" {
			o = decodeObject(t, old)
		}
		var got []string
		for _, e := range served.CEL.ValidateObject(nil, decodeObject(t, obj), o) {
			got = append(got, e.Error())
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	check(`{metadata: {name: a}, spec: {namespace: x, my-name: x}}`, "")
	check(`{metadata: {name: a}, spec: {namespace: x, my-name: y}}`, "", `spec: Invalid value: namespace and my-name differ`)
	check(`{metadata: {name: a}, spec: {namespace: y, my-name: y}}`, `{metadata: {name: a}, spec: {namespace: x, my-name: x}}`,
		`spec: Forbidden: namespace is immutable`)
}

// A rule over a big list runs out of its per-call cost limit; the rules
// that follow are not run.
func TestValidateObjectRulesCostLimit(t *testing.T) {
	crd := decodeCRD(t, celCRD(`        type: object
        properties:
          list:
            type: array
            items: {type: integer}
            x-kubernetes-validations:
            - rule: "self.all(a, self.all(b, self.all(c, true)))"
            - rule: "false"
`))
	v := NewCELValidator(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	list := make([]any, 300)
	for i := range list {
		list[i] = json.Number("1")
	}
	obj := &Unstructured{Object: map[string]any{"list": list}}
	var got []string
	for _, e := range v.ValidateObject(nil, obj, nil) {
		got = append(got, e.Error())
	}
	want := `list: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(a, self.all(b, self.all(c, true)))`
	if strings.Join(got, "\n") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}
