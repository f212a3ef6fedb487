package plugins

import (
	"context"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/scheduler/framework"
)

// PrioritySort orders the active queue: higher spec.priority first, then
// the pod that has waited longest. Upstream: plugins/queuesort.
type PrioritySort struct{}

func (PrioritySort) Name() string { return "PrioritySort" }

func (PrioritySort) Less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := framework.PodPriority(a.Pod), framework.PodPriority(b.Pod)
	return pa > pb || (pa == pb && a.Timestamp.Before(b.Timestamp))
}

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

// DefaultBinder binds: POST /api/v1/namespaces/<ns>/pods/<name>/binding.
// The apiserver sets spec.nodeName and the PodScheduled condition.
// Upstream: plugins/defaultbinder.
type DefaultBinder struct{ Client *rest.Client }

func (DefaultBinder) Name() string { return "DefaultBinder" }

func (b DefaultBinder) Bind(ctx context.Context, _ *framework.CycleState, pod *corev1.Pod, nodeName string) *framework.Status {
	binding := &corev1.Binding{
		TypeMeta:   metav1.TypeMeta{Kind: "Binding", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: nodeName},
	}
	return framework.AsStatus(rest.CreateSubresource[corev1.Pod](ctx, b.Client, pod.Namespace, pod.Name, "binding", binding, nil))
}
