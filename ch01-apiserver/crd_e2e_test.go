package main_test

import (
	"os"
	"strings"
	"testing"

	"kubik/internal/testenv"
)

// TestCustomResourceDefinitions: apiextensions.k8s.io/v1 end to end, with
// kubectl 1.33 and 1.27 against one apiserver — a CRD applied and
// Established, its custom resources served with the CRD's columns,
// categories, scale and status subresources, schema validation and pruning,
// and the CRD's deletion taking its objects along. Expected texts are those
// of kube-apiserver v1.35.4 for the same commands.
func TestCustomResourceDefinitions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the apiserver and runs kubectl against it")
	}
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	c := testenv.Start(t, bin, testenv.Options{})
	for _, v := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			testenv.Kubectl(t, v)
			k := &kube{t: t, c: c, v: v, dir: t.TempDir()}
			// Each kubectl gets a group of its own: the two runs share the server.
			k.customResources("k" + strings.ReplaceAll(v, ".", "") + ".example.com")
			k.gatewayAPI()
		})
	}
}

func widgetsCRD(group string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.` + group + `
spec:
  group: ` + group + `
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Color
      type: string
      jsonPath: .spec.color
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    selectableFields:
    - jsonPath: .spec.color
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
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`
}

func (k *kube) customResources(group string) {
	crd := "customresourcedefinition.apiextensions.k8s.io/widgets." + group
	k.write("crd.yaml", widgetsCRD(group))
	k.ok(crd+" created\n", "apply", "-f", "crd.yaml")
	k.ok(crd+" condition met\n", "wait", "--for", "condition=established", "crd/widgets."+group, "--timeout=60s")
	k.ok("True True InitialNamesAccepted v1", "get", "crd", "widgets."+group, "-o",
		`jsonpath={.status.conditions[?(@.type=="NamesAccepted")].status} {.status.conditions[?(@.type=="Established")].status} {.status.conditions[?(@.type=="Established")].reason} {.status.storedVersions[0]}`)
	k.table(`
NAME      SHORTNAMES   APIVERSION   NAMESPACED   KIND
widgets   wd           `+group+`/v1   true   Widget`, "api-resources", "--api-group="+group)

	// OpenAPI v3 of the group, built from the schema: kubectl explain.
	explain := "GROUP:      " + group + "\nKIND:       Widget\nVERSION:    v1\n\nFIELD: replicas <integer>\n"
	k.ok(explain+k.pick("", "\n")+"\nDESCRIPTION:\n    <empty>\n\n", "explain", "widgets.spec.replicas")

	// Unknown fields: strict (kubectl's default) refuses them, Warn prunes them.
	k.write("w1.yaml", `apiVersion: `+group+`/v1
kind: Widget
metadata:
  name: w1
  labels: {app: demo}
spec:
  color: red
  unknown: 5
  template:
    apiVersion: v1
    kind: Pod
    metadata: {name: x, junk: 1}
    spec: {a: 1}
`)
	k.fails(`Error from server (BadRequest): error when creating "w1.yaml": Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.unknown", unknown field "spec.template.metadata.junk"`+"\n",
		"apply", "-f", "w1.yaml")
	k.exact([]string{"create", "-f", "w1.yaml", "--validate=warn"}, "widget."+group+"/w1 created\n",
		"Warning: unknown field \"spec.unknown\"\nWarning: unknown field \"spec.template.metadata.junk\"\n", 0)
	// Pruned and defaulted (replicas: 1), as -o yaml shows.
	k.ok(`apiVersion: `+group+`/v1
kind: Widget
metadata:
  creationTimestamp: "<time>"
  generation: 1
  labels:
    app: demo
  name: w1
  namespace: default
  resourceVersion: "<rv>"
  uid: <uid>
spec:
  color: red
  replicas: 1
  template:
    apiVersion: v1
    kind: Pod
    metadata:
      name: x
    spec:
      a: 1
`, "get", "widget", "w1", "-o", "yaml")

	k.table(`
NAME   COLOR   REPLICAS   AGE
w1     red     1          1s`, "get", "widgets")
	k.table(`
NAME                 TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE
service/kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   1s

NAME                          COLOR   REPLICAS   AGE
widget.`+group+`/w1   red     1          1s`, "get", "all")

	// The scale subresource: kubectl scale writes .spec.replicas (a spec change: generation 2).
	k.ok("widget."+group+"/w1 scaled\n", "scale", "wd", "w1", "--replicas=3")
	k.ok("3 2", "get", "wd", "w1", "-o", "jsonpath={.spec.replicas} {.metadata.generation}")
	if r := k.run("get", "--raw", "/apis/"+group+"/v1/namespaces/default/widgets/w1/scale"); r.ExitCode != 0 ||
		!strings.Contains(r.Stdout, `"spec":{"replicas":3},"status":{"replicas":0}`) {
		k.t.Errorf("GET .../widgets/w1/scale: exit %d\n%s", r.ExitCode, r.Combined())
	}

	// The status subresource changes only the status; the main resource only the rest.
	k.ok("widget."+group+"/w1 patched\n", "patch", "widget", "w1", "--subresource=status", "--type=merge",
		"-p", `{"spec":{"color":"blue"},"status":{"replicas":7}}`)
	k.ok("widget."+group+"/w1 patched (no change)\n", "patch", "widget", "w1", "--type=merge", "-p", `{"status":{"replicas":9}}`)
	k.ok("red 7 2", "get", "widget", "w1", "-o", "jsonpath={.spec.color} {.status.replicas} {.metadata.generation}")

	// Another version of the same objects: conversion "None" rewrites apiVersion only.
	k.ok(group+"/v1beta1 red", "get", "widgets.v1beta1."+group, "w1", "-o", "jsonpath={.apiVersion} {.spec.color}")

	// Field selectors: metadata.name and the CRD's selectableFields.
	k.ok("widget."+group+"/w1\n", "get", "widgets", "--field-selector", "spec.color=red", "-o", "name")
	k.fails(`Error from server (BadRequest): Unable to find "`+group+`/v1, Resource=widgets" that match label selector "", field selector "spec.size=red": field label not supported: spec.size`+"\n",
		"get", "widgets", "--field-selector", "spec.size=red")

	// A schema violation, with upstream's message.
	k.write("bad.yaml", `apiVersion: `+group+`/v1
kind: Widget
metadata:
  name: bad
spec:
  color: red
  replicas: 20
`)
	k.fails(`The Widget "bad" is invalid: spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10`+"\n",
		"apply", "-f", "bad.yaml")

	// Deleting the CRD deletes its objects first (the cleanup finalizer):
	// served again, the resource has no objects left in storage.
	k.ok("customresourcedefinition.apiextensions.k8s.io \"widgets."+group+"\" deleted\n", "delete", "crd", "widgets."+group)
	k.fails(`Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "widgets.`+group+`" not found`+"\n", "get", "crd", "widgets."+group)
	k.ok(crd+" created\n", "apply", "-f", "crd.yaml")
	k.ok(crd+" condition met\n", "wait", "--for", "condition=established", "crd/widgets."+group, "--timeout=60s")
	k.exact([]string{"get", "widgets." + group}, "", "No resources found in default namespace.\n", 0)
	k.ok("customresourcedefinition.apiextensions.k8s.io \"widgets."+group+"\" deleted\n", "delete", "crd", "widgets."+group)
}

