package statefulset

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller/history"
)

// MaxBatchSize bounds the pods a Parallel set creates or deletes at once.
const MaxBatchSize = 500

// defaultStatefulSetControl is one sync of a StatefulSet: pick the current
// and update revisions, bring the pods in line with them and the ordinal
// range, write status, trim the history. Upstream: stateful_set_control.go.
type defaultStatefulSetControl struct {
	podControl        *StatefulPodControl
	statusUpdater     *realStatefulSetStatusUpdater
	controllerHistory history.Interface
	log               *slog.Logger
}

// UpdateStatefulSet syncs set, whose pods are pods, and returns the status
// it computed.
func (ssc *defaultStatefulSetControl) UpdateStatefulSet(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod) (*appsv1.StatefulSetStatus, error) {
	revisions, err := ssc.ListRevisions(set)
	if err != nil {
		return nil, err
	}
	history.SortControllerRevisions(revisions)
	currentRevision, updateRevision, status, err := ssc.performUpdate(ctx, set, pods, revisions)
	if err != nil {
		return nil, errors.Join(err, ssc.truncateHistory(ctx, set, pods, revisions, currentRevision, updateRevision))
	}
	return status, ssc.truncateHistory(ctx, set, pods, revisions, currentRevision, updateRevision)
}

func (ssc *defaultStatefulSetControl) performUpdate(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod, revisions []*appsv1.ControllerRevision) (*appsv1.ControllerRevision, *appsv1.ControllerRevision, *appsv1.StatefulSetStatus, error) {
	currentRevision, updateRevision, collisionCount, err := ssc.getStatefulSetRevisions(ctx, set, revisions)
	if err != nil {
		return currentRevision, updateRevision, nil, err
	}
	currentStatus, err := ssc.updateStatefulSet(ctx, set, currentRevision, updateRevision, collisionCount, pods)
	if err != nil && currentStatus == nil {
		return currentRevision, updateRevision, nil, err
	}
	// The status is written even when the sync failed half-way.
	statusErr := ssc.updateStatefulSetStatus(ctx, set, currentStatus)
	if statusErr == nil {
		ssc.log.Debug("Updated status", "statefulSet", set.Namespace+"/"+set.Name,
			"replicas", currentStatus.Replicas, "readyReplicas", currentStatus.ReadyReplicas,
			"currentReplicas", currentStatus.CurrentReplicas, "updatedReplicas", currentStatus.UpdatedReplicas)
	}
	switch {
	case err != nil && statusErr != nil:
		ssc.log.Error("Could not update status", "statefulSet", set.Namespace+"/"+set.Name, "err", statusErr)
		return currentRevision, updateRevision, currentStatus, err
	case err != nil:
		return currentRevision, updateRevision, currentStatus, err
	case statusErr != nil:
		return currentRevision, updateRevision, currentStatus, statusErr
	}
	return currentRevision, updateRevision, currentStatus, nil
}

// ListRevisions are the set's revisions (and the orphans its selector matches).
func (ssc *defaultStatefulSetControl) ListRevisions(set *appsv1.StatefulSet) ([]*appsv1.ControllerRevision, error) {
	selector, err := selection.FromLabelSelector(set.Spec.Selector)
	if err != nil {
		return nil, err
	}
	return ssc.controllerHistory.ListControllerRevisions(&set.ObjectMeta, selector), nil
}

// AdoptOrphanRevisions makes set the controller of the orphans among revisions.
func (ssc *defaultStatefulSetControl) AdoptOrphanRevisions(ctx context.Context, set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision) error {
	for i := range revisions {
		adopted, err := ssc.controllerHistory.AdoptControllerRevision(ctx, &set.ObjectMeta, controllerKind.APIVersion, controllerKind.Kind, revisions[i])
		if err != nil {
			return err
		}
		revisions[i] = adopted
	}
	return nil
}

