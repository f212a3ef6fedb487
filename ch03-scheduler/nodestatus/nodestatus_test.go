package nodestatus

import (
	"encoding/json"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// The status as the apiserver receives it, byte for byte: upstream's
// conditions in upstream's order and words.
func TestStatus(t *testing.T) {
	booted := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(booted.Add(time.Hour))
	n := Node{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}, InternalIP: "10.0.0.7",
		Hostname: "node-1", KubeletPort: 10250, Info: corev1.NodeSystemInfo{KubeletVersion: "v1.35.4"},
		Ready: true, ReadyMessage: ReadyMessage}
	got, _ := json.Marshal(Status(n, now, func(corev1.NodeConditionType, corev1.ConditionStatus) metav1.Time { return booted }))
	cond := func(typ, status, reason, msg string) string {
		return `{"type":"` + typ + `","status":"` + status + `","lastHeartbeatTime":"2026-01-01T01:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"` +
			reason + `","message":"` + msg + `"}`
	}
	want := `{"capacity":{"cpu":"4"},"allocatable":{"cpu":"4"},"conditions":[` +
		cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available") + "," +
		cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure") + "," +
		cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available") + "," +
		cond("Ready", "True", "KubeletReady", "kubelet is posting ready status") +
		`],"addresses":[{"type":"InternalIP","address":"10.0.0.7"},{"type":"Hostname","address":"node-1"}],` +
		`"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"",` +
		`"kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"v1.35.4","kubeProxyVersion":"",` +
		`"operatingSystem":"","architecture":""}}`
	if string(got) != want {
		t.Errorf("status\n got %s\nwant %s", got, want)
	}
}

// A kubelet's conditions keep their lastTransitionTime while their status
// stays; Ready going False changes only Ready's.
func TestKeepTransitionTimes(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	n := Node{Ready: true, ReadyMessage: ReadyMessage}
	first := Status(n, t0, KeepTransitionTimes(corev1.NodeStatus{}, t0))
	n.Ready, n.ReadyMessage = false, "container runtime is down"
	second := Status(n, t1, KeepTransitionTimes(first, t1))
	for _, c := range second.Conditions {
		want := t0
		if c.Type == corev1.NodeReady {
			want = t1
			if c.Status != corev1.ConditionFalse || c.Reason != "KubeletNotReady" || c.Message != "container runtime is down" {
				t.Errorf("Ready %+v", c)
			}
		}
		if !c.LastTransitionTime.Equal(want.Time) || !c.LastHeartbeatTime.Equal(t1.Time) {
			t.Errorf("%s: transition %v heartbeat %v, want %v %v", c.Type, c.LastTransitionTime, c.LastHeartbeatTime, want, t1)
		}
	}
}
