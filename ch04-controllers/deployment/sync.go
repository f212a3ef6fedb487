package deployment

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strconv"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
)

// syncStatusOnly only updates status (a Deployment being deleted).
func (dc *DeploymentController) syncStatusOnly(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return dc.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// sync handles a paused Deployment and a scaling event (spec.replicas
// changed mid-rollout): scale the ReplicaSets, no rollout step.
func (dc *DeploymentController) sync(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := dc.scale(ctx, d, newRS, oldRSs); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := dc.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return dc.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// getAllReplicaSetsAndSyncRevision returns the new ReplicaSet (created if
// createIfNotExisted and missing) and all old ones, and brings the
// revision annotations up to date.
func (dc *DeploymentController) getAllReplicaSetsAndSyncRevision(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, createIfNotExisted bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	_, allOldRSs := FindOldReplicaSets(d, rsList)
	newRS, err := dc.getNewReplicaSet(ctx, d, rsList, allOldRSs, createIfNotExisted)
	if err != nil {
		return nil, nil, err
	}
	return newRS, allOldRSs, nil
}

// getNewReplicaSet finds the ReplicaSet of d's current template and gives it
// the next revision, or creates it: named <deployment>-<hash>, the template
// and selector with the pod-template-hash label, the size the strategy
// allows now.
func (dc *DeploymentController) getNewReplicaSet(ctx context.Context, d *appsv1.Deployment, rsList, oldRSs []*appsv1.ReplicaSet, createIfNotExisted bool) (*appsv1.ReplicaSet, error) {
	existing := FindNewReplicaSet(d, rsList)
	newRevision := strconv.FormatInt(MaxRevision(oldRSs)+1, 10)

	if existing != nil {
		rsCopy := metav1.DeepCopy(existing)
		annotationsUpdated := SetNewReplicaSetAnnotations(d, rsCopy, newRevision, true)
		if annotationsUpdated || rsCopy.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
			rsCopy.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			return rest.Update(ctx, dc.client, rsCopy)
		}
		// The Deployment's revision is the new ReplicaSet's.
		needsUpdate := SetDeploymentRevision(d, rsCopy.Annotations[appsv1.RevisionAnnotation])
		if cond := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing); HasProgressDeadline(d) && cond == nil {
			msg := fmt.Sprintf("Found new replica set %q", rsCopy.Name)
			SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, FoundNewRSReason, msg))
			needsUpdate = true
		}
		if needsUpdate {
			if err := dc.updateStatus(ctx, d); err != nil {
				return nil, err
			}
		}
		return rsCopy, nil
	}
	if !createIfNotExisted {
		return nil, nil
	}

	template := metav1.DeepCopy(&d.Spec.Template)
	hash := controller.ComputeHash(template, d.Status.CollisionCount)
	template.Labels = maps.Clone(d.Spec.Template.Labels)
	if template.Labels == nil {
		template.Labels = map[string]string{}
	}
	template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	selector := metav1.DeepCopy(d.Spec.Selector)
	if selector.MatchLabels == nil {
		selector.MatchLabels = map[string]string{}
	}
	selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	zero := int32(0)
	newRS := &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name:            d.Name + "-" + hash, // deterministic: a retry finds the same
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{controller.NewControllerRef(&d.ObjectMeta, "apps/v1", "Deployment")},
			Labels:          template.Labels,
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: &zero, MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: *template},
	}
	newReplicasCount, err := NewRSNewReplicas(d, append(oldRSs, newRS), newRS)
	if err != nil {
		return nil, err
	}
	newRS.Spec.Replicas = &newReplicasCount
	SetNewReplicaSetAnnotations(d, newRS, newRevision, false)

	alreadyExists := false
	created, err := rest.Create(ctx, dc.client, newRS)
	switch {
	case rest.IsAlreadyExists(err):
		// A slow cache, or a hash collision with a ReplicaSet of another template.
		alreadyExists = true
		rs, getErr := rest.Get[appsv1.ReplicaSet](ctx, dc.client, newRS.Namespace, newRS.Name)
		if getErr != nil {
			return nil, getErr
		}
		if ref := metav1.GetControllerOf(&rs.ObjectMeta); ref != nil && ref.UID == d.UID && EqualIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
			created, err = rs, nil
			break
		}
		// A collision: bump collisionCount, which changes the hash, and retry.
		if d.Status.CollisionCount == nil {
			d.Status.CollisionCount = new(int32)
		}
		pre := *d.Status.CollisionCount
		*d.Status.CollisionCount++
		if dc.updateStatus(ctx, d) == nil {
			dc.log.Info("Found a hash collision for deployment - bumping collisionCount to resolve it",
				"deployment", d.Namespace+"/"+d.Name, "oldCollisionCount", pre, "newCollisionCount", *d.Status.CollisionCount)
		}
		return nil, err
	case err != nil && controller.IsNamespaceTerminating(err):
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", newRS.Name, err)
		if HasProgressDeadline(d) {
			SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, FailedRSCreateReason, msg))
			_ = dc.updateStatus(ctx, d)
		}
		dc.recorder.Eventf(dc.ref(d), corev1.EventTypeWarning, FailedRSCreateReason, "%s", msg)
		return nil, err
	}
	if !alreadyExists && newReplicasCount > 0 {
		dc.recorder.Eventf(dc.ref(d), corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, newReplicasCount)
	}
	needsUpdate := SetDeploymentRevision(d, newRevision)
	if !alreadyExists && HasProgressDeadline(d) {
		msg := fmt.Sprintf("Created new replica set %q", created.Name)
		SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewReplicaSetReason, msg))
		needsUpdate = true
	}
	if needsUpdate {
		err = dc.updateStatus(ctx, d)
	}
	return created, err
}

