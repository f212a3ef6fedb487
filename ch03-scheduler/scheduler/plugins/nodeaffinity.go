package plugins

import (
	"context"
	"slices"
	"strconv"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// NodeAffinity: Filter keeps the nodes whose labels match the pod's
// spec.nodeSelector and its required node affinity; Score adds up the
// weights of the preferred terms a node matches. Upstream: plugins/nodeaffinity.
type NodeAffinity struct{}

const ErrReasonPod = "node(s) didn't match Pod's node affinity/selector"

func (NodeAffinity) Name() string { return "NodeAffinity" }

func (NodeAffinity) Filter(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	if !RequiredNodeAffinityMatches(pod, n.Node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonPod)
	}
	return nil
}

// RequiredNodeAffinityMatches: every nodeSelector label equal, and one of
// the required terms (if any) matches.
func RequiredNodeAffinityMatches(pod *corev1.Pod, node *corev1.Node) bool {
	for k, v := range pod.Spec.NodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	return nodeSelectorMatches(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, node)
}

// nodeSelectorMatches: one of the selector's terms matches the node (terms
// are ORed). A pod's required node affinity and a PersistentVolume's
// nodeAffinity are such selectors.
func nodeSelectorMatches(sel *corev1.NodeSelector, node *corev1.Node) bool {
	for i := range sel.NodeSelectorTerms {
		if TermMatches(&sel.NodeSelectorTerms[i], node) {
			return true
		}
	}
	return false
}

// TermMatches: all of a term's expressions (labels) and fields
// (metadata.name) hold. A term with neither matches nothing.
func TermMatches(term *corev1.NodeSelectorTerm, node *corev1.Node) bool {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false
	}
	for _, r := range term.MatchExpressions {
		v, ok := node.Labels[r.Key]
		if !requirementMatches(r, v, ok) {
			return false
		}
	}
	for _, r := range term.MatchFields {
		if r.Key != "metadata.name" || !requirementMatches(r, node.Name, true) {
			return false
		}
	}
	return true
}

func requirementMatches(r corev1.NodeSelectorRequirement, v string, ok bool) bool {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return ok && slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return ok
	case corev1.NodeSelectorOpDoesNotExist:
		return !ok
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == corev1.NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

// Score: the sum of the weights of the preferred terms the node matches.
func (NodeAffinity) Score(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return 0, nil
	}
	var score int64
	for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		if t.Weight != 0 && TermMatches(&t.Preference, n.Node) {
			score += int64(t.Weight)
		}
	}
	return score, nil
}

// NormalizeScore: the best-matching node gets 100.
func (NodeAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *corev1.Pod, scores []framework.NodeScore) *framework.Status {
	framework.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
	return nil
}
