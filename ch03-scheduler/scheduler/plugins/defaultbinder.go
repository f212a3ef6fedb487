package plugins

import (
	"context"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/scheduler/framework"
)

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
