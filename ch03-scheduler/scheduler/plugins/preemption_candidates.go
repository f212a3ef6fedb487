package plugins

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/scheduler/framework"
)

// Candidate is a node where the preemptor would fit once Victims are gone
// (upstream: preemption.Candidate with extenderv1.Victims).
type Candidate struct {
	Name string
	// Victims, most important first.
	Victims []*corev1.Pod
	// NumPDBViolations: victims whose PodDisruptionBudget forbids it.
	NumPDBViolations int64
}

// findCandidates dry-runs preemption on the nodes rejected as
// Unschedulable, starting at a random one, until enough candidates are
// found; the other nodes get their reason in the returned statuses.
func (pl *DefaultPreemption) findCandidates(ctx context.Context, state *framework.CycleState, allNodes []*framework.NodeInfo, pod *corev1.Pod, statuses framework.NodeToStatus) ([]*Candidate, framework.NodeToStatus, error) {
	if len(allNodes) == 0 {
		return nil, nil, fmt.Errorf("no nodes available")
	}
	var potentialNodes []*framework.NodeInfo
	for _, n := range allNodes {
		if statuses[n.Name()].Code() == framework.Unschedulable {
			potentialNodes = append(potentialNodes, n)
		}
	}
	if len(potentialNodes) == 0 {
		pl.fw.Logger().Debug("Preemption will not help schedule pod on any node", "pod", pod.Namespace+"/"+pod.Name)
		return nil, framework.NodeToStatus{}, nil
	}
	var pdbs []*policyv1.PodDisruptionBudget
	if pl.PdbLister != nil {
		pdbs = pl.PdbLister()
	}
	offset, numCandidates := GetOffsetAndNumCandidates(int32(len(potentialNodes)))
	return pl.DryRunPreemption(ctx, state, pod, potentialNodes, pdbs, offset, numCandidates)
}

// DryRunPreemption runs SelectVictimsOnNode on copies of potentialNodes,
// from offset round, and stops once numCandidates candidates are found
// (at least one of them violating no budget). Candidates violating no
// budget come first. Upstream runs it on 16 goroutines.
func (pl *DefaultPreemption) DryRunPreemption(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, potentialNodes []*framework.NodeInfo, pdbs []*policyv1.PodDisruptionBudget, offset, numCandidates int32) ([]*Candidate, framework.NodeToStatus, error) {
	var nonViolating, violating []*Candidate
	nodeStatuses := framework.NodeToStatus{}
	var firstErr error
	for i := range potentialNodes {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		nodeCopy := potentialNodes[(int(offset)+i)%len(potentialNodes)].Clone()
		victims, numPDBViolations, st := pl.SelectVictimsOnNode(ctx, state.Clone(), pod, nodeCopy, pdbs)
		if st.IsSuccess() && len(victims) != 0 {
			c := &Candidate{Name: nodeCopy.Name(), Victims: victims, NumPDBViolations: int64(numPDBViolations)}
			if numPDBViolations == 0 {
				if len(nonViolating) < int(numCandidates) {
					nonViolating = append(nonViolating, c)
				}
			} else if len(violating) < int(numCandidates) {
				violating = append(violating, c)
			}
			if len(nonViolating) > 0 && len(nonViolating)+len(violating) >= int(numCandidates) {
				break
			}
			continue
		}
		if st.IsSuccess() {
			st = framework.AsStatus(fmt.Errorf("expected at least one victim pod on node %q", nodeCopy.Name()))
		}
		if st.Code() == framework.Error && firstErr == nil {
			firstErr = st.AsError()
		}
		nodeStatuses[nodeCopy.Name()] = st
	}
	return append(nonViolating, violating...), nodeStatuses, firstErr
}

// SelectVictimsOnNode finds the fewest pods to remove from node (a copy;
// state too) for pod to fit: remove every pod of lower priority; if pod
// still does not fit, the node is no candidate. Otherwise put the pods
// back one by one, the most important first, keeping each that still
// leaves room ("reprieve"); those whose budget would be violated are tried
// first, so that victims violate as few budgets as possible. Returns the
// victims, most important first, and how many of them violate a budget.
func (pl *DefaultPreemption) SelectVictimsOnNode(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, node *framework.NodeInfo, pdbs []*policyv1.PodDisruptionBudget) ([]*corev1.Pod, int, *framework.Status) {
	removePod := func(p *corev1.Pod) *framework.Status {
		node.RemovePod(p)
		return pl.fw.RunPreFilterExtensionRemovePod(ctx, state, pod, p, node)
	}
	addPod := func(p *corev1.Pod) *framework.Status {
		node.AddPod(p)
		return pl.fw.RunPreFilterExtensionAddPod(ctx, state, pod, p, node)
	}

	var potentialVictims []*corev1.Pod
	for _, p := range node.Pods {
		if framework.PodPriority(p) < framework.PodPriority(pod) {
			potentialVictims = append(potentialVictims, p)
		}
	}
	for _, p := range potentialVictims {
		if st := removePod(p); !st.IsSuccess() {
			return nil, 0, st
		}
	}
	if len(potentialVictims) == 0 {
		return nil, 0, framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNoVictims)
	}
	// Even with all of them gone, pod does not fit (a victim it has
	// affinity to is not considered: upstream decided against it).
	if st := pl.fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, node); !st.IsSuccess() {
		return nil, 0, st
	}

	sort.SliceStable(potentialVictims, func(i, j int) bool { return MoreImportantPod(potentialVictims[i], potentialVictims[j]) })
	violatingVictims, nonViolatingVictims := filterPodsWithPDBViolation(potentialVictims, pdbs)
	var victims []*corev1.Pod
	reprievePod := func(p *corev1.Pod) (bool, *framework.Status) {
		if st := addPod(p); !st.IsSuccess() {
			return false, st
		}
		fits := pl.fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, node).IsSuccess()
		if !fits {
			if st := removePod(p); !st.IsSuccess() {
				return false, st
			}
			victims = append(victims, p)
		}
		return fits, nil
	}
	numViolatingVictim := 0
	for _, p := range violatingVictims {
		fits, st := reprievePod(p)
		if st != nil {
			return nil, 0, st
		}
		if !fits {
			numViolatingVictim++
		}
	}
	for _, p := range nonViolatingVictims {
		if _, st := reprievePod(p); st != nil {
			return nil, 0, st
		}
	}
	// Victims in order of importance again, the two groups merged.
	if len(violatingVictims) != 0 && len(nonViolatingVictims) != 0 {
		sort.SliceStable(victims, func(i, j int) bool { return MoreImportantPod(victims[i], victims[j]) })
	}
	return victims, numViolatingVictim, nil
}

