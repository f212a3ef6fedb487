package scheduler

import (
	"context"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// How many feasible nodes a cycle looks for before it stops filtering
// (upstream's constants): in a big cluster, scoring every node that fits
// costs much and gains little.
const (
	// minFeasibleNodesToFind: at least this many nodes are found (if they
	// exist), so pods still spread.
	minFeasibleNodesToFind = 100
	// minFeasibleNodesPercentageToFind: the adaptive percentage never goes
	// below this.
	minFeasibleNodesPercentageToFind = 5
)

// numFeasibleNodesToFind returns how many feasible nodes are enough: all
// of them under 100 nodes; otherwise percentage of the nodes (0: adaptive,
// 50% minus 1% per 125 nodes, at least 5%), at least 100.
// Upstream: schedule_one.go numFeasibleNodesToFind.
func numFeasibleNodesToFind(percentage, numAllNodes int32) int32 {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	if percentage == 0 {
		percentage = max(int32(50)-numAllNodes/125, minFeasibleNodesPercentageToFind)
	}
	return max(numAllNodes*percentage/100, minFeasibleNodesToFind)
}

// findNodesThatFitPod runs PreFilter, then Filter on the nodes (the
// nominated node first, if the pod has one). The diagnosis says why the
// nodes looked at were rejected. Upstream: findNodesThatFitPod.
func (s *Scheduler) findNodesThatFitPod(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, framework.Diagnosis, error) {
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NodeToStatus{}, UnschedulablePlugins: map[string]bool{}}
	if st := s.fw.RunPreFilterPlugins(ctx, state, pod, nodes); !st.IsSuccess() {
		if !st.IsRejected() {
			return nil, diagnosis, st.AsError()
		}
		// Every node gets the same status, so that preemption sees them.
		for _, n := range nodes {
			diagnosis.NodeToStatus[n.Name()] = st
		}
		diagnosis.PreFilterMsg = st.Message()
		diagnosis.UnschedulablePlugins[st.Plugin()] = true
		return nil, diagnosis, nil
	}

	// A nominated node (set by an earlier preemption) is likely the only
	// one with room: try it first, alone.
	if nnn := pod.Status.NominatedNodeName; nnn != "" {
		for _, n := range nodes {
			if n.Name() != nnn {
				continue
			}
			feasible, err := s.findNodesThatPassFilters(ctx, state, pod, &diagnosis, []*framework.NodeInfo{n}, 0)
			if err != nil {
				s.log.Error("Evaluation failed on nominated node", "pod", key(pod), "node", nnn, "err", err)
			}
			if len(feasible) != 0 {
				return feasible, diagnosis, nil
			}
			break
		}
	}

	feasible, err := s.findNodesThatPassFilters(ctx, state, pod, &diagnosis, nodes, s.nextStartNodeIndex)
	// The next cycle starts after the last node looked at, error or not,
	// so that every node gets its chance.
	processed := len(feasible) + len(diagnosis.NodeToStatus)
	s.nextStartNodeIndex = (s.nextStartNodeIndex + processed) % len(nodes)
	if err != nil {
		return nil, diagnosis, err
	}
	return feasible, diagnosis, nil
}

// findNodesThatPassFilters runs the Filter plugins (with the nominated
// pods, see RunFilterPluginsWithNominatedPods) on nodes, starting at
// nodes[start] and going round, until numFeasibleNodesToFind nodes fit or
// all were looked at. Rejected nodes get their status in diagnosis; nodes
// not looked at get none (upstream does the same: it stops early only
// when enough nodes fit, so a FitError always has every node's status).
// Upstream runs the filters on 16 goroutines; here one is enough.
func (s *Scheduler) findNodesThatPassFilters(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, diagnosis *framework.Diagnosis, nodes []*framework.NodeInfo, start int) ([]*framework.NodeInfo, error) {
	numNodesToFind := int(numFeasibleNodesToFind(s.percentageOfNodesToScore, int32(len(nodes))))
	feasible := make([]*framework.NodeInfo, 0, numNodesToFind)
	for i := 0; i < len(nodes) && len(feasible) < numNodesToFind; i++ {
		n := nodes[(start+i)%len(nodes)]
		st := s.fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, n)
		switch {
		case st.IsSuccess():
			feasible = append(feasible, n)
		case st.Code() == framework.Error:
			return feasible, st.AsError()
		default:
			diagnosis.NodeToStatus[n.Name()] = st
			diagnosis.UnschedulablePlugins[st.Plugin()] = true
		}
	}
	return feasible, nil
}
