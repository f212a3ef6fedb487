package main_test

// Dynamic Resource Allocation objects (resource.k8s.io/v1) through the real
// kubectl 1.33 and the real ch01 binary: what a user sees when they create a
// DeviceClass, a ResourceSlice and ResourceClaims. The texts are a real
// v1.35 apiserver's: its table columns, its defaults, its validation messages.

import (
	"strings"
	"testing"
)

const draManifests = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: worker-1-gpu
spec:
  driver: gpu.example.com
  nodeName: worker-1
  pool:
    name: worker-1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    attributes:
      model:
        string: a100
    capacity:
      memory:
        value: 40Gi
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: single-gpu
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
`

const draBothClaim = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: both
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
      firstAvailable:
      - name: any
        deviceClassName: gpu.example.com
`

func TestResourceDRAObjects(t *testing.T) {
	k := newKube(t, "1.33")
	k.write("dra.yaml", draManifests)
	k.write("both.yaml", draBothClaim)

	k.exact([]string{"apply", "-f", "dra.yaml"},
		"deviceclass.resource.k8s.io/gpu.example.com created\n"+
			"resourceslice.resource.k8s.io/worker-1-gpu created\n"+
			"resourceclaim.resource.k8s.io/single-gpu created\n", "", 0)

	// Discovery lists the four kinds with upstream's scope.
	want := "NAME SHORTNAMES APIVERSION NAMESPACED KIND\n" +
		"deviceclasses resource.k8s.io/v1 false DeviceClass\n" +
		"resourceclaims resource.k8s.io/v1 true ResourceClaim\n" +
		"resourceclaimtemplates resource.k8s.io/v1 true ResourceClaimTemplate\n" +
		"resourceslices resource.k8s.io/v1 false ResourceSlice"
	if got := cells(k.run("api-resources", "--api-group=resource.k8s.io").Stdout); got != want {
		t.Errorf("kubectl api-resources --api-group=resource.k8s.io:\n%s\nwant:\n%s", got, want)
	}

	// A kubelet's DRA plugin lists its node's slices by field selector.
	k.exact([]string{"get", "resourceslices", "--field-selector", "spec.nodeName=worker-1,spec.driver=gpu.example.com", "-o", "name"},
		"resourceslice.resource.k8s.io/worker-1-gpu\n", "", 0)
	k.exact([]string{"get", "resourceslices", "--field-selector", "spec.nodeName=worker-2"}, "", "No resources found\n", 0)
	k.exact([]string{"get", "resourceslices", "--field-selector", "spec.pool.name=worker-1"}, "",
		`Error from server (BadRequest): Unable to find "resource.k8s.io/v1, Resource=resourceslices" that match label selector "", `+
			`field selector "spec.pool.name=worker-1": field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.pool.name`+"\n", 1)

	// Applying the same manifests again. kubectl 1.33 does not know
	// resource.k8s.io/v1 types, so it sends a JSON merge patch, in which a
	// list is replaced whole: the claim's requests (defaulted on the server)
	// differ from the manifest's, so kubectl sends them and says
	// "configured", as against a real apiserver; the server defaults them
	// again and the immutable spec stays the same.
	k.exact([]string{"apply", "-f", "dra.yaml"},
		"deviceclass.resource.k8s.io/gpu.example.com unchanged\n"+
			"resourceslice.resource.k8s.io/worker-1-gpu unchanged\n"+
			"resourceclaim.resource.k8s.io/single-gpu configured\n", "", 0)

	// The claim waits for the scheduler: upstream's State column says "pending".
	if got, want := cells(k.run("get", "resourceclaims").Stdout), "NAME STATE AGE\nsingle-gpu pending <age>"; got != want {
		t.Errorf("kubectl get resourceclaims:\n%s\nwant:\n%s", got, want)
	}

	// The request was defaulted to exactly one device.
	yaml := k.run("get", "resourceclaim", "single-gpu", "-o", "yaml").Stdout
	for _, want := range []string{
		"    requests:\n    - exactly:\n        allocationMode: ExactCount\n        count: 1\n        deviceClassName: gpu.example.com\n      name: gpu\n",
		"kind: ResourceClaim\n", "status: {}\n",
	} {
		if !strings.Contains(yaml, want) {
			t.Errorf("kubectl get resourceclaim -o yaml lacks %q:\n%s", want, yaml)
		}
	}

	// A request is either exactly one kind of device or a list of alternatives.
	k.exact([]string{"create", "-f", "both.yaml"}, "",
		"The ResourceClaim \"both\" is invalid: spec.devices.requests[0]: Invalid value: null: "+
			"exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set\n", 1)

	// A claim's spec never changes; the message shows upstream's internal form of the new spec.
	k.exact([]string{"patch", "resourceclaim", "single-gpu", "--type=json",
		"-p", `[{"op":"replace","path":"/spec/devices/requests/0/exactly/count","value":2}]`}, "",
		`The ResourceClaim "single-gpu" is invalid: spec: Invalid value: {"Devices":{"Requests":[{"Name":"gpu","Exactly":`+
			`{"DeviceClassName":"gpu.example.com","Selectors":null,"AllocationMode":"ExactCount","Count":2,"AdminAccess":null,"Tolerations":null,"Capacity":null},`+
			`"FirstAvailable":null}],"Constraints":null,"Config":null}}: field is immutable`+"\n", 1)

	// Cluster-scoped kinds, with upstream's columns.
	want = "NAME AGE\n" +
		"deviceclass.resource.k8s.io/gpu.example.com <age>\n\n" +
		"NAME NODE DRIVER POOL AGE\n" +
		"resourceslice.resource.k8s.io/worker-1-gpu worker-1 gpu.example.com worker-1 <age>"
	if got := cells(k.run("get", "deviceclasses,resourceslices").Stdout); got != want {
		t.Errorf("kubectl get deviceclasses,resourceslices:\n%s\nwant:\n%s", got, want)
	}

	// kubectl explain reads the OpenAPI v3 document of resource.k8s.io/v1.
	explain := k.run("explain", "resourceclaim.spec.devices")
	for _, want := range []string{
		"GROUP:      resource.k8s.io\nKIND:       ResourceClaim\nVERSION:    v1\n",
		"FIELD: devices <DeviceClaim>\n",
		"    Devices defines how to request devices.\n",
		"  requests\t<[]DeviceRequest> -required-\n",
		"  constraints\t<[]DeviceConstraint>\n",
	} {
		if !strings.Contains(explain.Stdout, want) {
			t.Errorf("kubectl explain resourceclaim.spec.devices lacks %q:\n%s%s", want, explain.Stdout, explain.Stderr)
		}
	}
}
