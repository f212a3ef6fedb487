package defaults

import (
	"testing"

	"kubik/ch01-apiserver/api/resourcev1"
)

func TestResourceClaimDefaults(t *testing.T) {
	var c resourcev1.ResourceClaim
	decode(t, `{"metadata":{"name":"gpus","namespace":"ml"},"spec":{"devices":{"requests":[
	  {"name":"one","exactly":{"deviceClassName":"gpu.example.com","tolerations":[{"key":"k","value":"v"}]}},
	  {"name":"all","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"All"}},
	  {"name":"two","exactly":{"deviceClassName":"gpu.example.com","count":2}},
	  {"name":"either","firstAvailable":[{"name":"big","deviceClassName":"big.example.com"},{"name":"small","deviceClassName":"small.example.com","allocationMode":"All"}]}]}},
	 "status":{"allocation":{"devices":{"results":[{"request":"one","driver":"d","pool":"p","device":"x","tolerations":[{"key":"k"}]}]}}}}`, &c)
	Default(&c)
	sameJSON(t, "spec", c.Spec, `{"devices":{"requests":[
	  {"name":"one","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1,"tolerations":[{"key":"k","operator":"Equal","value":"v"}]}},
	  {"name":"all","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"All"}},
	  {"name":"two","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":2}},
	  {"name":"either","firstAvailable":[{"name":"big","deviceClassName":"big.example.com","allocationMode":"ExactCount","count":1},{"name":"small","deviceClassName":"small.example.com","allocationMode":"All"}]}]}}`)
	if op := c.Status.Allocation.Devices.Results[0].Tolerations[0].Operator; op != resourcev1.DeviceTolerationOpEqual {
		t.Errorf("status toleration operator %q, want Equal", op)
	}
}

func TestResourceClaimTemplateDefaults(t *testing.T) {
	var tpl resourcev1.ResourceClaimTemplate
	decode(t, `{"metadata":{"name":"one-gpu","namespace":"ml"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}}`, &tpl)
	Default(&tpl)
	sameJSON(t, "spec", tpl.Spec, `{"metadata":{},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}}]}}}`)
}

func TestResourceSliceDefaults(t *testing.T) {
	var s resourcev1.ResourceSlice
	decode(t, `{"metadata":{"name":"s"},"spec":{"driver":"gpu.example.com","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n",
	  "devices":[{"name":"gpu-0","taints":[{"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoExecute","timeAdded":"2026-11-30T09:00:00Z"}]}]}}`, &s)
	Default(&s)
	taints := s.Spec.Devices[0].Taints
	if taints[0].TimeAdded == nil || taints[0].TimeAdded.IsZero() {
		t.Errorf("taint without timeAdded was not given one: %+v", taints[0])
	}
	if got := taints[1].TimeAdded.UTC().Format("2006-01-02T15:04:05Z"); got != "2026-11-30T09:00:00Z" {
		t.Errorf("explicit timeAdded changed to %s", got)
	}
}
