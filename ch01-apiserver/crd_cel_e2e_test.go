package main_test

import (
	"strings"
	"testing"

	"kubik/internal/testenv"
)

// TestCustomResourceValidationRules: x-kubernetes-validations end to end,
// with kubectl 1.33 and 1.27 against one apiserver — a CRD whose rules do
// not compile refused, a CRD with a root rule and messageExpression, a
// transition rule with a fieldPath, a rule on map values with a reason and
// rules on the items of a list-type map accepted, and its objects checked
// on create and on update. Expected texts are those of kube-apiserver
// v1.35.4 for the same commands.
func TestCustomResourceValidationRules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the apiserver and runs kubectl against it")
	}
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	c := testenv.Start(t, bin, testenv.Options{})
	for _, v := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			testenv.Kubectl(t, v)
			k := &kube{t: t, c: c, v: v, dir: t.TempDir()}
			k.validationRules("k" + strings.ReplaceAll(v, ".", "") + ".example.com")
		})
	}
}

func celGadgetsCRD(group, schema string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.` + group + `
spec:
  group: ` + group + `
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
` + schema
}

func (k *kube) validationRules(group string) {
	const p = "spec.validation.openAPIV3Schema"
	k.write("bad-crd.yaml", celGadgetsCRD(group, `        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.nope == 1 ||"
            properties:
              size:
                type: integer
                x-kubernetes-validations:
                - rule: "self + 1"
                - rule: "nope > 1"
              names:
                type: array
                maxItems: 10
                items:
                  type: string
                  maxLength: 10
                  x-kubernetes-validations:
                  - rule: "self == oldSelf"
                  - rule: "true"
                    reason: Wrong
                    fieldPath: ".nope"
`))
	k.fails(`The CustomResourceDefinition "gadgets.`+group+`" is invalid: 
* `+p+`.properties[spec].properties[names].items.x-kubernetes-validations[1].reason: Unsupported value: "Wrong": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"
* `+p+`.properties[spec].properties[names].items.x-kubernetes-validations[1].fieldPath: Invalid value: ".nope": must be a valid path
* `+p+`.properties[spec].properties[size].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self + 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool
* `+p+`.properties[spec].properties[size].x-kubernetes-validations[1].rule: Invalid value: {"Rule":"nope \u003e 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')
 | nope > 1
 | ^
`, "apply", "-f", "bad-crd.yaml")

	// Rules written wrong, an undefined field, and a rule too expensive
	// for an unbounded list.
	k.write("costly-crd.yaml", celGadgetsCRD(group, `        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.mode == 'x'"
              optionalOldSelf: true
            - rule: "self.list.all(a, self.list.all(b, a != b))"
            - rule: "true"
              messageExpression: "1"
            - rule: "oldSelf.hasValue() || self.nope > 0"
              optionalOldSelf: true
            properties:
              mode: {type: string}
              list: {type: array, items: {type: string}}
`))
	const budget = " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
	k.fails(`The CustomResourceDefinition "gadgets.`+group+`" is invalid: 
* `+p+`.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule
* `+p+`.properties[spec].x-kubernetes-validations[1].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x`+budget+`
* `+p+`.properties[spec].x-kubernetes-validations[2].messageExpression: Invalid value: {"Rule":"true","Message":"","MessageExpression":"1","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression must evaluate to a string
* `+p+`.properties[spec].x-kubernetes-validations[3].rule: Invalid value: {"Rule":"oldSelf.hasValue() || self.nope \u003e 0","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":true}: compilation failed: ERROR: <input>:1:27: undefined field 'nope'
 | oldSelf.hasValue() || self.nope > 0
 | ..........................^
* `+p+`.properties[spec].x-kubernetes-validations[3].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule
* `+p+`.properties[spec].x-kubernetes-validations[1].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema
* `+p+`: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x`+budget+`
`, "apply", "-f", "costly-crd.yaml")

	crd := "customresourcedefinition.apiextensions.k8s.io/gadgets." + group
	k.write("crd.yaml", celGadgetsCRD(group, `        type: object
        x-kubernetes-validations:
        - rule: "!has(self.spec.min) || self.spec.min <= self.spec.max"
          messageExpression: "'min exceeds max in mode ' + self.spec.mode"
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.mode == oldSelf.mode"
              message: "mode is immutable"
              fieldPath: ".mode"
            properties:
              min: {type: integer}
              max: {type: integer}
              mode: {type: string, maxLength: 20}
              labels:
                type: object
                maxProperties: 10
                additionalProperties:
                  type: string
                  maxLength: 63
                  x-kubernetes-validations:
                  - rule: "size(self) < 5"
                    reason: FieldValueForbidden
              ports:
                type: array
                maxItems: 10
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string, maxLength: 15}
                    port: {type: integer}
                  x-kubernetes-validations:
                  - rule: "self.port >= oldSelf.port"
                    message: "port may only grow"
                  - rule: "self.port > 0"
`))
	k.ok(crd+" created\n", "apply", "-f", "crd.yaml")
	k.ok(crd+" condition met\n", "wait", "--for", "condition=established", "crd/gadgets."+group, "--timeout=60s")

	gadget := func(name, spec string) string {
		return "apiVersion: " + group + "/v1\nkind: Gadget\nmetadata: {name: " + name + "}\nspec:\n" + spec
	}
	k.write("g1.yaml", gadget("g1", "  min: 1\n  max: 5\n  mode: fast\n  labels: {a: x}\n  ports: [{name: http, port: 80}]\n"))
	k.ok("gadget."+group+"/g1 created\n", "apply", "-f", "g1.yaml")
	k.write("g2.yaml", gadget("g2", "  min: 7\n  max: 5\n  mode: fast\n  labels: {a: toolong}\n"))
	k.fails(`The Gadget "g2" is invalid: 
* <nil>: Invalid value: min exceeds max in mode fast
* spec.labels[a]: Forbidden: failed rule: size(self) < 5
`, "apply", "-f", "g2.yaml")
	k.write("g3.yaml", gadget("g3", "  mode: fast\n  ports: [{name: http, port: 0}]\n"))
	k.fails(`The Gadget "g3" is invalid: spec.ports[0]: Invalid value: failed rule: self.port > 0`+"\n", "apply", "-f", "g3.yaml")

	// Transition rules: oldSelf is the value at the same place in the
	// stored object, list items matched by their map key (https is new).
	k.fails(`The Gadget "g1" is invalid: 
* spec.mode: Invalid value: mode is immutable
* spec.ports[1]: Invalid value: port may only grow
`, "patch", "gadget", "g1", "--type=merge", "-p", `{"spec":{"mode":"slow","ports":[{"name":"https","port":1},{"name":"http","port":79}]}}`)
	k.ok("gadget."+group+"/g1 patched\n", "patch", "gadget", "g1", "--type=merge", "-p", `{"spec":{"ports":[{"name":"https","port":1},{"name":"http","port":81}]}}`)
	k.ok(`[{"name":"https","port":1},{"name":"http","port":81}]`, "get", "gadget", "g1", "-o", "jsonpath={.spec.ports}")
	k.ok(`customresourcedefinition.apiextensions.k8s.io "gadgets.`+group+`" deleted`+"\n", "delete", "crd", "gadgets."+group)
}