// MoreImportantPod: higher priority, or, equal, started earlier (upstream:
// scheduler/util.MoreImportantPod).
func MoreImportantPod(a, b *corev1.Pod) bool {
	pa, pb := framework.PodPriority(a), framework.PodPriority(b)
	if pa != pb {
		return pa > pb
	}
	return podStartTime(a).Before(podStartTime(b))
}

// podStartTime is status.startTime; now for a pod not started yet.
func podStartTime(p *corev1.Pod) time.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime.Time
	}
	return time.Now()
}

// filterPodsWithPDBViolation splits pods (keeping their order) into those
// whose eviction would exceed a budget's status.disruptionsAllowed,
// counting the pods before them, and the others.
func filterPodsWithPDBViolation(pods []*corev1.Pod, pdbs []*policyv1.PodDisruptionBudget) (violating, nonViolating []*corev1.Pod) {
	allowed := make([]int32, len(pdbs))
	selectors := make([]*selection.LabelSelector, len(pdbs))
	for i, pdb := range pdbs {
		allowed[i] = pdb.Status.DisruptionsAllowed
		if sel, err := selection.FromLabelSelector(pdb.Spec.Selector); err == nil && !sel.Empty() {
			selectors[i] = &sel // an invalid, nil or empty selector matches nothing
		}
	}
	for _, p := range pods {
		violated := false
		if len(p.Labels) != 0 { // no labels: no budget selects it
			for i, pdb := range pdbs {
				if pdb.Namespace != p.Namespace || selectors[i] == nil || !selectors[i].Matches(p.Labels) {
					continue
				}
				// Already counted by the apiserver's eviction: not again.
				if _, ok := pdb.Status.DisruptedPods[p.Name]; ok {
					continue
				}
				allowed[i]--
				if allowed[i] < 0 {
					violated = true
				}
			}
		}
		if violated {
			violating = append(violating, p)
		} else {
			nonViolating = append(nonViolating, p)
		}
	}
	return violating, nonViolating
}

// SelectCandidate picks the best candidate (pickOneNodeForPreemption).
func SelectCandidate(candidates []*Candidate) *Candidate {
	switch len(candidates) {
	case 0:
		return nil
	case 1:
		return candidates[0]
	}
	return pickOneNodeForPreemption(candidates)
}

// pickOneNodeForPreemption keeps, criterion after criterion, the
// candidates scoring best, until one is left:
//  1. fewest budget violations;
//  2. the lowest highest-priority victim;
//  3. the smallest sum of victims' priorities;
//  4. the fewest victims;
//  5. the latest start time among the highest-priority victims
//     (evict what started most recently);
//  6. then the first.
func pickOneNodeForPreemption(candidates []*Candidate) *Candidate {
	scoreFuncs := []func(c *Candidate) int64{
		func(c *Candidate) int64 { return -c.NumPDBViolations },
		func(c *Candidate) int64 { return -int64(framework.PodPriority(c.Victims[0])) },
		func(c *Candidate) int64 {
			var sum int64
			for _, p := range c.Victims {
				// Shifted to >= 0: a few pods of negative priority must not
				// win over fewer pods of the same priority.
				sum += int64(framework.PodPriority(p)) + int64(math.MaxInt32+1)
			}
			return -sum
		},
		func(c *Candidate) int64 { return -int64(len(c.Victims)) },
		func(c *Candidate) int64 { return earliestPodStartTime(c.Victims).UnixNano() },
	}
	for _, f := range scoreFuncs {
		var selected []*Candidate
		maxScore := int64(math.MinInt64)
		for _, c := range candidates {
			score := f(c)
			if score > maxScore {
				maxScore, selected = score, selected[:0]
			}
			if score == maxScore {
				selected = append(selected, c)
			}
		}
		if len(selected) == 1 {
			return selected[0]
		}
		candidates = selected
	}
	return candidates[0]
}

// earliestPodStartTime: the earliest start time among the victims of the
// highest priority (upstream: util.GetEarliestPodStartTime).
func earliestPodStartTime(victims []*corev1.Pod) time.Time {
	earliest := podStartTime(victims[0])
	maxPriority := framework.PodPriority(victims[0])
	for _, p := range victims {
		switch prio := framework.PodPriority(p); {
		case prio == maxPriority:
			if t := podStartTime(p); t.Before(earliest) {
				earliest = t
			}
		case prio > maxPriority:
			maxPriority, earliest = prio, podStartTime(p)
		}
	}
	return earliest
}
