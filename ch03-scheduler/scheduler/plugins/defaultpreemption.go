package plugins

import (
	"context"
	"math/rand/v2"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// DefaultPreemption is the PostFilter that runs when no node fits the pod:
// it evicts pods of lower priority from one node to make room there.
//
//  1. Is the pod eligible? Not with preemptionPolicy Never, nor while the
//     victims of its previous preemption are still terminating.
//  2. Candidates: each node rejected as Unschedulable (not
//     UnschedulableAndUnresolvable: a taint or a selector does not go away
//     with pods) on which the pod fits once the lower-priority pods are
//     gone; the victims are the fewest such pods it needs gone
//     (SelectVictimsOnNode, preemption_candidates.go).
//  3. The best candidate (pickOneNodeForPreemption).
//  4. Preempt (preemption_execute.go), in a goroutine, as upstream does
//     since 1.33 (SchedulerAsyncPreemption): the scheduling cycle does not
//     wait for the API calls. Each victim gets the condition
//     DisruptionTarget and is deleted, gracefully; lower-priority pods
//     nominated to that node lose their nomination. Until the last victim's
//     deletion is asked for, PreEnqueue keeps the pod out of the active
//     queue.
//  5. The pod is nominated to the node (status.nominatedNodeName, set by
//     the scheduler) and waits in the queue; the victims' deletion brings it
//     back, and until then the node's room is kept for it.
//
// Upstream: plugins/defaultpreemption/default_preemption.go and
// framework/preemption/preemption.go.
type DefaultPreemption struct {
	fw *framework.Framework

	// preempting: the pods whose victims are being evicted
	// (prepareCandidateAsync), by UID.
	mu         sync.Mutex
	preempting map[string]bool
	running    sync.WaitGroup // the eviction goroutines (tests wait for them)

	// Activate moves a pod back to the active queue (the scheduling
	// queue's); called when an eviction failed, so that the pod does not
	// wait for an event that will not come. nil: nothing to move.
	Activate func(pod *corev1.Pod)

	// PdbLister lists the PodDisruptionBudgets; victims whose budget would
	// be violated are spared first (the scheduler's policy/v1 informer).
	// nil: no budgets are considered.
	PdbLister func() []*policyv1.PodDisruptionBudget

	// PreemptPod evicts one victim through the apiserver; tests replace it.
	PreemptPod func(ctx context.Context, c *Candidate, preemptor, victim *corev1.Pod) error
}

func (*DefaultPreemption) Name() string { return "DefaultPreemption" }

// SetFramework gives the plugin the framework: the Filter plugins to
// re-run, the client, the nominator (upstream: the framework Handle).
func (pl *DefaultPreemption) SetFramework(fw *framework.Framework) { pl.fw = fw }

// Upstream's DefaultPreemptionArgs defaults: the dry run stops after
// max(10% of the potential nodes, 100) candidates.
const (
	MinCandidateNodesPercentage = 10
	MinCandidateNodesAbsolute   = 100
)

// The reasons users read after "preemption: ".
const (
	msgNotHelpful          = "Preemption is not helpful for scheduling"
	msgNoVictims           = "No preemption victims found for incoming pod"
	msgNeverPolicy         = "not eligible due to preemptionPolicy=Never."
	msgTerminatingOnNode   = "not eligible due to a terminating pod on the nominated node."
	msgNoCandidateSelected = "no candidate node for preemption"
)

// PreEnqueue keeps a pod out of the active queue while its victims are
// being evicted: it would only find the node still full.
func (pl *DefaultPreemption) PreEnqueue(_ context.Context, pod *corev1.Pod) *framework.Status {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.preempting[pod.UID] {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for the preemption for this pod to be finished")
	}
	return nil
}

func (pl *DefaultPreemption) setPreempting(uid string, on bool) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.preempting == nil {
		pl.preempting = map[string]bool{}
	}
	if on {
		pl.preempting[uid] = true
	} else {
		delete(pl.preempting, uid)
	}
}

// PostFilter prefixes the evaluation's message with "preemption: ".
func (pl *DefaultPreemption) PostFilter(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, allNodes []*framework.NodeInfo, statuses framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	result, st := pl.preempt(ctx, state, pod, allNodes, statuses)
	if msg := st.Message(); msg != "" {
		return result, framework.NewStatus(st.Code(), "preemption: "+msg)
	}
	return result, st
}

