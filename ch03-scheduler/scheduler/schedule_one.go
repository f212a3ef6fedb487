package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/scheduler/framework"
)

// ErrNoNodesAvailable: the cluster has no nodes at all.
var ErrNoNodesAvailable = errors.New("no nodes available to schedule pods")

// scheduleOne is one scheduling cycle. Upstream: schedule_one.go.
func (s *Scheduler) scheduleOne(ctx context.Context) {
	pInfo, cycle := s.queue.Pop()
	if pInfo == nil {
		return
	}
	pod := pInfo.Pod
	if pod.DeletionTimestamp != nil || s.cache.IsAssumed(pod) {
		s.queue.Done(pod)
		return
	}
	state := framework.NewCycleState()
	nodes := s.cache.Snapshot()
	framework.SetAllNodes(state, nodes) // what scores count over: every node, not only the feasible ones
	host, err := s.schedulePod(ctx, state, pod, nodes)
	if err != nil {
		// No node fits: PostFilter (preemption) may make room somewhere
		// and nominate that node; the pod waits in the queue meanwhile.
		nominatingInfo := clearNominatedNode
		var fitErr *framework.FitError
		if errors.As(err, &fitErr) {
			nominatingInfo = s.runPostFilter(ctx, state, pod, nodes, fitErr)
		}
		s.handleFailure(ctx, pInfo, cycle, err, nominatingInfo)
		return
	}

	// Assume: from now on the cache counts the pod on host, and the pod
	// is no longer nominated anywhere.
	assumed := *pod
	assumed.Spec.NodeName = host
	s.cache.AssumePod(&assumed)
	s.queue.DeleteNominatedPodIfExists(&assumed)
	if st := s.fw.RunReservePluginsReserve(ctx, state, &assumed, host); !st.IsSuccess() {
		s.fw.RunReservePluginsUnreserve(ctx, state, &assumed, host)
		s.cache.ForgetPod(&assumed)
		s.handleFailure(ctx, pInfo, cycle, st.AsError(), clearNominatedNode)
		return
	}

	// The binding cycle, in the background.
	go func() {
		if st := s.fw.RunBindPlugins(ctx, state, &assumed, host); !st.IsSuccess() {
			s.fw.RunReservePluginsUnreserve(ctx, state, &assumed, host)
			s.cache.ForgetPod(&assumed)
			s.queue.MoveAllToActiveOrBackoffQueue("AssignedPodDelete")
			s.handleFailure(ctx, pInfo, cycle, fmt.Errorf("binding rejected: %w", st.AsError()), clearNominatedNode)
			return
		}
		s.queue.Done(pod)
		s.log.Info("Successfully bound pod to node", "pod", key(pod), "node", host, "attempts", pInfo.Attempts)
		s.recorder.Eventf(&assumed, nil, "Normal", "Scheduled", "Binding", "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, host)
	}()
}

// clearNominatedNode: a failure that is not "no node fits" drops the pod's
// nomination, as upstream.
var clearNominatedNode = &framework.NominatingInfo{NominatingMode: framework.ModeOverride}

// runPostFilter runs the PostFilter plugins for a pod that fits nowhere;
// their message goes into the FitError ("preemption: ..."), and the node
// they nominate is returned.
func (s *Scheduler) runPostFilter(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, nodes []*framework.NodeInfo, fitErr *framework.FitError) *framework.NominatingInfo {
	result, st := s.fw.RunPostFilterPlugins(ctx, state, pod, nodes, fitErr.Diagnosis.NodeToStatus)
	fitErr.Diagnosis.PostFilterMsg = st.Message()
	if st.Code() == framework.Error {
		s.log.Error("Status after running PostFilter plugins for pod", "pod", key(pod), "status", st.Message())
	}
	if result == nil {
		return nil
	}
	return result.NominatingInfo
}

// schedulePod finds the node for pod: the feasible nodes, then the best of
// them by score. No feasible node: a *framework.FitError.
func (s *Scheduler) schedulePod(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, nodes []*framework.NodeInfo) (string, error) {
	if len(nodes) == 0 {
		return "", ErrNoNodesAvailable
	}
	feasible, diagnosis, err := s.findNodesThatFitPod(ctx, state, pod, nodes)
	if err != nil {
		return "", err
	}
	if len(feasible) == 0 {
		return "", &framework.FitError{Pod: pod, NumAllNodes: len(nodes), Diagnosis: diagnosis}
	}
	if len(feasible) == 1 {
		return feasible[0].Name(), nil // nothing to compare
	}

	scores, st := s.fw.RunScorePlugins(ctx, state, pod, feasible)
	if !st.IsSuccess() {
		return "", st.AsError()
	}
	return selectHost(scores), nil
}

// selectHost takes the highest total score; ties are broken at random so
// that equal nodes share the load (upstream: reservoir sampling).
func selectHost(scores []framework.NodeScore) string {
	best, ties := scores[0], 1
	for _, sc := range scores[1:] {
		switch {
		case sc.Score > best.Score:
			best, ties = sc, 1
		case sc.Score == best.Score:
			ties++
			if rand.IntN(ties) == 0 {
				best = sc
			}
		}
	}
	return best.Name
}

// handleFailure tells the user (event, pod condition) and puts the pod
// back in the queue, unless it was deleted or bound meanwhile. The pod's
// nomination is set as nominatingInfo says, in the nominator at once (the
// next cycle must see it) and in its status.
func (s *Scheduler) handleFailure(ctx context.Context, pInfo *framework.QueuedPodInfo, cycle int64, err error, nominatingInfo *framework.NominatingInfo) {
	pod := pInfo.Pod
	var fitErr *framework.FitError
	noNodeFits := errors.As(err, &fitErr) || errors.Is(err, ErrNoNodesAvailable)
	reason := "SchedulerError"
	if noNodeFits {
		reason = corev1.PodReasonUnschedulable
		s.log.Info("Unable to schedule pod; no fit; waiting", "pod", key(pod), "err", err)
	} else {
		s.log.Error("Error scheduling pod; retrying", "pod", key(pod), "err", err)
	}

	cur, ok := s.pods.GetStore().Get(pod.Namespace, pod.Name)
	if !ok || cur.UID != pod.UID || assigned(cur) {
		s.queue.Done(pod)
		return
	}
	pInfo.Pod = cur
	pInfo.UnschedulablePlugins = nil
	if fitErr != nil {
		pInfo.UnschedulablePlugins = fitErr.Diagnosis.UnschedulablePlugins
	}
	s.queue.AddUnschedulable(pInfo, cycle, noNodeFits)
	s.queue.AddNominatedPod(cur, nominatingInfo)

	msg := truncate(err.Error(), 1024)
	s.recorder.Eventf(cur, nil, "Warning", "FailedScheduling", "Scheduling", "%s", msg)
	cond := &corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: err.Error()}
	if err := s.updatePod(ctx, cur, cond, nominatingInfo); err != nil && ctx.Err() == nil {
		s.log.Warn("cannot update pod condition", "pod", key(pod), "err", err)
	}
}

