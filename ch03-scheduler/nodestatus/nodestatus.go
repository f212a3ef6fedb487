// Package nodestatus builds the status a kubelet posts for its Node, as
// upstream's pkg/kubelet/nodestatus setters do (NodeAddress, MachineInfo,
// VersionInfo, DaemonEndpoints and the condition setters): capacity and
// allocatable, the conditions MemoryPressure, DiskPressure, PIDPressure
// and Ready in this order with upstream's reasons and messages, the
// addresses, the kubelet API's port and the node's system info.
//
// Chapter 3's hollow nodes and chapter 5's kubelet both post it, each
// with its own values: a hollow node reports made-up machine facts and
// is always ready; a kubelet reads its machine and asks its runtime.
package nodestatus

import (
	"maps"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// ReadyMessage is the Ready condition's message while the kubelet is
// ready (upstream's ReadyCondition).
const ReadyMessage = "kubelet is posting ready status"

// Node is what a kubelet reports about its node.
type Node struct {
	Capacity    corev1.ResourceList // allocatable is the same: nothing is reserved
	InternalIP  string
	Hostname    string
	KubeletPort int32 // where the apiserver finds the kubelet API; 0: none
	Info        corev1.NodeSystemInfo
	// Ready makes the Ready condition True (reason KubeletReady) or False
	// (KubeletNotReady); ReadyMessage is its message: ReadyMessage, or
	// why the node is not ready.
	Ready        bool
	ReadyMessage string
}

// TransitionTimeFunc is the lastTransitionTime of the condition of type
// t that now has status s.
type TransitionTimeFunc func(t corev1.NodeConditionType, s corev1.ConditionStatus) metav1.Time

// KeepTransitionTimes is a kubelet's TransitionTimeFunc: a condition
// keeps old's lastTransitionTime while its status stays the same, and
// changes now otherwise (or when old does not have it).
func KeepTransitionTimes(old corev1.NodeStatus, now metav1.Time) TransitionTimeFunc {
	prev := map[corev1.NodeConditionType]corev1.NodeCondition{}
	for _, c := range old.Conditions {
		prev[c.Type] = c
	}
	return func(t corev1.NodeConditionType, s corev1.ConditionStatus) metav1.Time {
		if p, ok := prev[t]; ok && p.Status == s {
			return p.LastTransitionTime
		}
		return now
	}
}

// Status is the NodeStatus of n, posted now: every condition's
// lastHeartbeatTime is now, its lastTransitionTime what transitionTime says.
func Status(n Node, now metav1.Time, transitionTime TransitionTimeFunc) corev1.NodeStatus {
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: now,
			LastTransitionTime: transitionTime(t, s)}
	}
	ready := cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", n.ReadyMessage)
	if !n.Ready {
		ready = cond(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", n.ReadyMessage)
	}
	return corev1.NodeStatus{
		Capacity:    n.Capacity,
		Allocatable: maps.Clone(n.Capacity),
		Conditions: []corev1.NodeCondition{
			cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
			cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
			cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
			ready,
		},
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: n.InternalIP},
			{Type: corev1.NodeHostName, Address: n.Hostname},
		},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: n.KubeletPort}},
		NodeInfo:        n.Info,
	}
}