// gatewayAPI installs Gateway API's standard channel CRDs (as published,
// vendored in apiserver/apiextensions/testdata) and uses them: defaults
// from the schemas, printer columns, a Gateway the schema refuses.
func (k *kube) gatewayAPI() {
	bundle, err := os.ReadFile("apiserver/apiextensions/testdata/gateway-api-v1.0.0-rc1-standard-install.yaml")
	if err != nil {
		k.t.Fatal(err)
	}
	k.write("gateway-api.yaml", string(bundle))
	names := []string{"gatewayclasses", "gateways", "httproutes", "referencegrants"}
	var created, met, deleted string
	for _, n := range names {
		created += "customresourcedefinition.apiextensions.k8s.io/" + n + ".gateway.networking.k8s.io created\n"
		met += "customresourcedefinition.apiextensions.k8s.io/" + n + ".gateway.networking.k8s.io condition met\n"
		deleted += "customresourcedefinition.apiextensions.k8s.io \"" + n + ".gateway.networking.k8s.io\" deleted\n"
	}
	k.ok(created, "apply", "-f", "gateway-api.yaml")
	for _, n := range names {
		k.run("wait", "--for", "condition=established", "crd/"+n+".gateway.networking.k8s.io", "--timeout=60s")
	}
	k.ok("ApprovedAnnotation", "get", "crd", "gateways.gateway.networking.k8s.io", "-o",
		`jsonpath={.status.conditions[?(@.type=="KubernetesAPIApprovalPolicyConformant")].reason}`)
	k.table(`
NAME              SHORTNAMES   APIVERSION                          NAMESPACED   KIND
gatewayclasses    gc           gateway.networking.k8s.io/v1        false        GatewayClass
gateways          gtw          gateway.networking.k8s.io/v1        true         Gateway
httproutes                     gateway.networking.k8s.io/v1        true         HTTPRoute
referencegrants   refgrant     gateway.networking.k8s.io/v1beta1   true         ReferenceGrant`, "api-resources", "--api-group=gateway.networking.k8s.io")
	k.write("gw-objects.yaml", `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: example}
spec: {controllerName: example.com/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: example
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  parentRefs: [{name: gw}]
  hostnames: [web.example.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: /}}]
    backendRefs: [{name: web, port: 80}]
`)
	k.ok("gatewayclass.gateway.networking.k8s.io/example created\ngateway.gateway.networking.k8s.io/gw created\nhttproute.gateway.networking.k8s.io/web created\n",
		"apply", "-f", "gw-objects.yaml")
	k.table(`
NAME                                             CONTROLLER                       ACCEPTED   AGE
gatewayclass.gateway.networking.k8s.io/example   example.com/gateway-controller   Unknown    1s

NAME                                   CLASS     ADDRESS   PROGRAMMED   AGE
gateway.gateway.networking.k8s.io/gw   example             Unknown      1s

NAME                                      HOSTNAMES             AGE
httproute.gateway.networking.k8s.io/web   ["web.example.com"]   1s`, "get", "gatewayclass,gateway,httproute")
	// The schemas' defaults: allowedRoutes, the parent's group and kind, the backend's weight.
	k.ok(`{"hostnames":["web.example.com"],"parentRefs":[{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"gw"}],"rules":[{"backendRefs":[{"group":"","kind":"Service","name":"web","port":80,"weight":1}],"matches":[{"path":{"type":"PathPrefix","value":"/"}}]}]}`,
		"get", "httproute", "web", "-o", "jsonpath={.spec}")
	k.ok("Same Waiting for controller", "get", "gateway", "gw", "-o", "jsonpath={.spec.listeners[0].allowedRoutes.namespaces.from} {.status.conditions[0].message}")
	k.write("bad-gw.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: bad}\nspec:\n  gatewayClassName: \"\"\n  listeners:\n  - {name: http, protocol: HTTP, port: 800000}\n")
	k.fails(`The Gateway "bad" is invalid: 
* spec.gatewayClassName: Invalid value: "": spec.gatewayClassName in body should be at least 1 chars long
* spec.listeners[0].port: Invalid value: 800000: spec.listeners[0].port in body should be less than or equal to 65535
`, "apply", "-f", "bad-gw.yaml")
	k.ok("gatewayclass.gateway.networking.k8s.io \"example\" deleted\ngateway.gateway.networking.k8s.io \"gw\" deleted\nhttproute.gateway.networking.k8s.io \"web\" deleted\n",
		"delete", "-f", "gw-objects.yaml")
	k.ok(deleted, "delete", "-f", "gateway-api.yaml")
}