// updatePod patches the pod's status: condition (merged by type: a
// strategic merge patch) unless it already says the same, and
// status.nominatedNodeName if nominatingInfo overrides it with another
// value. Nothing to change: no request. Upstream: schedule_one.go updatePod.
func (s *Scheduler) updatePod(ctx context.Context, pod *corev1.Pod, cond *corev1.PodCondition, nominatingInfo *framework.NominatingInfo) error {
	status := map[string]any{}
	if cond != nil && podConditionChanged(pod, cond) {
		c := *cond
		c.LastTransitionTime = metav1.Now()
		status["conditions"] = []corev1.PodCondition{c}
	}
	if nominatingInfo.Mode() == framework.ModeOverride && pod.Status.NominatedNodeName != nominatingInfo.NominatedNodeName {
		if nominatingInfo.NominatedNodeName == "" {
			status["nominatedNodeName"] = nil // a merge patch removes the field
		} else {
			status["nominatedNodeName"] = nominatingInfo.NominatedNodeName
		}
	}
	if len(status) == 0 {
		return nil
	}
	patch, _ := json.Marshal(map[string]any{"status": status})
	_, err := rest.Patch[corev1.Pod](ctx, s.client, pod.Namespace, pod.Name, rest.StrategicMergePatchType, patch, "status")
	if rest.IsNotFound(err) {
		return nil
	}
	return err
}

// podConditionChanged: the pod has no condition of cond's type saying the
// same (status, reason, message).
func podConditionChanged(pod *corev1.Pod, cond *corev1.PodCondition) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == cond.Type {
			return c.Status != cond.Status || c.Reason != cond.Reason || c.Message != cond.Message
		}
	}
	return true
}