// preempt is upstream's Evaluator.Preempt. Its answers:
//   - nil, Unschedulable: not eligible (the nomination stays as it is);
//   - nominate "", Unschedulable: preemption cannot help (the nomination
//     is cleared);
//   - nominate the node, Success: victims are being deleted;
//   - nil, Error: the evaluation failed; the pod is retried.
func (pl *DefaultPreemption) preempt(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, allNodes []*framework.NodeInfo, statuses framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	// 1) Is the pod eligible to preempt?
	if ok, msg := pl.PodEligibleToPreemptOthers(pod, allNodes, statuses[pod.Status.NominatedNodeName]); !ok {
		return nil, framework.NewStatus(framework.Unschedulable, msg)
	}

	// 2) The candidates.
	candidates, nodeStatuses, err := pl.findCandidates(ctx, state, allNodes, pod, statuses)
	if err != nil && len(candidates) == 0 {
		return nil, framework.AsStatus(err)
	}
	if len(candidates) == 0 {
		// Every node not dry-run: "Preemption is not helpful".
		for _, n := range allNodes {
			if _, ok := nodeStatuses[n.Name()]; !ok {
				nodeStatuses[n.Name()] = framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNotHelpful)
			}
		}
		fitErr := &framework.FitError{Pod: pod, NumAllNodes: len(allNodes), Diagnosis: framework.Diagnosis{NodeToStatus: nodeStatuses}}
		return framework.NewPostFilterResultWithNominatedNode(""), framework.NewStatus(framework.Unschedulable, fitErr.Error())
	}

	// 3) The best one.
	best := SelectCandidate(candidates)
	if best == nil || best.Name == "" {
		return nil, framework.NewStatus(framework.Unschedulable, msgNoCandidateSelected)
	}
	pl.fw.Logger().Info("the target node for the preemption is determined", "node", best.Name, "pod", pod.Namespace+"/"+pod.Name)

	// 4) Evict the victims, without waiting.
	pl.prepareCandidateAsync(best, pod)
	return framework.NewPostFilterResultWithNominatedNode(best.Name), nil
}

// PodEligibleToPreemptOthers: a pod with preemptionPolicy Never does not
// preempt; nor does a pod whose nominated node still has a lower-priority
// pod terminating because of a preemption (its own victims, most likely:
// wait for them rather than evict more), unless the filters now reject
// that node for good.
func (pl *DefaultPreemption) PodEligibleToPreemptOthers(pod *corev1.Pod, allNodes []*framework.NodeInfo, nominatedNodeStatus *framework.Status) (bool, string) {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == corev1.PreemptNever {
		return false, msgNeverPolicy
	}
	nnn := pod.Status.NominatedNodeName
	if nnn == "" {
		return true, ""
	}
	if nominatedNodeStatus.Code() == framework.UnschedulableAndUnresolvable {
		return true, ""
	}
	for _, n := range allNodes {
		if n.Name() != nnn {
			continue
		}
		for _, p := range n.Pods {
			if framework.PodPriority(p) < framework.PodPriority(pod) && podTerminatingByPreemption(p) {
				return false, msgTerminatingOnNode
			}
		}
	}
	return true, ""
}

// podTerminatingByPreemption: the pod is being deleted, and the scheduler
// preempted it (condition DisruptionTarget, reason PreemptionByScheduler).
func podTerminatingByPreemption(p *corev1.Pod) bool {
	if p.DeletionTimestamp == nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			return c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// calculateNumCandidates: how many candidates the dry run looks for,
// MinCandidateNodesPercentage of the nodes, at least
// MinCandidateNodesAbsolute, at most all of them.
func calculateNumCandidates(numNodes int32) int32 {
	n := numNodes * MinCandidateNodesPercentage / 100
	n = max(n, MinCandidateNodesAbsolute)
	return min(n, numNodes)
}

// getOffsetRand picks where the dry run starts among the potential nodes
// (random, so that preemption does not always hit the same nodes); a
// variable so tests can fix it.
var getOffsetRand = rand.Int32N

// GetOffsetAndNumCandidates returns the dry run's random start and the
// number of candidates it looks for.
func GetOffsetAndNumCandidates(numNodes int32) (int32, int32) {
	return getOffsetRand(numNodes), calculateNumCandidates(numNodes)
}
