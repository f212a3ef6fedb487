package daemonset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/controller/history"
)

// constructHistory claims the DaemonSet's ControllerRevisions and splits
// them into the one matching the current template (cur: created if
// missing, duplicates merged, renumbered to be the newest) and the old
// ones. Revisions lacking the controller-revision-hash label get their
// name as its value. Upstream: constructHistory.
func (c *DaemonSetsController) constructHistory(ctx context.Context, ds *appsv1.DaemonSet) (cur *appsv1.ControllerRevision, old []*appsv1.ControllerRevision, err error) {
	histories, err := c.controlledHistories(ctx, ds)
	if err != nil {
		return nil, nil, err
	}
	patch, err := history.TemplatePatch(&ds.Spec.Template)
	if err != nil {
		return nil, nil, err
	}
	var currentHistories []*appsv1.ControllerRevision
	for _, history := range histories {
		if _, ok := history.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; !ok {
			toUpdate := metav1.DeepCopy(history)
			if toUpdate.Labels == nil {
				toUpdate.Labels = map[string]string{}
			}
			toUpdate.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = toUpdate.Name
			if history, err = rest.Update(ctx, c.client, toUpdate); err != nil {
				return nil, nil, err
			}
		}
		if bytes.Equal(patch, history.Data.Raw) {
			currentHistories = append(currentHistories, history)
		} else {
			old = append(old, history)
		}
	}
	currRevision := maxRevision(old) + 1
	if len(currentHistories) == 0 {
		cur, err = c.snapshot(ctx, ds, currRevision)
		return cur, old, err
	}
	if cur, err = c.dedupCurHistories(ctx, ds, currentHistories); err != nil {
		return nil, nil, err
	}
	if cur.Revision < currRevision {
		toUpdate := metav1.DeepCopy(cur)
		toUpdate.Revision = currRevision
		if cur, err = rest.Update(ctx, c.client, toUpdate); err != nil {
			return nil, nil, err
		}
	}
	return cur, old, nil
}

// cleanupHistory deletes the oldest revisions beyond revisionHistoryLimit,
// sparing those a pod still carries the hash of. Upstream: cleanupHistory.
func (c *DaemonSetsController) cleanupHistory(ctx context.Context, ds *appsv1.DaemonSet, old []*appsv1.ControllerRevision) error {
	toKeep := 10
	if ds.Spec.RevisionHistoryLimit != nil {
		toKeep = int(*ds.Spec.RevisionHistoryLimit)
	}
	toKill := len(old) - toKeep
	if toKill <= 0 {
		return nil
	}
	liveHashes := map[string]bool{}
	for _, pods := range c.getNodesToDaemonPods(ds) {
		for _, pod := range pods {
			if hash := pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; hash != "" {
				liveHashes[hash] = true
			}
		}
	}
	sort.SliceStable(old, func(i, j int) bool { return old[i].Revision < old[j].Revision })
	for _, history := range old {
		if toKill <= 0 {
			break
		}
		if liveHashes[history.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]] {
			continue
		}
		if err := rest.Delete[appsv1.ControllerRevision](ctx, c.client, ds.Namespace, history.Name, nil); err != nil && !rest.IsNotFound(err) {
			return err
		}
		toKill--
	}
	return nil
}

func maxRevision(histories []*appsv1.ControllerRevision) int64 {
	var m int64
	for _, h := range histories {
		m = max(m, h.Revision)
	}
	return m
}

// dedupCurHistories keeps the newest of several revisions of the current
// template: the DaemonSet's pods are relabelled with its hash, the others
// deleted. Upstream: dedupCurHistories.
func (c *DaemonSetsController) dedupCurHistories(ctx context.Context, ds *appsv1.DaemonSet, curHistories []*appsv1.ControllerRevision) (*appsv1.ControllerRevision, error) {
	if len(curHistories) == 1 {
		return curHistories[0], nil
	}
	var maxRev int64
	var keepCur *appsv1.ControllerRevision
	for _, cur := range curHistories {
		if cur.Revision >= maxRev {
			keepCur, maxRev = cur, cur.Revision
		}
	}
	keepHash := keepCur.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	for _, cur := range curHistories {
		if cur.Name == keepCur.Name {
			continue
		}
		for _, pod := range c.pods.GetStore().ByIndex(indexByControllerUID, string(ds.UID)) {
			if pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == keepHash {
				continue
			}
			patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: keepHash}}})
			if _, err := rest.Patch[corev1.Pod](ctx, c.client, pod.Namespace, pod.Name, rest.StrategicMergePatchType, patch, ""); err != nil && !rest.IsNotFound(err) {
				return nil, err
			}
		}
		if err := rest.Delete[appsv1.ControllerRevision](ctx, c.client, ds.Namespace, cur.Name, nil); err != nil && !rest.IsNotFound(err) {
			return nil, err
		}
	}
	return keepCur, nil
}