// truncateHistory deletes the oldest revisions that no pod, nor the
// status, uses, until revisionHistoryLimit are left. revisions is sorted.
func (ssc *defaultStatefulSetControl) truncateHistory(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod, revisions []*appsv1.ControllerRevision, current, update *appsv1.ControllerRevision) error {
	live := map[string]bool{}
	if current != nil {
		live[current.Name] = true
	}
	if update != nil {
		live[update.Name] = true
	}
	for _, p := range pods {
		live[getPodRevision(p)] = true
	}
	var old []*appsv1.ControllerRevision
	for _, r := range revisions {
		if !live[r.Name] {
			old = append(old, r)
		}
	}
	limit := 10
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	if limit < 0 || len(old) <= limit {
		return nil
	}
	for _, r := range old[:len(old)-limit] {
		if err := ssc.controllerHistory.DeleteControllerRevision(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// getStatefulSetRevisions returns the current and update revisions and the
// collision count. The update revision is the set's template: the newest
// revision if equal, an older equal one renumbered as the newest (a
// rollback), or a new revision. The current revision is the one
// status.currentRevision names, or the update revision at first.
func (ssc *defaultStatefulSetControl) getStatefulSetRevisions(ctx context.Context, set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision) (*appsv1.ControllerRevision, *appsv1.ControllerRevision, int32, error) {
	var currentRevision *appsv1.ControllerRevision
	revisionCount := len(revisions)
	history.SortControllerRevisions(revisions)
	var collisionCount int32
	if set.Status.CollisionCount != nil {
		collisionCount = *set.Status.CollisionCount
	}
	updateRevision, err := newRevision(set, nextRevision(revisions), &collisionCount)
	if err != nil {
		return nil, nil, collisionCount, err
	}
	equalRevisions := history.FindEqualRevisions(revisions, updateRevision)
	equalCount := len(equalRevisions)
	switch {
	case equalCount > 0 && history.EqualRevision(revisions[revisionCount-1], equalRevisions[equalCount-1]):
		updateRevision = revisions[revisionCount-1]
	case equalCount > 0:
		updateRevision, err = ssc.controllerHistory.UpdateControllerRevision(ctx, equalRevisions[equalCount-1], updateRevision.Revision)
		if err != nil {
			return nil, nil, collisionCount, err
		}
	default:
		updateRevision, err = ssc.controllerHistory.CreateControllerRevision(ctx, &set.ObjectMeta, updateRevision, &collisionCount)
		if err != nil {
			return nil, nil, collisionCount, err
		}
	}
	for _, r := range revisions {
		if r.Name == set.Status.CurrentRevision {
			currentRevision = r
			break
		}
	}
	if currentRevision == nil {
		currentRevision = updateRevision
	}
	return currentRevision, updateRevision, collisionCount, nil
}

// slowStartBatch calls fn(0..remaining-1) in batches of 1, 2, 4 ... (at
// most MaxBatchSize) and stops after the first batch with an error.
func slowStartBatch(initialBatchSize, remaining int, fn func(int) (bool, error)) (int, error) {
	successes, j := 0, 0
	for batchSize := min(remaining, initialBatchSize); batchSize > 0; batchSize = min(2*batchSize, remaining, MaxBatchSize) {
		errCh := make(chan error, batchSize)
		var wg sync.WaitGroup
		for range batchSize {
			k := j
			j++
			wg.Go(func() {
				if _, err := fn(k); err != nil {
					errCh <- err
				}
			})
		}
		wg.Wait()
		successes += batchSize - len(errCh)
		close(errCh)
		var errs []error
		for err := range errCh {
			errs = append(errs, err)
		}
		if len(errs) > 0 {
			return successes, errors.Join(errs...)
		}
		remaining -= batchSize
	}
	return successes, nil
}

type replicaStatus struct {
	replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas int32
}

func computeReplicaStatus(pods []*corev1.Pod, minReadySeconds int32, currentRevision, updateRevision *appsv1.ControllerRevision) replicaStatus {
	var s replicaStatus
	for _, pod := range pods {
		if isCreated(pod) {
			s.replicas++
		}
		if isRunningAndReady(pod) {
			s.readyReplicas++
			if isRunningAndAvailable(pod, minReadySeconds) {
				s.availableReplicas++
			}
		}
		if isCreated(pod) && !isTerminating(pod) {
			rev := getPodRevision(pod)
			if rev == currentRevision.Name {
				s.currentReplicas++
			}
			if rev == updateRevision.Name {
				s.updatedReplicas++
			}
		}
	}
	return s
}

// updateStatus counts the pods of podLists into status.
func updateStatus(status *appsv1.StatefulSetStatus, minReadySeconds int32, currentRevision, updateRevision *appsv1.ControllerRevision, podLists ...[]*corev1.Pod) {
	status.Replicas, status.ReadyReplicas, status.AvailableReplicas, status.CurrentReplicas, status.UpdatedReplicas = 0, 0, 0, 0, 0
	for _, list := range podLists {
		s := computeReplicaStatus(list, minReadySeconds, currentRevision, updateRevision)
		status.Replicas += s.replicas
		status.ReadyReplicas += s.readyReplicas
		status.AvailableReplicas += s.availableReplicas
		status.CurrentReplicas += s.currentReplicas
		status.UpdatedReplicas += s.updatedReplicas
	}
}

// processReplica handles the replica at index i: a failed or succeeded pod
// is deleted (recreated next sync), a missing one created, a pending one
// gets its missing claims; in OrderedReady mode (monotonic) the sync stops
// at a pod being created, terminating, or not yet available. Last, a pod's
// identity, storage and claims' references are repaired. It returns true
// when the sync must stop.
func (ssc *defaultStatefulSetControl) processReplica(ctx context.Context, set, updateSet *appsv1.StatefulSet, monotonic bool, replicas []*corev1.Pod, i int) (bool, error) {
	key := set.Namespace + "/" + set.Name
	if isFailed(replicas[i]) || isSucceeded(replicas[i]) {
		if replicas[i].DeletionTimestamp == nil {
			if err := ssc.podControl.DeleteStatefulPod(ctx, set, replicas[i]); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	if !isCreated(replicas[i]) {
		if ssc.podControl.PodClaimIsStale(set, replicas[i]) {
			return true, nil
		}
		if err := ssc.podControl.CreateStatefulPod(ctx, set, replicas[i]); err != nil {
			return true, err
		}
		if monotonic {
			return true, nil
		}
	}
	if isPending(replicas[i]) {
		ssc.log.Debug("StatefulSet is triggering PVC creation for pending Pod", "statefulSet", key, "pod", replicas[i].Name)
		if err := ssc.podControl.createMissingPersistentVolumeClaims(ctx, set, replicas[i]); err != nil {
			return true, err
		}
	}
	if isTerminating(replicas[i]) && monotonic {
		ssc.log.Debug("StatefulSet is waiting for Pod to Terminate", "statefulSet", key, "pod", replicas[i].Name)
		return true, nil
	}
	if !isRunningAndReady(replicas[i]) && monotonic {
		ssc.log.Debug("StatefulSet is waiting for Pod to be Running and Ready", "statefulSet", key, "pod", replicas[i].Name)
		return true, nil
	}
	if !isRunningAndAvailable(replicas[i], set.Spec.MinReadySeconds) && monotonic {
		ssc.log.Debug("StatefulSet is waiting for Pod to be Available", "statefulSet", key, "pod", replicas[i].Name)
		return true, nil
	}
	retentionMatch, err := ssc.podControl.ClaimsMatchRetentionPolicy(ctx, updateSet, replicas[i])
	if err != nil {
		retentionMatch = true
	}
	if identityMatches(set, replicas[i]) && storageMatches(set, replicas[i]) && retentionMatch {
		return false, nil
	}
	replica := metav1.DeepCopy(replicas[i])
	if err := ssc.podControl.UpdateStatefulPod(ctx, updateSet, replica); err != nil {
		return true, err
	}
	return false, nil
}

// processCondemned deletes the condemned pod at index i (out of the
// ordinal range); in OrderedReady mode only once it is healthy or is the
// first unhealthy pod, and one at a time, highest ordinal first.
func (ssc *defaultStatefulSetControl) processCondemned(ctx context.Context, set *appsv1.StatefulSet, firstUnhealthyPod *corev1.Pod, monotonic bool, condemned []*corev1.Pod, i int) (bool, error) {
	key := set.Namespace + "/" + set.Name
	if isTerminating(condemned[i]) {
		if monotonic {
			ssc.log.Debug("StatefulSet is waiting for Pod to Terminate prior to scale down", "statefulSet", key, "pod", condemned[i].Name)
			return true, nil
		}
		return false, nil
	}
	if !isRunningAndReady(condemned[i]) && monotonic && condemned[i] != firstUnhealthyPod {
		ssc.log.Debug("StatefulSet is waiting for Pod to be Running and Ready prior to scale down", "statefulSet", key, "pod", firstUnhealthyPod.Name)
		return true, nil
	}
	if !isRunningAndAvailable(condemned[i], set.Spec.MinReadySeconds) && monotonic && condemned[i] != firstUnhealthyPod {
		ssc.log.Debug("StatefulSet is waiting for Pod to be Available prior to scale down", "statefulSet", key, "pod", firstUnhealthyPod.Name)
		return true, nil
	}
	ssc.log.Info("Pod of StatefulSet is terminating for scale down", "statefulSet", key, "pod", condemned[i].Name)
	return true, ssc.podControl.DeleteStatefulPod(ctx, set, condemned[i])
}

// runForAll runs fn on every pod: in order, stopping at the first that
// says stop (monotonic), or all in slow-start batches.
func runForAll(pods []*corev1.Pod, fn func(int) (bool, error), monotonic bool) (bool, error) {
	if monotonic {
		for i := range pods {
			if shouldExit, err := fn(i); shouldExit || err != nil {
				return true, err
			}
		}
		return false, nil
	}
	if _, err := slowStartBatch(1, len(pods), fn); err != nil {
		return true, err
	}
	return false, nil
}

// updateStatefulSet brings the pods towards the target: replicas
// [start, start+replicas) exist, Running and Ready, at the revision the
// strategy wants; pods outside the range are deleted, highest first. It
// returns the status to write.
func (ssc *defaultStatefulSetControl) updateStatefulSet(ctx context.Context, set *appsv1.StatefulSet, currentRevision, updateRevision *appsv1.ControllerRevision, collisionCount int32, pods []*corev1.Pod) (*appsv1.StatefulSetStatus, error) {
	currentSet, err := ApplyRevision(set, currentRevision)
	if err != nil {
		return nil, err
	}
	updateSet, err := ApplyRevision(set, updateRevision)
	if err != nil {
		return nil, err
	}
	status := appsv1.StatefulSetStatus{
		ObservedGeneration: set.Generation,
		CurrentRevision:    currentRevision.Name,
		UpdateRevision:     updateRevision.Name,
		CollisionCount:     &collisionCount,
	}
	minReady := set.Spec.MinReadySeconds
	updateStatus(&status, minReady, currentRevision, updateRevision, pods)

	replicaCount := replicasOf(set)
	replicas := make([]*corev1.Pod, replicaCount)
	condemned := make([]*corev1.Pod, 0, len(pods))
	for _, pod := range pods {
		if podInOrdinalRange(pod, set) {
			replicas[getOrdinal(pod)-getStartOrdinal(set)] = pod
		} else if getOrdinal(pod) >= 0 {
			condemned = append(condemned, pod)
		}
	}
	start, end := getStartOrdinal(set), getEndOrdinal(set)
	for ord := start; ord <= end; ord++ {
		if replicas[ord-start] == nil {
			replicas[ord-start] = newVersionedStatefulSetPod(currentSet, updateSet, currentRevision.Name, updateRevision.Name, ord)
		}
	}
	sort.Sort(descendingOrdinal(condemned))

	var firstUnavailablePod *corev1.Pod
	unavailable := 0
	for _, p := range replicas {
		if isUnavailable(p, minReady) {
			unavailable++
			if firstUnavailablePod == nil {
				firstUnavailablePod = p
			}
		}
	}
	for i := len(condemned) - 1; i >= 0; i-- {
		if isUnavailable(condemned[i], minReady) {
			unavailable++
			if firstUnavailablePod == nil {
				firstUnavailablePod = condemned[i]
			}
		}
	}
	if unavailable > 0 {
		ssc.log.Debug("StatefulSet has unavailable Pods", "statefulSet", set.Namespace+"/"+set.Name,
			"unavailableReplicas", unavailable, "pod", firstUnavailablePod.Name)
	}
	if set.DeletionTimestamp != nil {
		return &status, nil
	}

	monotonic := !allowsBurst(set)
	done := func(err error) (*appsv1.StatefulSetStatus, error) {
		updateStatus(&status, minReady, currentRevision, updateRevision, replicas, condemned)
		return &status, err
	}
	if shouldExit, err := runForAll(replicas, func(i int) (bool, error) {
		return ssc.processReplica(ctx, set, updateSet, monotonic, replicas, i)
	}, monotonic); shouldExit || err != nil {
		return done(err)
	}
	// The claims of condemned pods get the references of a scale-down.
	if shouldExit, err := runForAll(condemned, func(i int) (bool, error) {
		if match, err := ssc.podControl.ClaimsMatchRetentionPolicy(ctx, updateSet, condemned[i]); err != nil {
			return true, err
		} else if !match {
			if err := ssc.podControl.UpdatePodClaimForRetentionPolicy(ctx, updateSet, condemned[i]); err != nil {
				return true, err
			}
		}
		return false, nil
	}, monotonic); shouldExit || err != nil {
		return done(err)
	}
	// Every replica is Running and Available (monotonic): scale down.
	if shouldExit, err := runForAll(condemned, func(i int) (bool, error) {
		return ssc.processCondemned(ctx, set, firstUnavailablePod, monotonic, condemned, i)
	}, monotonic); shouldExit || err != nil {
		return done(err)
	}
	updateStatus(&status, minReady, currentRevision, updateRevision, replicas, condemned)

	// OnDelete: pods are updated when a user deletes them.
	if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return &status, nil
	}
	return ssc.updateStatefulSetAfterInvariantEstablished(ctx, set, replicas, updateRevision, status)
}

// updateStatefulSetAfterInvariantEstablished is the rolling update: at
// most maxUnavailable replicas unavailable at a time, the pods at or above
// the partition not at the update revision are deleted (to be recreated at
// it), highest ordinal first.
func (ssc *defaultStatefulSetControl) updateStatefulSetAfterInvariantEstablished(ctx context.Context, set *appsv1.StatefulSet, replicas []*corev1.Pod, updateRevision *appsv1.ControllerRevision, status appsv1.StatefulSetStatus) (*appsv1.StatefulSetStatus, error) {
	key := set.Namespace + "/" + set.Name
	updateMin, maxUnavailable := 0, 1
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if ru.Partition != nil {
			updateMin = int(*ru.Partition)
		}
		var err error
		if maxUnavailable, err = getStatefulSetMaxUnavailable(ru.MaxUnavailable, replicasOf(set)); err != nil {
			return &status, err
		}
	}
	unavailablePods := 0
	for _, p := range replicas {
		if isUnavailable(p, set.Spec.MinReadySeconds) {
			unavailablePods++
		}
	}
	if unavailablePods > maxUnavailable {
		ssc.log.Debug("StatefulSet found unavailablePods, more than the allowed maxUnavailable", "statefulSet", key,
			"unavailablePods", unavailablePods, "maxUnavailable", maxUnavailable)
		return &status, nil
	}
	podsToDelete := maxUnavailable - unavailablePods
	deleted := 0
	for target := len(replicas) - 1; target >= updateMin && deleted < podsToDelete; target-- {
		if getPodRevision(replicas[target]) != updateRevision.Name && !isTerminating(replicas[target]) {
			ssc.log.Info("StatefulSet terminating Pod for update", "statefulSet", key, "pod", replicas[target].Name)
			if err := ssc.podControl.DeleteStatefulPod(ctx, set, replicas[target]); err != nil && !rest.IsNotFound(err) {
				return &status, err
			}
			deleted++
			status.CurrentReplicas--
		}
	}
	return &status, nil
}

// updateStatefulSetStatus writes status unless it says nothing new,
// completing a finished rolling update first.
func (ssc *defaultStatefulSetControl) updateStatefulSetStatus(ctx context.Context, set *appsv1.StatefulSet, status *appsv1.StatefulSetStatus) error {
	completeRollingUpdate(set, status)
	if !inconsistentStatus(set, status) {
		return nil
	}
	return ssc.statusUpdater.UpdateStatefulSetStatus(ctx, metav1.DeepCopy(set), status)
}
