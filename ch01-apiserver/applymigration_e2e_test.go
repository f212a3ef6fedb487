package main_test

// From client-side to server-side apply through the real kubectl 1.27 and
// 1.33: `kubectl apply` then `kubectl apply --server-side` of a changed
// value succeeds (the apiserver migrates from the last-applied annotation),
// the annotation follows every server-side apply by kubectl, and kubectl's
// own migration of managedFields (a JSON patch) is honoured. The texts are a
// real v1.35 apiserver's (compare scenario ch01-apply-migration).

import (
	"strings"
	"testing"
)

func TestClientSideToServerSideApply(t *testing.T) {
	for _, v := range []string{"1.27", "1.33"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			k := newKube(t, v)
			t.Parallel()
			k.applyMigration()
		})
	}
}

const lastAppliedPath = `jsonpath={.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`

const managersPath = `jsonpath={range .metadata.managedFields[*]}{.manager} {.operation} {.fieldsV1}{"\n"}{end}`

func (k *kube) applyMigration() {
	k.write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\n  labels:\n    app: demo\ndata:\n  key: value\n  other: o\n")
	k.ok("configmap/migrate created\n", "apply", "-f", "cm.yaml")
	k.ok(`kubectl-client-side-apply Update {"f:data":{".":{},"f:key":{},"f:other":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{}}}}`+"\n",
		"get", "cm", "migrate", "-o", managersPath)

	k.write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\n  labels:\n    app: demo\ndata:\n  key: changed\n")
	k.ok("configmap/migrate serverside-applied\n", "apply", "--server-side", "-f", "cm.yaml")
	k.ok(`{"key":"changed"}`, "get", "cm", "migrate", "-o", "jsonpath={.data}")
	k.ok(`{"apiVersion":"v1","data":{"key":"changed"},"kind":"ConfigMap","metadata":{"labels":{"app":"demo"},"name":"migrate","namespace":"default"}}`+"\n",
		"get", "cm", "migrate", "-o", lastAppliedPath)
	k.ok(`kubectl-last-applied Apply {"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}
kubectl Apply {"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:app":{}}}}
`, "get", "cm", "migrate", "-o", managersPath)

	// Later server-side applies prune what kubectl stopped applying and
	// keep the annotation up to date; a client-side apply still works on it.
	k.write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\ndata:\n  key: again\n")
	k.ok("configmap/migrate serverside-applied\n", "apply", "--server-side", "-f", "cm.yaml")
	k.ok(`{"key":"again"} `, "get", "cm", "migrate", "-o", "jsonpath={.data} {.metadata.labels}")
	k.ok(`{"apiVersion":"v1","data":{"key":"again"},"kind":"ConfigMap","metadata":{"name":"migrate","namespace":"default"}}`+"\n",
		"get", "cm", "migrate", "-o", lastAppliedPath)
	k.write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\ndata:\n  key: client-side-again\n")
	k.ok("configmap/migrate configured\n", "apply", "-f", "cm.yaml")
	k.ok(`{"key":"client-side-again"}`, "get", "cm", "migrate", "-o", "jsonpath={.data}")

	// A Deployment: keyed lists (containers by name) and defaulted fields
	// the annotation does not hold.
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n" +
		"  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.27\n        ports:\n        - containerPort: 80\n"
	k.write("deploy.yaml", deploy)
	k.ok("deployment.apps/web created\n", "apply", "-f", "deploy.yaml")
	k.write("deploy.yaml", strings.NewReplacer("replicas: 2", "replicas: 3", "nginx:1.27", "nginx:1.28").Replace(deploy))
	k.ok("deployment.apps/web serverside-applied\n", "apply", "--server-side", "-f", "deploy.yaml")
	k.ok("3 nginx:1.28", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}")
	k.ok("kubectl-last-applied Apply\nkubectl Apply\n", "get", "deploy", "web", "-o", `jsonpath={range .metadata.managedFields[*]}{.manager} {.operation}{"\n"}{end}`)

	// What someone else changed since, and another field manager, still conflict.
	k.write("edited.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: edited\ndata:\n  key: value\n")
	k.ok("configmap/edited created\n", "apply", "-f", "edited.yaml")
	k.ok("configmap/edited patched\n", "patch", "cm", "edited", "--type=merge", "-p", `{"data":{"key":"by-hand"}}`)
	k.write("edited.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: edited\ndata:\n  key: applied\n")
	k.fails(conflictError(`conflict with "kubectl-patch" using v1: .data.key`), "apply", "--server-side", "-f", "edited.yaml")
	k.write("other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\ndata:\n  key: other\n")
	k.fails(conflictError(`conflict with "kubectl-client-side-apply" using v1: .data.key`), "apply", "--server-side", "--field-manager=other", "-f", "other.yaml")
	k.ok("edited {\"key\":\"by-hand\"}\nmigrate {\"key\":\"client-side-again\"}\n",
		"get", "cm", "edited", "migrate", "-o", `jsonpath={range .items[*]}{.metadata.name} {.data}{"\n"}{end}`)

	// managedFields: [{}] clears them.
	k.ok("configmap/migrate patched\n", "patch", "cm", "migrate", "--type=merge", "-p", `{"metadata":{"managedFields":[{}]}}`)
	k.ok("", "get", "cm", "migrate", "-o", managersPath)
}

// conflictError is kubectl's text for a server-side apply conflict.
func conflictError(conflict string) string {
	return "error: Apply failed with 1 conflict: " + conflict + `
Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the ` + "`--force-conflicts`" + ` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
`
}