// scale changes the ReplicaSets' sizes after spec.replicas changed. With one
// active ReplicaSet it gets the new size; mid-rollout (several active) the
// difference is shared in proportion to their sizes, largest first, so the
// rollout's ratio of old to new is kept.
func (dc *DeploymentController) scale(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	if active := FindActiveOrLatest(newRS, oldRSs); active != nil {
		if *active.Spec.Replicas == *d.Spec.Replicas {
			return nil
		}
		_, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, active, *d.Spec.Replicas, d)
		return err
	}
	// The new ReplicaSet is complete: old ones go to zero (after an adoption).
	if IsSaturated(d, newRS) {
		for _, old := range FilterActiveReplicaSets(oldRSs) {
			if _, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, old, 0, d); err != nil {
				return err
			}
		}
		return nil
	}
	if !IsRollingUpdate(d) {
		return nil
	}
	allRSs := FilterActiveReplicaSets(append(oldRSs, newRS))
	allRSsReplicas := GetReplicaCountForReplicaSets(allRSs)
	allowedSize := int32(0)
	if *d.Spec.Replicas > 0 {
		allowedSize = *d.Spec.Replicas + MaxSurge(d)
	}
	toAdd := allowedSize - allRSsReplicas
	var op string
	switch {
	case toAdd > 0:
		sort.Sort(ReplicaSetsBySizeNewer(allRSs))
		op = "up"
	case toAdd < 0:
		sort.Sort(ReplicaSetsBySizeOlder(allRSs))
		op = "down"
	}
	added := int32(0)
	nameToSize := map[string]int32{}
	for _, rs := range allRSs {
		if toAdd != 0 {
			p := GetProportion(rs, d, toAdd, added)
			nameToSize[rs.Name] = *rs.Spec.Replicas + p
			added += p
		} else {
			nameToSize[rs.Name] = *rs.Spec.Replicas
		}
	}
	for i, rs := range allRSs {
		if i == 0 && toAdd != 0 { // leftovers to the largest
			nameToSize[rs.Name] = max(nameToSize[rs.Name]+toAdd-added, 0)
		}
		if _, _, err := dc.scaleReplicaSet(ctx, rs, nameToSize[rs.Name], d, op); err != nil {
			return err
		}
	}
	return nil
}

func (dc *DeploymentController) scaleReplicaSetAndRecordEvent(ctx context.Context, rs *appsv1.ReplicaSet, newScale int32, d *appsv1.Deployment) (bool, *appsv1.ReplicaSet, error) {
	if *rs.Spec.Replicas == newScale {
		return false, rs, nil
	}
	op := "down"
	if *rs.Spec.Replicas < newScale {
		op = "up"
	}
	return dc.scaleReplicaSet(ctx, rs, newScale, d, op)
}

