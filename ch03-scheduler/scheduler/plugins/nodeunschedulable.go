package plugins

import (
	"context"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// NodeUnschedulable rejects nodes with spec.unschedulable (kubectl cordon)
// unless the pod tolerates the node.kubernetes.io/unschedulable:NoSchedule
// taint. Upstream: plugins/nodeunschedulable.
type NodeUnschedulable struct{}

const ErrReasonUnschedulable = "node(s) were unschedulable"

func (NodeUnschedulable) Name() string { return "NodeUnschedulable" }

func (NodeUnschedulable) Filter(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	if n.Node == nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had unknown conditions")
	}
	if !n.Node.Spec.Unschedulable {
		return nil
	}
	taint := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	for _, t := range pod.Spec.Tolerations {
		if t.ToleratesTaint(&taint) {
			return nil
		}
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnschedulable)
}