// controlledHistories claims the revisions of the DaemonSet's namespace:
// adopts matching orphans, releases owned ones that stopped matching.
// Upstream: controlledHistories.
func (c *DaemonSetsController) controlledHistories(ctx context.Context, ds *appsv1.DaemonSet) ([]*appsv1.ControllerRevision, error) {
	sel, err := selection.FromLabelSelector(ds.Spec.Selector)
	if err != nil {
		return nil, err
	}
	m := &controller.ControllerRefManager[appsv1.ControllerRevision, *appsv1.ControllerRevision]{
		Client: c.client, Controller: &ds.ObjectMeta, APIVersion: "apps/v1", Kind: "DaemonSet", Selector: sel,
		CanAdoptFunc: controller.RecheckDeletionTimestamp(func(ctx context.Context) (*metav1.ObjectMeta, error) {
			fresh, err := rest.Get[appsv1.DaemonSet](ctx, c.client, ds.Namespace, ds.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		}, ds.UID),
	}
	var histories []*appsv1.ControllerRevision
	for _, h := range c.histories.GetStore().ByIndex(cache.NamespaceIndex, ds.Namespace) {
		histories = append(histories, metav1.DeepCopy(h))
	}
	return m.Claim(ctx, histories)
}

// Match says whether rev holds ds's current template. kubectl rollout
// undo makes the same comparison. Upstream: Match.
func Match(ds *appsv1.DaemonSet, rev *appsv1.ControllerRevision) (bool, error) {
	patch, err := history.TemplatePatch(&ds.Spec.Template)
	if err != nil {
		return false, err
	}
	return bytes.Equal(patch, rev.Data.Raw), nil
}

// snapshot creates the revision of ds's current template, named
// <ds>-<hash>. A name taken by another template bumps
// status.collisionCount (the next sync then hashes differently) and fails
// this sync. Upstream: snapshot.
func (c *DaemonSetsController) snapshot(ctx context.Context, ds *appsv1.DaemonSet, revision int64) (*appsv1.ControllerRevision, error) {
	patch, err := history.TemplatePatch(&ds.Spec.Template)
	if err != nil {
		return nil, err
	}
	hash := controller.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	labels := map[string]string{}
	for k, v := range ds.Spec.Template.Labels {
		labels[k] = v
	}
	labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	history := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:            ds.Name + "-" + hash,
			Namespace:       ds.Namespace,
			Labels:          labels,
			Annotations:     ds.Annotations,
			OwnerReferences: []metav1.OwnerReference{controller.NewControllerRef(&ds.ObjectMeta, "apps/v1", "DaemonSet")},
		},
		Data:     appsv1.RawExtension{Raw: patch},
		Revision: revision,
	}
	created, err := rest.Create(ctx, c.client, history)
	if !rest.IsAlreadyExists(err) {
		return created, err
	}
	existing, getErr := rest.Get[appsv1.ControllerRevision](ctx, c.client, ds.Namespace, history.Name)
	if getErr != nil {
		return nil, getErr
	}
	if bytes.Equal(existing.Data.Raw, patch) {
		return existing, nil
	}
	currDS, getErr := rest.Get[appsv1.DaemonSet](ctx, c.client, ds.Namespace, ds.Name)
	if getErr != nil {
		return nil, getErr
	}
	if currDS.Status.CollisionCount == nil {
		currDS.Status.CollisionCount = new(int32)
	}
	*currDS.Status.CollisionCount++
	if _, err := rest.UpdateStatus(ctx, c.client, currDS); err != nil {
		return nil, err
	}
	c.log.Info("Found a hash collision for DaemonSet - bumping collisionCount to resolve it",
		"daemonset", ds.Namespace+"/"+ds.Name, "collisionCount", *currDS.Status.CollisionCount)
	return nil, fmt.Errorf("hash collision for ControllerRevision %s/%s", ds.Namespace, history.Name)
}