// scaleReplicaSet sets rs's size and its desired/max-replicas annotations;
// the event is "Scaled up replica set web-5d78c9b4f8 from 1 to 3".
func (dc *DeploymentController) scaleReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet, newScale int32, d *appsv1.Deployment, op string) (bool, *appsv1.ReplicaSet, error) {
	sizeNeedsUpdate := *rs.Spec.Replicas != newScale
	maxReplicas := *d.Spec.Replicas + MaxSurge(d)
	if !sizeNeedsUpdate && !ReplicasAnnotationsNeedUpdate(rs, *d.Spec.Replicas, maxReplicas) {
		return false, rs, nil
	}
	oldScale := *rs.Spec.Replicas
	rsCopy := metav1.DeepCopy(rs)
	rsCopy.Spec.Replicas = &newScale
	SetReplicasAnnotations(rsCopy, *d.Spec.Replicas, maxReplicas)
	updated, err := rest.Update(ctx, dc.client, rsCopy)
	if err != nil {
		return false, rs, err
	}
	*rs = *updated // the caller's lists see the new size
	if sizeNeedsUpdate {
		dc.recorder.Eventf(dc.ref(d), corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", op, rs.Name, oldScale, newScale)
	}
	return sizeNeedsUpdate, rs, nil
}

// cleanupDeployment deletes the oldest old ReplicaSets beyond
// revisionHistoryLimit — only empty ones the ReplicaSet controller has
// caught up with.
func (dc *DeploymentController) cleanupDeployment(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) error {
	if !HasRevisionHistoryLimit(d) {
		return nil
	}
	var cleanable []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	diff := int32(len(cleanable)) - *d.Spec.RevisionHistoryLimit
	if diff <= 0 {
		return nil
	}
	sort.Sort(ReplicaSetsByRevision(cleanable))
	for _, rs := range cleanable[:diff] {
		if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		dc.log.Debug("Trying to cleanup replica set for deployment", "replicaSet", rs.Name, "deployment", d.Name)
		if err := rest.Delete[appsv1.ReplicaSet](ctx, dc.client, rs.Namespace, rs.Name, nil); err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// syncDeploymentStatus writes the status computed from the ReplicaSets.
func (dc *DeploymentController) syncDeploymentStatus(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	newStatus := calculateStatus(allRSs, newRS, d)
	if reflect.DeepEqual(d.Status, newStatus) {
		return nil
	}
	d.Status = newStatus
	return dc.updateStatus(ctx, d)
}

// calculateStatus sums the ReplicaSets' status and sets Available:
// True MinimumReplicasAvailable when at least replicas-maxUnavailable pods
// are available.
func calculateStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) appsv1.DeploymentStatus {
	available := GetAvailableReplicaCountForReplicaSets(allRSs)
	unavailable := max(GetReplicaCountForReplicaSets(allRSs)-available, 0)
	status := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            GetActualReplicaCountForReplicaSets(allRSs),
		UpdatedReplicas:     GetActualReplicaCountForReplicaSets([]*appsv1.ReplicaSet{newRS}),
		ReadyReplicas:       GetReadyReplicaCountForReplicaSets(allRSs),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
		TerminatingReplicas: GetTerminatingReplicaCountForReplicaSets(allRSs),
	}
	status.Conditions = append(status.Conditions, d.Status.Conditions...)
	if available >= *d.Spec.Replicas-MaxUnavailable(d) {
		SetDeploymentCondition(&status, *NewDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, MinimumReplicasAvailable, "Deployment has minimum availability."))
	} else {
		SetDeploymentCondition(&status, *NewDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, MinimumReplicasUnavailable, "Deployment does not have minimum availability."))
	}
	return status
}

// isScalingEvent: some active ReplicaSet was sized for a different
// spec.replicas (its desired-replicas annotation): the user scaled.
func (dc *DeploymentController) isScalingEvent(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) bool {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return false
	}
	for _, rs := range FilterActiveReplicaSets(append(oldRSs, newRS)) {
		if desired, ok := getIntAnnotation(rs, appsv1.DesiredReplicasAnnotation); ok && desired != *d.Spec.Replicas {
			return true
		}
	}
	return false
}
