package main_test

import (
	"testing"
	"time"

	"kubik/internal/testenv"
)

// TestCustomResourceOpenAPIV2Explain: kubectl explain
// --output=plaintext-openapiv2 reads a CRD's schema from /openapi/v2 (in
// protobuf), converted for v2 as upstream converts it: the nullable label
// and the int-or-string port have no type and the label is not required,
// extra (which preserves unknown fields) has no fields, anyOf is gone.
// Expected texts are kube-apiserver v1.35.4's (the golden of
// compare/scenarios/ch01-crd-openapi.md).
func TestCustomResourceOpenAPIV2Explain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the apiserver and runs kubectl against it")
	}
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	c := testenv.Start(t, bin, testenv.Options{})
	for _, v := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			testenv.Kubectl(t, v)
			k := &kube{t: t, c: c, v: v, dir: t.TempDir()}
			k.write("gadgets.yaml", gadgetsV2CRD)
			k.ok("customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created\n", "create", "-f", "gadgets.yaml")
			k.ok("customresourcedefinition.apiextensions.k8s.io/gadgets.example.com condition met\n",
				"wait", "--for=condition=Established", "crd/gadgets.example.com")
			testenv.Eventually(t, "Gadget in /openapi/v2", 30*time.Second, func() (string, bool) {
				r := k.run("explain", "gadgets.spec", "--output=plaintext-openapiv2")
				return r.Combined(), r.ExitCode == 0
			})
			k.ok(gadgetsSpecExplain, "explain", "gadgets.spec", "--output=plaintext-openapiv2")
			k.ok("customresourcedefinition.apiextensions.k8s.io \"gadgets.example.com\" deleted\n", "delete", "crd", "gadgets.example.com")
			k.exact([]string{"explain", "gadgets", "--output=plaintext-openapiv2"}, "",
				`the server doesn't have a resource type "gadgets"`+"\n", 1)
		})
	}
}

const gadgetsV2CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  names:
    plural: gadgets
    singular: gadget
    kind: Gadget
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: Gadget is a thing with a size.
        type: object
        properties:
          spec:
            description: Spec is what the gadget should be.
            type: object
            required: [size, label]
            properties:
              size:
                description: Size of the gadget.
                type: integer
                minimum: 1
                default: 3
              label:
                description: Label may be null.
                type: string
                nullable: true
              port:
                description: Port by number or name.
                x-kubernetes-int-or-string: true
              tags:
                description: Tags of the gadget.
                type: array
                items: {type: string}
              extra:
                description: Extra keeps whatever it is given.
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  known: {type: string}
              mode:
                description: Mode is fast or slow.
                type: string
                anyOf:
                - enum: [fast]
                - enum: [slow]
          status:
            type: object
            properties:
              ready: {type: boolean}
`

const gadgetsSpecExplain = `KIND:     Gadget
VERSION:  example.com/v1

RESOURCE: spec <Object>

DESCRIPTION:
     Spec is what the gadget should be.

FIELDS:
   extra	<>
     Extra keeps whatever it is given.

   label	<>
     Label may be null.

   mode	<string>
     Mode is fast or slow.

   port	<>
     Port by number or name.

   size	<integer> -required-
     Size of the gadget.

   tags	<[]string>
     Tags of the gadget.

`
