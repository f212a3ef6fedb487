package main_test

// apps/v1 ControllerRevisions through the real kubectl 1.27 and 1.33:
// served as objects with upstream's validation and Table (compare scenario
// ch01-controllerrevisions).

import "testing"

func TestControllerRevisions(t *testing.T) {
	for _, v := range []string{"1.27", "1.33"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			k := newKube(t, v)
			t.Parallel()
			k.controllerRevisions()
		})
	}
}

func (k *kube) controllerRevisions() {
	k.write("cr.yaml", `apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: web-1
  ownerReferences:
  - {apiVersion: apps/v1, kind: DaemonSet, name: web, uid: 3f1f5e2a-1b2c-4d5e-8f90-123456789abc, controller: true}
data:
  spec: {template: {spec: {containers: [{name: nginx, image: "nginx:1.27"}]}}}
revision: 2
---
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: orphan
data: {}
revision: 1
`)
	k.ok("controllerrevision.apps/web-1 created\ncontrollerrevision.apps/orphan created\n", "create", "-f", "cr.yaml")
	k.table("NAME CONTROLLER REVISION AGE\norphan <none> 1 <age>\nweb-1 daemonset.apps/web 2 <age>", "get", "controllerrevisions")
	k.ok(`{"spec":{"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"nginx"}]}}}} 2`, "get", "controllerrevision", "web-1", "-o", "jsonpath={.data} {.revision}")
	k.write("nodata.yaml", "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: nodata\nrevision: -1\n")
	k.fails(`The ControllerRevision "nodata" is invalid: 
* revision: Invalid value: -1: must be greater than or equal to 0
* data: Required value: data is mandatory
`, "create", "-f", "nodata.yaml")
	k.fails(`The ControllerRevision "orphan" is invalid: data: Invalid value: {"x":1}: field is immutable
`, "patch", "controllerrevision", "orphan", "--type=merge", "-p", `{"data":{"x":1}}`)
	k.ok("controllerrevision.apps/orphan patched\n", "patch", "controllerrevision", "orphan", "--type=merge", "-p", `{"revision":3}`)
	k.ok("controllerrevision.apps \"orphan\" deleted\n", "delete", "controllerrevision", "orphan")
}
