package resourcev1

import (
	"bytes"
	"testing"

	"kubik/internal/apitest"
)

const gpuClass = `{"kind":"DeviceClass","apiVersion":"resource.k8s.io/v1",
 "metadata":{"name":"gpu.example.com","uid":"0f0e0d0c-0000-4000-8000-000000000001","resourceVersion":"812","generation":1,"creationTimestamp":"2026-11-30T09:00:00Z"},
 "spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\" && device.attributes[\"gpu.example.com\"].model == \"a100\""}}],
  "config":[{"opaque":{"driver":"gpu.example.com","parameters":{"apiVersion":"gpu.example.com/v1","kind":"GpuConfig","sharing":{"strategy":"TimeSlicing"}}}}],
  "extendedResourceName":"example.com/gpu"}}`

func TestDeviceClassRoundTrip(t *testing.T) {
	var dc DeviceClass
	apitest.RoundTrip(t, []byte(gpuClass), &dc)
	if len(dc.Spec.Selectors) != 1 || dc.Spec.Selectors[0].CEL == nil || dc.Spec.Config[0].Opaque.Driver != "gpu.example.com" {
		t.Errorf("decoded spec %+v", dc.Spec)
	}
	if got := string(dc.Spec.Config[0].Opaque.Parameters.Raw); !bytes.Contains([]byte(got), []byte(`"TimeSlicing"`)) {
		t.Errorf("opaque parameters %s", got)
	}
}

const nodeSlice = `{"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1",
 "metadata":{"name":"worker-1-gpu.example.com-x7k2p","generateName":"worker-1-gpu.example.com-","uid":"0f0e0d0c-0000-4000-8000-000000000002","resourceVersion":"905","generation":1,"creationTimestamp":"2026-11-30T09:01:00Z",
  "ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"worker-1","uid":"0f0e0d0c-0000-4000-8000-0000000000aa","controller":true}]},
 "spec":{"driver":"gpu.example.com","pool":{"name":"worker-1","generation":3,"resourceSliceCount":1},"nodeName":"worker-1",
  "devices":[
   {"name":"gpu-0","attributes":{"model":{"string":"a100"},"index":{"int":0},"driverVersion":{"version":"1.2.3"},"gpu.example.com/mig":{"bool":false}},
    "capacity":{"memory":{"value":"40Gi"},"cores":{"value":"108","requestPolicy":{"default":"1","validRange":{"min":"1","max":"108","step":"1"}}}},
    "allowMultipleAllocations":true},
   {"name":"gpu-1","attributes":{"model":{"string":"a100"},"index":{"int":1}},"capacity":{"memory":{"value":"40Gi"}},
    "taints":[{"key":"gpu.example.com/unhealthy","value":"ecc","effect":"NoSchedule","timeAdded":"2026-11-30T09:05:00Z"}]}]}}`

func TestResourceSliceRoundTrip(t *testing.T) {
	var s ResourceSlice
	apitest.RoundTrip(t, []byte(nodeSlice), &s)
	d := s.Spec.Devices[0]
	if *s.Spec.NodeName != "worker-1" || *d.Attributes["index"].IntValue != 0 || d.Capacity["memory"].Value.String() != "40Gi" {
		t.Errorf("decoded %+v", s.Spec)
	}
	if got := s.Spec.Devices[1].Taints[0].String(); got != "gpu.example.com/unhealthy=ecc:NoSchedule" {
		t.Errorf("taint %q", got)
	}
}

const allocatedClaim = `{"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1",
 "metadata":{"name":"training-gpus","namespace":"ml","uid":"0f0e0d0c-0000-4000-8000-000000000003","resourceVersion":"1040","creationTimestamp":"2026-11-30T09:10:00Z",
  "finalizers":["resource.kubernetes.io/delete-protection"]},
 "spec":{"devices":{
  "requests":[
   {"name":"big","exactly":{"deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0"}}],
     "allocationMode":"ExactCount","count":2,"tolerations":[{"key":"gpu.example.com/unhealthy","operator":"Exists","effect":"NoSchedule"}]}},
   {"name":"any","firstAvailable":[
     {"name":"large","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1,"capacity":{"requests":{"memory":"20Gi"}}},
     {"name":"all-small","deviceClassName":"small-gpu.example.com","allocationMode":"All"}]}],
  "constraints":[{"requests":["big"],"matchAttribute":"gpu.example.com/model"}],
  "config":[{"requests":["big"],"opaque":{"driver":"gpu.example.com","parameters":{"mode":"exclusive"}}}]}},
 "status":{
  "allocation":{"devices":{
    "results":[
     {"request":"big","driver":"gpu.example.com","pool":"worker-1","device":"gpu-0"},
     {"request":"big","driver":"gpu.example.com","pool":"worker-1","device":"gpu-2"},
     {"request":"any/large","driver":"gpu.example.com","pool":"worker-1","device":"gpu-3","shareID":"0f0e0d0c-0000-4000-8000-0000000000bb","consumedCapacity":{"memory":"20Gi"}}],
    "config":[{"source":"FromClaim","requests":["big"],"opaque":{"driver":"gpu.example.com","parameters":{"mode":"exclusive"}}}]},
   "nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["worker-1"]}]}]},
   "allocationTimestamp":"2026-11-30T09:10:02Z"},
  "reservedFor":[{"resource":"pods","name":"trainer-0","uid":"0f0e0d0c-0000-4000-8000-0000000000cc"}],
  "devices":[{"driver":"gpu.example.com","pool":"worker-1","device":"gpu-0",
   "conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-30T09:10:05Z","reason":"Prepared","message":"device prepared"}],
   "data":{"uuid":"GPU-1234"},"networkData":{"interfaceName":"eth1","ips":["10.9.0.5/24"],"hardwareAddress":"ea:9f:cb:40:b1:7b"}}]}}`

func TestResourceClaimRoundTrip(t *testing.T) {
	var c ResourceClaim
	apitest.RoundTrip(t, []byte(allocatedClaim), &c)
	reqs := c.Spec.Devices.Requests
	if reqs[0].Exactly == nil || reqs[0].Exactly.Count != 2 || len(reqs[1].FirstAvailable) != 2 || reqs[1].FirstAvailable[1].AllocationMode != DeviceAllocationModeAll {
		t.Errorf("decoded requests %+v", reqs)
	}
	if c.Status.Allocation == nil || len(c.Status.Allocation.Devices.Results) != 3 || c.Status.ReservedFor[0].Resource != "pods" {
		t.Errorf("decoded status %+v", c.Status)
	}
}

const claimTemplate = `{"kind":"ResourceClaimTemplate","apiVersion":"resource.k8s.io/v1",
 "metadata":{"name":"one-gpu","namespace":"ml","uid":"0f0e0d0c-0000-4000-8000-000000000004","resourceVersion":"1100","creationTimestamp":"2026-11-30T09:20:00Z"},
 "spec":{"metadata":{"labels":{"app":"trainer"}},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}}]}}}}`

func TestResourceClaimTemplateRoundTrip(t *testing.T) {
	var tpl ResourceClaimTemplate
	apitest.RoundTrip(t, []byte(claimTemplate), &tpl)
	if tpl.Spec.Labels["app"] != "trainer" || tpl.Spec.Spec.Devices.Requests[0].Exactly.DeviceClassName != "gpu.example.com" {
		t.Errorf("decoded %+v", tpl.Spec)
	}
}
