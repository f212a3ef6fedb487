package plugins

import (
	"context"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// TaintToleration: Filter rejects nodes with a NoSchedule or NoExecute
// taint the pod does not tolerate; Score prefers nodes with fewer
// untolerated PreferNoSchedule taints. Upstream: plugins/tainttoleration.
type TaintToleration struct{}

// ErrReasonNotMatch is upstream's Filter reason.
const ErrReasonNotMatch = "node(s) had untolerated taint(s)"

func (TaintToleration) Name() string { return "TaintToleration" }

func (TaintToleration) Filter(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	for i := range n.Node.Spec.Taints {
		t := &n.Node.Spec.Taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !tolerated(t, pod.Spec.Tolerations) {
			// Upstream no longer names the taint (older versions printed
			// "{dedicated: gpu}"): a pod's events must not reveal the keys
			// and values of nodes' taints.
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNotMatch)
		}
	}
	return nil
}

func tolerated(t *corev1.Taint, tolerations []corev1.Toleration) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(t) {
			return true
		}
	}
	return false
}

// Score counts the PreferNoSchedule taints not tolerated by the pod's
// tolerations with effect PreferNoSchedule or empty.
func (TaintToleration) Score(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	var prefer []corev1.Toleration
	for _, t := range pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			prefer = append(prefer, t)
		}
	}
	var count int64
	for i := range n.Node.Spec.Taints {
		t := &n.Node.Spec.Taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule && !tolerated(t, prefer) {
			count++
		}
	}
	return count, nil
}

// NormalizeScore: fewer untolerated taints, higher score.
func (TaintToleration) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *corev1.Pod, scores []framework.NodeScore) *framework.Status {
	framework.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
	return nil
}
