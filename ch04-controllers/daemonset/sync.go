package daemonset

import (
	"context"
	"encoding/json"
	"fmt"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch04-controllers/record"
	"sort"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
)

// FailedDaemonPodReason is the event of a failed daemon pod being replaced.
const FailedDaemonPodReason = "FailedDaemonPod"

// syncDaemonSet reconciles one DaemonSet (see the package comment) and
// returns when to look again (a pod becoming available after
// minReadySeconds). Upstream: DaemonSetsController.syncDaemonSet.
func (c *DaemonSetsController) syncDaemonSet(ctx context.Context, key string) (time.Duration, error) {
	ns, name := cache.SplitMetaNamespaceKey(key)
	ds, ok := c.dsets.GetStore().Get(ns, name)
	if !ok {
		c.expectations.DeleteExpectations(key)
		return 0, nil
	}
	if ds.DeletionTimestamp != nil {
		return 0, nil
	}
	nodes := c.nodes.GetStore().List()
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	cur, old, err := c.constructHistory(ctx, ds)
	if err != nil {
		return 0, fmt.Errorf("failed to construct revisions of DaemonSet: %w", err)
	}
	hash := cur.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	if c.expectations.SatisfiedExpectations(key) {
		if err := c.updateDaemonSet(ctx, ds, nodes, hash, key, old); err != nil {
			return 0, err
		}
	}
	return c.updateDaemonSetStatus(ctx, ds, nodes, hash)
}

// updateDaemonSet creates and deletes pods (manage), rolls the update
// forward once manage's actions are in the cache, and trims the history.
// Upstream: updateDaemonSet.
func (c *DaemonSetsController) updateDaemonSet(ctx context.Context, ds *appsv1.DaemonSet, nodes []*corev1.Node, hash, key string, old []*appsv1.ControllerRevision) error {
	if err := c.manage(ctx, ds, nodes, hash); err != nil {
		return err
	}
	rolling := ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType || ds.Spec.UpdateStrategy.Type == ""
	if rolling && c.expectations.SatisfiedExpectations(key) {
		if err := c.rollingUpdate(ctx, ds, nodes, hash); err != nil {
			return err
		}
	}
	if err := c.cleanupHistory(ctx, ds, old); err != nil {
		return fmt.Errorf("failed to clean up revisions of DaemonSet: %w", err)
	}
	return nil
}

// getNodesToDaemonPods groups the DaemonSet's pods by their target node.
func (c *DaemonSetsController) getNodesToDaemonPods(ds *appsv1.DaemonSet) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, p := range c.pods.GetStore().ByIndex(indexByControllerUID, string(ds.UID)) {
		if n := GetTargetNodeName(p); n != "" {
			out[n] = append(out[n], p)
		}
	}
	for _, pods := range out {
		sort.Slice(pods, func(i, j int) bool { return pods[i].CreationTimestamp.Before(pods[j].CreationTimestamp.Time) })
	}
	return out
}

// manage creates the missing daemon pods and deletes the ones that must
// go. Upstream: manage + podsShouldBeOnNode.
func (c *DaemonSetsController) manage(ctx context.Context, ds *appsv1.DaemonSet, nodes []*corev1.Node, hash string) error {
	nodeToPods := c.getNodesToDaemonPods(ds)
	_, maxSurge := c.maxes(ds, 0)
	var nodesNeedingPods []string
	var podsToDelete []*corev1.Pod
	seen := map[string]bool{}
	for _, node := range nodes {
		seen[node.Name] = true
		shouldRun, shouldContinueRunning := NodeShouldRunDaemonPod(node, ds)
		pods := nodeToPods[node.Name]
		switch {
		case shouldRun && len(pods) == 0:
			nodesNeedingPods = append(nodesNeedingPods, node.Name)
		case shouldContinueRunning:
			var running []*corev1.Pod
			for _, p := range pods {
				switch {
				case p.DeletionTimestamp != nil:
				case p.Status.Phase == corev1.PodFailed:
					c.recorder.Eventf(c.ref(ds), corev1.EventTypeWarning, FailedDaemonPodReason,
						"Found failed daemon pod %s/%s on node %s, will try to kill it", p.Namespace, p.Name, node.Name)
					podsToDelete = append(podsToDelete, p)
				case p.Status.Phase == corev1.PodSucceeded:
					podsToDelete = append(podsToDelete, p)
				default:
					running = append(running, p)
				}
			}
			// More than one pod on the node: keep the oldest (with surge,
			// the oldest old one and the oldest new one).
			var keptNew, keptOld bool
			for i, p := range running {
				isNew := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash
				switch {
				case maxSurge == 0 && i == 0:
				case maxSurge > 0 && isNew && !keptNew:
					keptNew = true
				case maxSurge > 0 && !isNew && !keptOld:
					keptOld = true
				default:
					podsToDelete = append(podsToDelete, p)
				}
			}
		case !shouldContinueRunning:
			for _, p := range pods {
				if p.DeletionTimestamp == nil {
					podsToDelete = append(podsToDelete, p)
				}
			}
		}
	}
	// Pods for nodes that no longer exist.
	for n, pods := range nodeToPods {
		if !seen[n] {
			for _, p := range pods {
				if p.DeletionTimestamp == nil {
					podsToDelete = append(podsToDelete, p)
				}
			}
		}
	}
	return c.syncNodes(ctx, ds, podsToDelete, nodesNeedingPods, hash)
}

