package plugins

import (
	"context"
	"fmt"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// SchedulingGates keeps a pod with spec.schedulingGates out of the active
// queue (upstream: plugins/schedulinggates). Whoever set a gate (a quota
// controller, a batch system) removes it when the pod may be scheduled;
// until then the scheduler does not try it — no attempt, no event, and the
// PodScheduled=False/SchedulingGated condition the apiserver set at
// creation stays (kubectl get pods: STATUS SchedulingGated). Gates can only
// be removed, never added, so the pod's update that removes the last one is
// what lets it in.
type SchedulingGates struct{}

func (SchedulingGates) Name() string { return "SchedulingGates" }

func (SchedulingGates) PreEnqueue(_ context.Context, pod *corev1.Pod) *framework.Status {
	if len(pod.Spec.SchedulingGates) == 0 {
		return nil
	}
	gates := make([]string, 0, len(pod.Spec.SchedulingGates))
	for _, g := range pod.Spec.SchedulingGates {
		gates = append(gates, g.Name)
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for scheduling gates: %v", gates))
}
