package schedulingv1

import (
	"testing"

	"kubik/internal/apitest"
)

const nodeCritical = `{"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1",
 "metadata":{"name":"system-node-critical","uid":"7a1b2c3d-0000-4000-8000-000000000001","resourceVersion":"74","generation":1,"creationTimestamp":"2026-11-30T02:10:00Z"},
 "value":2000001000,"description":"Used for system critical pods that must not be moved from their current node.","preemptionPolicy":"PreemptLowerPriority"}`

func TestPriorityClassRoundTrip(t *testing.T) {
	var pc PriorityClass
	apitest.RoundTrip(t, []byte(nodeCritical), &pc)
	sys := SystemPriorityClasses()
	if pc.Name != sys[0].Name || pc.Value != sys[0].Value || pc.Description != sys[0].Description {
		t.Errorf("decoded %+v, built-in %+v", pc, sys[0])
	}
	if SystemCriticalPriority != 2000000000 || sys[1].Name != SystemClusterCritical || sys[1].Value != 2000000000 {
		t.Errorf("built-in classes %+v", sys[1])
	}
}
