package plugins

import (
	"context"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// DefaultPreemption is the PostFilter that runs when no node fits: could
// evicting pods of lower priority make room? Upstream then picks victims,
// deletes them and nominates the node (plugins/defaultpreemption and
// framework/preemption).
//
// Chapter 3 does the search but not the eviction: when no node would fit
// even without its lower-priority pods, it reports exactly what upstream
// reports ("preemption: 0/3 nodes are available: 1 Preemption is not helpful
// for scheduling, 2 No preemption victims found for incoming pod."); when
// preemption would help, it says so and leaves the pod pending.
type DefaultPreemption struct{ fw *framework.Framework }

func (*DefaultPreemption) Name() string { return "DefaultPreemption" }

// SetFramework gives the plugin the Filter plugins to re-run (upstream: the
// framework Handle).
func (pl *DefaultPreemption) SetFramework(fw *framework.Framework) { pl.fw = fw }

const (
	msgNotHelpful = "Preemption is not helpful for scheduling"
	msgNoVictims  = "No preemption victims found for incoming pod"
)

func (pl *DefaultPreemption) PostFilter(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, allNodes []*framework.NodeInfo, statuses framework.NodeToStatus) *framework.Status {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == corev1.PreemptNever {
		return framework.NewStatus(framework.Unschedulable, "preemption: not eligible due to preemptionPolicy=Never.")
	}
	result := framework.NodeToStatus{}
	candidates := 0
	for _, n := range allNodes {
		// Nodes rejected as UnschedulableAndUnresolvable (a taint, a
		// selector) cannot be helped by removing pods.
		if statuses[n.Name()].Code() != framework.Unschedulable {
			result[n.Name()] = framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNotHelpful)
			continue
		}
		// Remove every pod of lower priority, then ask the filters again.
		trial := n.Clone()
		victims := 0
		for _, p := range n.Pods {
			if framework.PodPriority(p) < framework.PodPriority(pod) {
				trial.RemovePod(p)
				victims++
			}
		}
		if victims == 0 {
			result[n.Name()] = framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNoVictims)
			continue
		}
		if pl.fw != nil {
			if s := pl.fw.RunFilterPlugins(ctx, state, pod, trial); !s.IsSuccess() {
				result[n.Name()] = s
				continue
			}
		}
		candidates++
	}
	if candidates == 0 {
		fe := &framework.FitError{Pod: pod, NumAllNodes: len(allNodes), Diagnosis: framework.Diagnosis{NodeToStatus: result}}
		return framework.NewStatus(framework.Unschedulable, "preemption: "+fe.Error())
	}
	return framework.NewStatus(framework.Unschedulable,
		"preemption: evicting lower-priority pods would make room on some nodes, but this scheduler does not preempt (chapter 3)")
}
