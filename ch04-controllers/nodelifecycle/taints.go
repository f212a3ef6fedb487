package nodelifecycle

import (
	"context"
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// nodeConditionToTaintKeyStatusMap: which condition status puts which
// NoSchedule taint. Upstream: the same name.
var nodeConditionToTaintKeyStatusMap = map[corev1.NodeConditionType]map[corev1.ConditionStatus]string{
	corev1.NodeReady: {
		corev1.ConditionFalse:   corev1.TaintNodeNotReady,
		corev1.ConditionUnknown: corev1.TaintNodeUnreachable,
	},
	corev1.NodeMemoryPressure:     {corev1.ConditionTrue: corev1.TaintNodeMemoryPressure},
	corev1.NodeDiskPressure:       {corev1.ConditionTrue: corev1.TaintNodeDiskPressure},
	corev1.NodeNetworkUnavailable: {corev1.ConditionTrue: corev1.TaintNodeNetworkUnavailable},
	corev1.NodePIDPressure:        {corev1.ConditionTrue: corev1.TaintNodePIDPressure},
}

// taintKeysManaged are the NoSchedule taints this controller owns.
var taintKeysManaged = []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, corev1.TaintNodeMemoryPressure,
	corev1.TaintNodeDiskPressure, corev1.TaintNodeNetworkUnavailable, corev1.TaintNodePIDPressure, corev1.TaintNodeUnschedulable}

// desiredTaints computes the controller-owned taints node should have:
// NoSchedule from the conditions and spec.unschedulable
// (doNoScheduleTaintingPass), NoExecute from Ready
// (processTaintBaseEviction).
func desiredTaints(node *corev1.Node) (noSchedule, noExecute []string) {
	for _, cond := range node.Status.Conditions {
		if key, ok := nodeConditionToTaintKeyStatusMap[cond.Type][cond.Status]; ok {
			noSchedule = append(noSchedule, key)
		}
	}
	if node.Spec.Unschedulable {
		noSchedule = append(noSchedule, corev1.TaintNodeUnschedulable)
	}
	// Only conditions map to taints: a node that has posted none yet loses
	// the not-ready taint the apiserver gave it, as upstream's
	// doNoScheduleTaintingPass does (a real kubelet registers its node with
	// its conditions already set).
	if ready := getCondition(&node.Status, corev1.NodeReady); ready != nil {
		switch ready.Status {
		case corev1.ConditionFalse:
			noExecute = []string{corev1.TaintNodeNotReady}
		case corev1.ConditionUnknown:
			noExecute = []string{corev1.TaintNodeUnreachable}
		}
	}
	return noSchedule, noExecute
}

// syncNodeTaints makes the node's controller-owned taints what its
// conditions call for, keeping every other taint (a user's, a NoExecute
// taint's timeAdded) as it is.
func (c *NodeLifecycleController) syncNodeTaints(ctx context.Context, name string) error {
	cached, ok := c.nodes.GetStore().Get("", name)
	if !ok {
		return nil
	}
	if _, changed := reconcileTaints(cached, metav1.NewTime(c.opts.Clock.Now())); !changed {
		return nil
	}
	// Read it afresh: the update must not undo a change the cache has not seen.
	node, err := rest.Get[corev1.Node](ctx, c.client, "", name)
	if rest.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	taints, changed := reconcileTaints(node, metav1.NewTime(c.opts.Clock.Now()))
	if !changed {
		return nil
	}
	node.Spec.Taints = taints
	if _, err := rest.Update(ctx, c.client, node); err != nil {
		return err
	}
	c.log.Info("node taints updated", "node", name, "taints", taintStrings(taints))
	return nil
}

// reconcileTaints returns node's taints with the managed ones made right.
func reconcileTaints(node *corev1.Node, now metav1.Time) ([]corev1.Taint, bool) {
	noSchedule, noExecute := desiredTaints(node)
	var out []corev1.Taint
	changed := false
	for _, t := range node.Spec.Taints {
		switch {
		case t.Effect == corev1.TaintEffectNoSchedule && slices.Contains(taintKeysManaged, t.Key) && !slices.Contains(noSchedule, t.Key),
			t.Effect == corev1.TaintEffectNoExecute && (t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable) && !slices.Contains(noExecute, t.Key):
			changed = true // no longer called for
		default:
			out = append(out, t)
		}
	}
	has := func(key string, effect corev1.TaintEffect) bool {
		return slices.ContainsFunc(out, func(t corev1.Taint) bool { return t.Key == key && t.Effect == effect })
	}
	// Every taint the controller adds carries timeAdded, NoSchedule ones too
	// (upstream: SwapNodeControllerTaint stamps all taintsToAdd).
	for _, key := range noSchedule {
		if !has(key, corev1.TaintEffectNoSchedule) {
			added := now
			out = append(out, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule, TimeAdded: &added})
			changed = true
		}
	}
	for _, key := range noExecute {
		if !has(key, corev1.TaintEffectNoExecute) {
			added := now
			out = append(out, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute, TimeAdded: &added})
			changed = true
		}
	}
	return out, changed
}

func taintStrings(ts []corev1.Taint) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ToString())
	}
	return out
}
