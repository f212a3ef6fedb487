package plugins

import (
	"context"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// NodePorts rejects nodes where a host port the pod asks for is taken.
// Upstream: plugins/nodeports.
type NodePorts struct{}

const ErrReasonNodePorts = "node(s) didn't have free ports for the requested pod ports"

func (NodePorts) Name() string { return "NodePorts" }

func (NodePorts) Filter(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	for _, want := range framework.PodHostPorts(pod) {
		for _, used := range n.UsedPorts {
			// 0.0.0.0 conflicts with every address.
			if want.Port == used.Port && want.Protocol == used.Protocol &&
				(want.IP == used.IP || want.IP == "0.0.0.0" || used.IP == "0.0.0.0") {
				return framework.NewStatus(framework.Unschedulable, ErrReasonNodePorts)
			}
		}
	}
	return nil
}
