package controller

import (
	"math"
	"strconv"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// PodDeletionCost is the annotation a user sets on a pod to say how much it
// costs to delete it: of two otherwise equal pods the cheaper one goes
// first when a ReplicaSet scales down. Upstream: core.PodDeletionCost.
const PodDeletionCost = "controller.kubernetes.io/pod-deletion-cost"

// IsPodActive: the pod counts towards its owner's replicas — it has not
// finished and is not being deleted.
func IsPodActive(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil
}

// FilterActivePods returns the active pods of pods.
func FilterActivePods(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if IsPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// FilterTerminatingPods returns the pods being deleted that have not
// finished: a ReplicaSet reports them as status.terminatingReplicas.
func FilterTerminatingPods(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			out = append(out, p)
		}
	}
	return out
}

// GetPodReadyCondition returns the pod's Ready condition, or nil.
func GetPodReadyCondition(s corev1.PodStatus) *corev1.PodCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == corev1.PodReady {
			return &s.Conditions[i]
		}
	}
	return nil
}

// IsPodReady: the pod's Ready condition is True (for hollow nodes: the
// simulated kubelet reported it running).
func IsPodReady(p *corev1.Pod) bool {
	c := GetPodReadyCondition(p.Status)
	return c != nil && c.Status == corev1.ConditionTrue
}

// IsPodAvailable: ready for at least minReadySeconds, measured from the
// Ready condition's lastTransitionTime. Upstream: podutil.IsPodAvailable.
func IsPodAvailable(p *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	if !IsPodReady(p) {
		return false
	}
	c := GetPodReadyCondition(p.Status)
	d := time.Duration(minReadySeconds) * time.Second
	return minReadySeconds == 0 || (!c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(d).Before(now))
}

// podPhaseToOrdinal orders the phases of active pods: the less far along a
// pod is, the cheaper it is to delete.
var podPhaseToOrdinal = map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}

// ActivePods sorts pods so that the ones to delete first come first.
// Upstream: controller.ActivePods (used by the Job controller).
type ActivePods []*corev1.Pod

func (s ActivePods) Len() int      { return len(s) }
func (s ActivePods) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s ActivePods) Less(i, j int) bool {
	r := ActivePodsWithRanks{Pods: s, Rank: make([]int, len(s))}
	return r.less(i, j, false)
}

// ActivePodsWithRanks sorts pods for deletion as a ReplicaSet scaling down
// wants them; Rank[i] is the number of related pods on Pods[i]'s node (pods
// doubled up on a node go first). Now, when set, groups ready and creation
// times by powers of two of their age (LogarithmicScaleDown), so that pods
// of similar age are picked at random (by UID) instead of strictly newest
// first. Upstream: controller.ActivePodsWithRanks.
type ActivePodsWithRanks struct {
	Pods []*corev1.Pod
	Rank []int
	Now  metav1.Time
}

func (s ActivePodsWithRanks) Len() int { return len(s.Pods) }
func (s ActivePodsWithRanks) Swap(i, j int) {
	s.Pods[i], s.Pods[j] = s.Pods[j], s.Pods[i]
	s.Rank[i], s.Rank[j] = s.Rank[j], s.Rank[i]
}

// Less: Pods[i] should be deleted before Pods[j]. The rules, in order:
//
//  1. unassigned < assigned
//  2. Pending < Unknown < Running
//  3. not ready < ready
//  4. lower pod-deletion-cost < higher
//  5. more related pods on the same node < fewer (doubled up first)
//  6. ready for a shorter time < longer
//  7. more container restarts < fewer
//  8. newer < older (no creation time first)
func (s ActivePodsWithRanks) Less(i, j int) bool { return s.less(i, j, true) }

func (s ActivePodsWithRanks) less(i, j int, withCostAndRank bool) bool {
	pi, pj := s.Pods[i], s.Pods[j]
	// 1.
	if pi.Spec.NodeName != pj.Spec.NodeName && (pi.Spec.NodeName == "" || pj.Spec.NodeName == "") {
		return pi.Spec.NodeName == ""
	}
	// 2.
	if podPhaseToOrdinal[pi.Status.Phase] != podPhaseToOrdinal[pj.Status.Phase] {
		return podPhaseToOrdinal[pi.Status.Phase] < podPhaseToOrdinal[pj.Status.Phase]
	}
	// 3.
	if IsPodReady(pi) != IsPodReady(pj) {
		return !IsPodReady(pi)
	}
	if withCostAndRank {
		// 4.
		if ci, cj := deletionCost(pi), deletionCost(pj); ci != cj {
			return ci < cj
		}
		// 5.
		if s.Rank[i] != s.Rank[j] {
			return s.Rank[i] > s.Rank[j]
		}
	}
	// 6.
	if IsPodReady(pi) && IsPodReady(pj) {
		ti, tj := podReadyTime(pi), podReadyTime(pj)
		if !ti.Equal(tj.Time) {
			return s.newerFirst(ti, tj, pi, pj)
		}
	}
	// 7.
	if ri, rj := maxContainerRestarts(pi), maxContainerRestarts(pj); ri != rj {
		return ri > rj
	}
	// 8.
	if !pi.CreationTimestamp.Equal(pj.CreationTimestamp.Time) {
		return s.newerFirst(pi.CreationTimestamp, pj.CreationTimestamp, pi, pj)
	}
	return false
}

// newerFirst compares two times, the newer (or zero) one first; with Now
// set, times in the same power-of-two age bucket tie and the UID decides.
func (s ActivePodsWithRanks) newerFirst(ti, tj metav1.Time, pi, pj *corev1.Pod) bool {
	if s.Now.IsZero() || ti.IsZero() || tj.IsZero() {
		return afterOrZero(ti, tj)
	}
	if d := logarithmicRankDiff(ti, tj, s.Now); d != 0 {
		return d < 0
	}
	return pi.UID < pj.UID
}

// afterOrZero: t1 is zero, or later than t2.
func afterOrZero(t1, t2 metav1.Time) bool {
	if t1.IsZero() || t2.IsZero() {
		return t1.IsZero()
	}
	return t1.After(t2.Time)
}

// logarithmicRankDiff compares the log2 of the ages of t1 and t2.
func logarithmicRankDiff(t1, t2, now metav1.Time) int64 {
	rank := func(t metav1.Time) int64 {
		if d := now.Sub(t.Time); d > 0 {
			return int64(math.Log2(float64(d)))
		}
		return -1
	}
	return rank(t1) - rank(t2)
}

func podReadyTime(p *corev1.Pod) metav1.Time {
	if c := GetPodReadyCondition(p.Status); c != nil && c.Status == corev1.ConditionTrue {
		return c.LastTransitionTime
	}
	return metav1.Time{}
}

func maxContainerRestarts(p *corev1.Pod) int32 {
	var m int32
	for _, c := range p.Status.ContainerStatuses {
		m = max(m, c.RestartCount)
	}
	return m
}

// deletionCost reads the pod-deletion-cost annotation (0 when absent or
// not an int32).
func deletionCost(p *corev1.Pod) int32 {
	v, err := strconv.ParseInt(p.Annotations[PodDeletionCost], 10, 32)
	if err != nil {
		return 0
	}
	return int32(v)
}
