// Package nodehelpers changes Nodes the way the cloud node controllers
// need: a taint added or removed, labels added, the status addresses
// replaced. Each change is a strategic merge patch carrying the
// resourceVersion it was computed from, so a concurrent writer makes it
// fail with a conflict and it is computed again (up to five times), as
// upstream's helpers do.
//
// Upstream: k8s.io/cloud-provider/node/helpers (taints.go, labels.go) and
// component-helpers' node/util (GetNodeCondition, PatchNodeStatus).
package nodehelpers

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// updateRetries and retryDelay: upstream's backoff, 5 steps from 100 ms.
const (
	updateRetries = 5
	retryDelay    = 100 * time.Millisecond
)

// GetNodeCondition returns the condition of type t, or nil.
func GetNodeCondition(status *corev1.NodeStatus, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}

// retryOnConflict runs f until it does not fail with a conflict.
func retryOnConflict(ctx context.Context, f func() error) error {
	var err error
	for i := range updateRetries {
		if err = f(); !rest.IsConflict(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retryDelay << i):
		}
	}
	return err
}

// patchNode sends spec/metadata changes of node (a fresh read) with its
// resourceVersion as the precondition.
func patchNode(ctx context.Context, c *rest.Client, node *corev1.Node, fields map[string]any) error {
	meta, _ := fields["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["resourceVersion"] = node.ResourceVersion
	fields["metadata"] = meta
	patch, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	_, err = rest.Patch[corev1.Node](ctx, c, "", node.Name, rest.StrategicMergePatchType, patch, "")
	return err
}

func matchTaint(a, b *corev1.Taint) bool { return a.Key == b.Key && a.Effect == b.Effect }

func taintExists(taints []corev1.Taint, t *corev1.Taint) bool {
	return slices.ContainsFunc(taints, func(x corev1.Taint) bool { return matchTaint(&x, t) })
}

// AddOrUpdateTaintOnNode puts taint on the Node (replacing one with the
// same key and effect); nothing is written when it is already there.
func AddOrUpdateTaintOnNode(ctx context.Context, c *rest.Client, nodeName string, taint *corev1.Taint) error {
	return retryOnConflict(ctx, func() error {
		node, err := rest.Get[corev1.Node](ctx, c, "", nodeName)
		if err != nil {
			return err
		}
		var taints []corev1.Taint
		updated := false
		for _, t := range node.Spec.Taints {
			if matchTaint(taint, &t) {
				if t.Value == taint.Value && equalTime(t, *taint) {
					return nil
				}
				taints = append(taints, *taint)
				updated = true
				continue
			}
			taints = append(taints, t)
		}
		if !updated {
			taints = append(taints, *taint)
		}
		return patchNode(ctx, c, node, map[string]any{"spec": map[string]any{"taints": taints}})
	})
}

func equalTime(a, b corev1.Taint) bool {
	if a.TimeAdded == nil || b.TimeAdded == nil {
		return a.TimeAdded == b.TimeAdded
	}
	return a.TimeAdded.Equal(b.TimeAdded.Time)
}

// RemoveTaintOffNode takes taint off the Node; node, when given, is a
// cached copy that spares the read when the taint is not on it.
func RemoveTaintOffNode(ctx context.Context, c *rest.Client, nodeName string, node *corev1.Node, taint *corev1.Taint) error {
	if node != nil && !taintExists(node.Spec.Taints, taint) {
		return nil
	}
	return retryOnConflict(ctx, func() error {
		fresh, err := rest.Get[corev1.Node](ctx, c, "", nodeName)
		if err != nil {
			return err
		}
		if !taintExists(fresh.Spec.Taints, taint) {
			return nil
		}
		taints := slices.DeleteFunc(slices.Clone(fresh.Spec.Taints), func(t corev1.Taint) bool { return matchTaint(&t, taint) })
		if taints == nil {
			taints = []corev1.Taint{}
		}
		return patchNode(ctx, c, fresh, map[string]any{"spec": map[string]any{"taints": taints}})
	})
}

// AddOrUpdateLabelsOnNode sets labels on the Node.
func AddOrUpdateLabelsOnNode(ctx context.Context, c *rest.Client, nodeName string, labels map[string]string) error {
	return retryOnConflict(ctx, func() error {
		node, err := rest.Get[corev1.Node](ctx, c, "", nodeName)
		if err != nil {
			return err
		}
		merged := maps.Clone(node.Labels)
		if merged == nil {
			merged = map[string]string{}
		}
		maps.Copy(merged, labels)
		if maps.Equal(merged, node.Labels) {
			return nil
		}
		return patchNode(ctx, c, node, map[string]any{"metadata": map[string]any{"labels": labels}})
	})
}

// PatchNodeAddresses replaces status.addresses. The list merges by type,
// so the patch replaces it as a whole ($patch: replace), as the two-way
// patch upstream computes does for a changed list.
func PatchNodeAddresses(ctx context.Context, c *rest.Client, nodeName string, addresses []corev1.NodeAddress) error {
	items := make([]any, 0, len(addresses)+1)
	for _, a := range addresses {
		items = append(items, a)
	}
	items = append(items, map[string]string{"$patch": "replace"})
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"addresses": items}})
	if err != nil {
		return err
	}
	_, err = rest.Patch[corev1.Node](ctx, c, "", nodeName, rest.StrategicMergePatchType, patch, "status")
	return err
}
