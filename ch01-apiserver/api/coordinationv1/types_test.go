package coordinationv1

import (
	"testing"

	"kubik/internal/apitest"
)

// A node heartbeat lease as a real server returns it.
const nodeLease = `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1",
 "metadata":{"name":"node-1","namespace":"kube-node-lease","uid":"0b8f5d3e-8a51-4c0e-9f5a-3d1c2b4a5e6f","resourceVersion":"512","creationTimestamp":"2026-11-30T02:10:00Z",
  "ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"node-1","uid":"5f3c1a2b-7d4e-4f60-8a9b-0c1d2e3f4a5b"}]},
 "spec":{"holderIdentity":"node-1","leaseDurationSeconds":40,"renewTime":"2026-11-30T02:14:21.123456Z"}}`

func TestLeaseRoundTrip(t *testing.T) {
	var l Lease
	apitest.RoundTrip(t, []byte(nodeLease), &l)
	if *l.Spec.HolderIdentity != "node-1" || l.Spec.RenewTime.Nanosecond() != 123456000 {
		t.Errorf("decoded %+v", l.Spec)
	}
}
