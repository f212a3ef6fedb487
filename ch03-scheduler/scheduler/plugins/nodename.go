package plugins

import (
	"context"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// NodeName: a pod that names its node (spec.nodeName set by its author)
// fits only there. The scheduler never sees such pods (they are already
// bound); the plugin matters for preemption and for other schedulers.
// Upstream: plugins/nodename.
type NodeName struct{}

const ErrReasonNodeName = "node(s) didn't match the requested node name"

func (NodeName) Name() string { return "NodeName" }

func (NodeName) Filter(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != n.Name() {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeName)
	}
	return nil
}
