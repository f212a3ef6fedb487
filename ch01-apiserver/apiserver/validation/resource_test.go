package validation

import (
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/resourcev1"
)

// wantErrors checks that every wanted message is in got.
func wantErrors(t *testing.T, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %s\nin %s", w, got)
		}
	}
}

func TestResourceClaimValid(t *testing.T) {
	var c resourcev1.ResourceClaim
	load(t, `{"metadata":{"name":"gpus","namespace":"ml"},"spec":{"devices":{
	  "requests":[{"name":"big","exactly":{"deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"device.driver == 'gpu.example.com'"}}]}},
	    {"name":"any","firstAvailable":[{"name":"large","deviceClassName":"gpu.example.com"},{"name":"small","deviceClassName":"small.example.com","allocationMode":"All"}]}],
	  "constraints":[{"requests":["big","any/large"],"matchAttribute":"gpu.example.com/model"}],
	  "config":[{"requests":["big"],"opaque":{"driver":"gpu.example.com","parameters":{"mode":"exclusive"}}}]}}}`, &c)
	if errs := Validate(&c, nil); len(errs) != 0 {
		t.Errorf("valid claim rejected: %s", AggregateMessage(errs))
	}
}

func TestResourceClaimMessages(t *testing.T) {
	var c resourcev1.ResourceClaim
	load(t, `{"metadata":{"name":"gpus","namespace":"ml"},"spec":{"devices":{"requests":[
	  {"name":"both","exactly":{"deviceClassName":"gpu.example.com"},"firstAvailable":[{"name":"a","deviceClassName":"gpu.example.com"}]},
	  {"name":"neither"},
	  {"name":"Bad_Name","exactly":{"deviceClassName":""}},
	  {"name":"neither","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"Some"}},
	  {"name":"all","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"All","count":2}},
	  {"name":"neg","exactly":{"deviceClassName":"Gpu","count":-1,"selectors":[{}],"tolerations":[{"key":"k","operator":"Exists","value":"v"},{"key":"k","operator":"Maybe"}]}}],
	  "constraints":[{"requests":["nope"]}],
	  "config":[{"requests":["all"]}]}}}`, &c)
	got := AggregateMessage(Validate(&c, nil))
	wantErrors(t, got,
		"spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
		"spec.devices.requests[1]: Required value: exactly one of `exactly` or `firstAvailable` is required",
		`spec.devices.requests[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
		"spec.devices.requests[2].exactly.deviceClassName: Required value",
		`spec.devices.requests[3]: Duplicate value: "neither"`,
		`spec.devices.requests[3].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"`,
		"spec.devices.requests[4].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'",
		"spec.devices.requests[5].exactly.count: Invalid value: -1: must be greater than zero",
		`spec.devices.requests[5].exactly.deviceClassName: Invalid value: "Gpu": a lowercase RFC 1123 subdomain`,
		"spec.devices.requests[5].exactly.selectors[0].cel: Required value",
		"spec.devices.requests[5].exactly.tolerations[0].value: Invalid value: \"v\": must be empty for operator `Exists`",
		`spec.devices.requests[5].exactly.tolerations[1].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"`,
		`spec.devices.constraints[0].requests[0]: Invalid value: "nope": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'`,
		"spec.devices.constraints[0].matchAttribute: Required value",
		"spec.devices.config[0].opaque: Required value",
	)
}

func TestResourceClaimUpdate(t *testing.T) {
	var old, cur resourcev1.ResourceClaim
	base := `{"metadata":{"name":"gpus","namespace":"ml","resourceVersion":"1"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}`
	load(t, base, &old)
	load(t, base, &cur)
	if errs := Validate(&cur, &old); len(errs) != 0 {
		t.Fatalf("unchanged claim rejected: %s", AggregateMessage(errs))
	}
	cur.Spec.Devices.Requests[0].Exactly.Count = 2
	got := AggregateMessage(Validate(&cur, &old))
	// Upstream prints its internal type, which has no json tags: Go field names, empty fields too.
	if want := `spec: Invalid value: {"Devices":{"Requests":[{"Name":"gpu","Exactly":{"DeviceClassName":"gpu.example.com","Selectors":null,"AllocationMode":"ExactCount","Count":2,"AdminAccess":null,"Tolerations":null,"Capacity":null},"FirstAvailable":null}],"Constraints":null,"Config":null}}: field is immutable`; got != want {
		t.Errorf("got %s", got)
	}

	// Status: reservedFor needs an allocation; an allocation is written once.
	cur = resourcev1.ResourceClaim{}
	load(t, base, &cur)
	cur.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "p", UID: "u1"}, {Resource: "pods", UID: "u1"}}
	wantErrors(t, AggregateMessage(Validate(&cur, &old)),
		"status.reservedFor: Forbidden: may not be specified when `allocated` is not set",
		"status.reservedFor[1].name: Required value",
		`status.reservedFor[1]: Duplicate value: "u1"`)
	old.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}}}}
	cur = resourcev1.ResourceClaim{}
	load(t, base, &cur)
	cur.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-1"}}}}
	wantErrors(t, AggregateMessage(Validate(&cur, &old)), "status.allocation: Invalid value: ", ": field is immutable")
}