// syncNodes deletes podsToDelete and creates a pod for each node of
// nodesNeedingPods. Upstream: syncNodes.
func (c *DaemonSetsController) syncNodes(ctx context.Context, ds *appsv1.DaemonSet, podsToDelete []*corev1.Pod, nodesNeedingPods []string, hash string) error {
	if len(podsToDelete) == 0 && len(nodesNeedingPods) == 0 {
		return nil
	}
	key := cache.MetaNamespaceKeyFunc(ds)
	c.expectations.SetExpectations(key, len(nodesNeedingPods), len(podsToDelete))
	ownerRef := controller.NewControllerRef(&ds.ObjectMeta, "apps/v1", "DaemonSet")
	var firstErr error
	for _, node := range nodesNeedingPods {
		tmpl := CreatePodTemplate(ds.Spec.Template, hash)
		tmpl.Spec.Affinity = ReplaceDaemonSetPodNodeNameNodeAffinity(tmpl.Spec.Affinity, node)
		if _, err := c.podCtl.CreatePods(ctx, ds.Namespace, tmpl, c.ref(ds), &ownerRef); err != nil {
			c.expectations.CreationObserved(key)
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	for _, p := range podsToDelete {
		if err := c.podCtl.DeletePod(ctx, p.Namespace, p.Name, c.ref(ds)); err != nil {
			c.expectations.DeletionObserved(key)
			if !rest.IsNotFound(err) && firstErr == nil {
				firstErr = err
			}
		}
	}
	return firstErr
}

// CreatePodTemplate is the template of a daemon pod: the DaemonSet's, with
// the revision label and the default tolerations. Upstream: the same name.
func CreatePodTemplate(template corev1.PodTemplateSpec, hash string) *corev1.PodTemplateSpec {
	t := metav1.DeepCopy(&template)
	AddOrUpdateDaemonPodTolerations(&t.Spec)
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	t.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	return t
}

func (c *DaemonSetsController) ref(ds *appsv1.DaemonSet) record.ObjectRef {
	return record.RefFor(&ds.ObjectMeta, "apps/v1", "DaemonSet")
}

// maxes resolves maxUnavailable and maxSurge for desired nodes (one of
// them is non-zero; maxUnavailable defaults to 1). Upstream:
// updatedDesiredNodeCounts / unavailableCount / surgeCount.
func (c *DaemonSetsController) maxes(ds *appsv1.DaemonSet, desired int) (maxUnavailable, maxSurge int) {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType || ru == nil {
		return 1, 0
	}
	maxSurge = scaledValue(ru.MaxSurge, desired, true, 0)
	def := intstr.FromInt(1)
	mu := ru.MaxUnavailable
	if mu == nil {
		mu = &def
	}
	maxUnavailable = scaledValue(mu, desired, false, 1)
	if ru.MaxSurge != nil && ru.MaxSurge.Type == intstr.String && desired == 0 {
		maxSurge = 1 // a percentage of nodes not known yet: let manage keep surged pods
	}
	if maxUnavailable == 0 && maxSurge == 0 {
		maxUnavailable = 1 // never stuck
	}
	return maxUnavailable, maxSurge
}

// rollingUpdate replaces pods of an old revision. Upstream: update.go
// rollingUpdate.
func (c *DaemonSetsController) rollingUpdate(ctx context.Context, ds *appsv1.DaemonSet, nodes []*corev1.Node, hash string) error {
	nodeToPods := c.getNodesToDaemonPods(ds)
	desired := 0
	for _, n := range nodes {
		if shouldRun, _ := NodeShouldRunDaemonPod(n, ds); shouldRun {
			desired++
		}
	}
	maxUnavailable, maxSurge := c.maxes(ds, desired)
	now := c.clock.Now()
	available := func(p *corev1.Pod) bool { return controller.IsPodAvailable(p, ds.Spec.MinReadySeconds, now) }
	var oldPodsToDelete []*corev1.Pod
	if maxSurge == 0 {
		numUnavailable := 0
		var allowedReplacements, candidates []*corev1.Pod
		for _, node := range sortedKeys(nodeToPods) {
			newPod, oldPod, ok := findUpdatedPodsOnNode(nodeToPods[node], hash)
			switch {
			case !ok, oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
				numUnavailable++ // the manage loop is on it
			case newPod != nil:
				if !available(newPod) {
					numUnavailable++
				}
			case !available(oldPod):
				allowedReplacements = append(allowedReplacements, oldPod) // down anyway: replace now
			case numUnavailable < maxUnavailable:
				candidates = append(candidates, oldPod)
			}
		}
		remaining := min(max(maxUnavailable-numUnavailable, 0), len(candidates))
		oldPodsToDelete = append(allowedReplacements, candidates[:remaining]...)
		return c.syncNodes(ctx, ds, oldPodsToDelete, nil, hash)
	}
	// Surge: start the new pod next to the old one, delete the old one once
	// the new one is available.
	numSurge := 0
	var nodesToSurge []string
	for _, node := range sortedKeys(nodeToPods) {
		newPod, oldPod, ok := findUpdatedPodsOnNode(nodeToPods[node], hash)
		switch {
		case !ok, oldPod == nil:
		case newPod == nil:
			if !available(oldPod) {
				nodesToSurge = append(nodesToSurge, node)
			} else if numSurge < maxSurge {
				numSurge++
				nodesToSurge = append(nodesToSurge, node)
			}
		case !available(newPod):
			numSurge++
		default:
			oldPodsToDelete = append(oldPodsToDelete, oldPod)
		}
	}
	return c.syncNodes(ctx, ds, oldPodsToDelete, nodesToSurge, hash)
}

// findUpdatedPodsOnNode returns the node's one new and one old pod; ok is
// false with more than one of either (the manage loop cleans that up).
func findUpdatedPodsOnNode(pods []*corev1.Pod, hash string) (newPod, oldPod *corev1.Pod, ok bool) {
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

func sortedKeys(m map[string][]*corev1.Pod) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// updateDaemonSetStatus counts, node by node, what `kubectl get ds` and
// `kubectl rollout status` show. Upstream: updateDaemonSetStatus.
func (c *DaemonSetsController) updateDaemonSetStatus(ctx context.Context, ds *appsv1.DaemonSet, nodes []*corev1.Node, hash string) (time.Duration, error) {
	nodeToPods := c.getNodesToDaemonPods(ds)
	now := c.clock.Now()
	var st appsv1.DaemonSetStatus
	var requeue time.Duration
	for _, node := range nodes {
		shouldRun, _ := NodeShouldRunDaemonPod(node, ds)
		var pods []*corev1.Pod
		for _, p := range nodeToPods[node.Name] {
			if p.DeletionTimestamp == nil {
				pods = append(pods, p)
			}
		}
		scheduled := len(pods) > 0
		if !shouldRun {
			if scheduled {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if !scheduled {
			continue
		}
		st.CurrentNumberScheduled++
		pod := pods[0] // the oldest
		if controller.IsPodReady(pod) {
			st.NumberReady++
			if controller.IsPodAvailable(pod, ds.Spec.MinReadySeconds, now) {
				st.NumberAvailable++
			} else if ds.Spec.MinReadySeconds > 0 {
				// Look again when it becomes available.
				ready := controller.GetPodReadyCondition(pod.Status).LastTransitionTime.Time
				if d := ready.Add(time.Duration(ds.Spec.MinReadySeconds)*time.Second).Sub(now) + time.Second; requeue == 0 || d < requeue {
					requeue = d
				}
			}
		}
		if pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = max(st.DesiredNumberScheduled-st.NumberAvailable, 0)
	st.ObservedGeneration = ds.Generation
	st.CollisionCount = ds.Status.CollisionCount
	st.Conditions = ds.Status.Conditions
	if statusEqual(&ds.Status, &st) {
		return requeue, nil
	}
	return requeue, c.storeDaemonSetStatus(ctx, ds, st)
}

// statusUpdateRetries is how many times a conflicting status write is
// retried on a fresh read. Upstream: StatusUpdateRetries.
const statusUpdateRetries = 1

// storeDaemonSetStatus writes st, retrying on a conflict with the
// DaemonSet read afresh. Upstream: storeDaemonSetStatus.
func (c *DaemonSetsController) storeDaemonSetStatus(ctx context.Context, ds *appsv1.DaemonSet, st appsv1.DaemonSetStatus) error {
	upd := metav1.DeepCopy(ds)
	for i := 0; ; i++ {
		st.CollisionCount, st.Conditions = upd.Status.CollisionCount, upd.Status.Conditions
		upd.Status = st
		_, err := rest.UpdateStatus(ctx, c.client, upd)
		if err == nil || !rest.IsConflict(err) || i >= statusUpdateRetries {
			return err
		}
		fresh, getErr := rest.Get[appsv1.DaemonSet](ctx, c.client, ds.Namespace, ds.Name)
		if getErr != nil {
			return getErr
		}
		upd = fresh
	}
}

func statusEqual(a, b *appsv1.DaemonSetStatus) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
