package discoveryv1

import (
	"testing"

	"kubik/internal/apitest"
)

// EndpointSlices as the EndpointSlice controller writes them.
const slices = `{"kind":"EndpointSliceList","apiVersion":"discovery.k8s.io/v1","metadata":{"resourceVersion":"600"},"items":[
 {"metadata":{"name":"kubernetes","namespace":"default","uid":"1d2c3b4a-0000-4000-8000-000000000001","resourceVersion":"12","generation":1,"creationTimestamp":"2026-11-30T02:10:00Z",
   "labels":{"kubernetes.io/service-name":"kubernetes"}},
  "addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true}}],
  "ports":[{"name":"https","protocol":"TCP","port":6443}]},
 {"metadata":{"name":"web-x7k2p","generateName":"web-","namespace":"default","uid":"1d2c3b4a-0000-4000-8000-000000000002","resourceVersion":"590","generation":3,"creationTimestamp":"2026-11-30T02:13:30Z",
   "labels":{"endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io","kubernetes.io/service-name":"web"},
   "ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"web","uid":"1d2c3b4a-0000-4000-8000-000000000003","controller":true,"blockOwnerDeletion":true}]},
  "addressType":"IPv4",
  "endpoints":[{"addresses":["10.244.0.5"],"conditions":{"ready":true,"serving":true,"terminating":false},
    "targetRef":{"kind":"Pod","namespace":"default","name":"web-5d8f9c6b7a-abcde","uid":"1d2c3b4a-0000-4000-8000-000000000004"},
    "nodeName":"node-1","zone":"zone-a","hints":{"forZones":[{"name":"zone-a"}]}}],
  "ports":[{"name":"","protocol":"TCP","port":80}]},
 {"metadata":{"name":"empty-abcde","namespace":"default","uid":"1d2c3b4a-0000-4000-8000-000000000005","resourceVersion":"595","generation":1,"creationTimestamp":"2026-11-30T02:13:31Z"},
  "addressType":"IPv4","endpoints":null,"ports":null}]}`

func TestEndpointSliceListRoundTrip(t *testing.T) {
	var l EndpointSliceList
	apitest.RoundTrip(t, []byte(slices), &l)
	if len(l.Items) != 3 || l.Items[0].Labels[LabelServiceName] != "kubernetes" || *l.Items[1].Endpoints[0].NodeName != "node-1" {
		t.Errorf("decoded %+v", l.Items)
	}
	if l.Items[1].Ports[0].Name == nil || *l.Items[1].Ports[0].Name != "" {
		t.Error("an empty port name must survive as a non-nil pointer")
	}
}