func TestResourceClaimTemplateMessages(t *testing.T) {
	var tpl, old resourcev1.ResourceClaimTemplate
	load(t, `{"metadata":{"name":"one","namespace":"ml"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu"}]}}}}`, &tpl)
	wantErrors(t, AggregateMessage(Validate(&tpl, nil)), "spec.spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required")
	base := `{"metadata":{"name":"one","namespace":"ml","resourceVersion":"1"},"spec":{"metadata":{"labels":{"app":"x"}},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"a"}}]}}}}`
	load(t, base, &old)
	tpl = resourcev1.ResourceClaimTemplate{}
	load(t, base, &tpl)
	tpl.Spec.Spec.Devices.Requests[0].Exactly.DeviceClassName = "b"
	// The embedded ObjectMeta of upstream's internal type keeps its json names.
	want := `spec: Invalid value: {"labels":{"app":"x"},"Spec":{"Devices":{"Requests":[{"Name":"gpu","Exactly":{"DeviceClassName":"b","Selectors":null,"AllocationMode":"ExactCount","Count":1,"AdminAccess":null,"Tolerations":null,"Capacity":null},"FirstAvailable":null}],"Constraints":null,"Config":null}}}: field is immutable`
	if got := AggregateMessage(Validate(&tpl, &old)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestDeviceClassMessages(t *testing.T) {
	var dc resourcev1.DeviceClass
	load(t, `{"metadata":{"name":"gpu.example.com"},"spec":{"selectors":[{"cel":{"expression":"true"}}],"config":[{"opaque":{"driver":"gpu.example.com","parameters":{}}}]}}`, &dc)
	if errs := Validate(&dc, nil); len(errs) != 0 {
		t.Errorf("valid class rejected: %s", AggregateMessage(errs))
	}
	dc = resourcev1.DeviceClass{}
	load(t, `{"metadata":{"name":"gpu","namespace":"ml"},"spec":{"selectors":[{}],"config":[{},{"opaque":{"driver":"","parameters":{}}}]}}`, &dc)
	wantErrors(t, AggregateMessage(Validate(&dc, nil)),
		"metadata.namespace: Forbidden: not allowed on this type",
		"spec.selectors[0].cel: Required value",
		"spec.config[0].opaque: Required value",
		"spec.config[1].opaque.driver: Required value")
}

func TestResourceSliceMessages(t *testing.T) {
	var s, old resourcev1.ResourceSlice
	good := `{"metadata":{"name":"n1-gpu","resourceVersion":"1"},"spec":{"driver":"gpu.example.com","pool":{"name":"n1","generation":1,"resourceSliceCount":1},"nodeName":"n1",
	  "devices":[{"name":"gpu-0","attributes":{"model":{"string":"a100"}},"capacity":{"memory":{"value":"40Gi"}},"taints":[{"key":"example.com/t","effect":"NoSchedule"}]}]}}`
	load(t, good, &s)
	if errs := Validate(&s, nil); len(errs) != 0 {
		t.Errorf("valid slice rejected: %s", AggregateMessage(errs))
	}

	s = resourcev1.ResourceSlice{}
	load(t, `{"metadata":{"name":"s"},"spec":{"pool":{"name":"","generation":-1,"resourceSliceCount":0}}}`, &s)
	wantErrors(t, AggregateMessage(Validate(&s, nil)),
		"spec.driver: Required value",
		"spec.pool.name: Required value",
		"spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
		"spec.pool.generation: Invalid value: -1: must be greater than or equal to zero",
		"spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")

	s = resourcev1.ResourceSlice{}
	load(t, `{"metadata":{"name":"s"},"spec":{"driver":"d.example.com","pool":{"name":"p","generation":0,"resourceSliceCount":1},"nodeName":"n1","allNodes":true,
	  "devices":[{"name":"a","nodeName":"n1"},{"name":"a","taints":[{"key":"k","effect":"Sometimes"}]}]}}`, &s)
	wantErrors(t, AggregateMessage(Validate(&s, nil)),
		"spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set",
		"spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec",
		`spec.devices[1]: Duplicate value: "a"`,
		`spec.devices[1].taints[0].effect: Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "None"`)

	s = resourcev1.ResourceSlice{}
	load(t, `{"metadata":{"name":"s"},"spec":{"driver":"d.example.com","pool":{"name":"p","generation":0,"resourceSliceCount":1},"perDeviceNodeSelection":true,"devices":[{"name":"a"}]}}`, &s)
	wantErrors(t, AggregateMessage(Validate(&s, nil)),
		"spec.devices[0]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec")

	load(t, good, &old)
	s = resourcev1.ResourceSlice{}
	load(t, good, &s)
	*s.Spec.NodeName = "n2"
	s.Spec.Driver = "other.example.com"
	wantErrors(t, AggregateMessage(Validate(&s, &old)),
		`spec.nodeName: Invalid value: "n2": field is immutable`,
		`spec.driver: Invalid value: "other.example.com": field is immutable`)
}
