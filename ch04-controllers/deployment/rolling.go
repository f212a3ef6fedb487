package deployment

import (
	"context"
	"fmt"
	"sort"

	"kubik/ch01-apiserver/api/appsv1"
)

// rolloutRolling is one step of a RollingUpdate: scale the new ReplicaSet
// up as far as maxSurge allows, else scale old ones down as far as
// maxUnavailable allows; once complete, clean up old ReplicaSets.
func (dc *DeploymentController) rolloutRolling(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := dc.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	allRSs := append(oldRSs, newRS)

	scaledUp, err := dc.reconcileNewReplicaSet(ctx, allRSs, newRS, d)
	if err != nil {
		return err
	}
	if scaledUp {
		return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	scaledDown, err := dc.reconcileOldReplicaSets(ctx, allRSs, FilterActiveReplicaSets(oldRSs), newRS, d)
	if err != nil {
		return err
	}
	if scaledDown {
		return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if DeploymentComplete(d, &d.Status) {
		if err := dc.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return dc.syncRolloutStatus(ctx, allRSs, newRS, d)
}

func (dc *DeploymentController) reconcileNewReplicaSet(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	if *newRS.Spec.Replicas == *d.Spec.Replicas {
		return false, nil
	}
	if *newRS.Spec.Replicas > *d.Spec.Replicas {
		scaled, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, newRS, *d.Spec.Replicas, d)
		return scaled, err
	}
	n, err := NewRSNewReplicas(d, allRSs, newRS)
	if err != nil {
		return false, err
	}
	scaled, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, newRS, n, d)
	return scaled, err
}

// reconcileOldReplicaSets scales old ReplicaSets down by at most
//
//	maxScaledDown = allPods - minAvailable - newRSUnavailable
//
// first taking their unhealthy pods (they cost no availability), then
// available ones while more than minAvailable remain.
func (dc *DeploymentController) reconcileOldReplicaSets(ctx context.Context, allRSs, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	if GetReplicaCountForReplicaSets(oldRSs) == 0 {
		return false, nil // nothing to scale down
	}
	allPodsCount := GetReplicaCountForReplicaSets(allRSs)
	minAvailable := *d.Spec.Replicas - MaxUnavailable(d)
	newRSUnavailablePodCount := *newRS.Spec.Replicas - newRS.Status.AvailableReplicas
	maxScaledDown := allPodsCount - minAvailable - newRSUnavailablePodCount
	if maxScaledDown <= 0 {
		return false, nil
	}
	oldRSs, cleanupCount, err := dc.cleanupUnhealthyReplicas(ctx, oldRSs, d, maxScaledDown)
	if err != nil {
		return false, nil
	}
	allRSs = append(oldRSs, newRS)
	scaledDownCount, err := dc.scaleDownOldReplicaSetsForRollingUpdate(ctx, allRSs, oldRSs, d)
	if err != nil {
		return false, nil
	}
	return cleanupCount+scaledDownCount > 0, nil
}

// cleanupUnhealthyReplicas scales old ReplicaSets down by their unavailable
// pods, oldest first (the ReplicaSet deletes not-ready pods first).
func (dc *DeploymentController) cleanupUnhealthyReplicas(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment, maxCleanupCount int32) ([]*appsv1.ReplicaSet, int32, error) {
	sort.Sort(ReplicaSetsByCreationTimestamp(oldRSs))
	total := int32(0)
	for i, rs := range oldRSs {
		if total >= maxCleanupCount {
			break
		}
		if *rs.Spec.Replicas == 0 || *rs.Spec.Replicas == rs.Status.AvailableReplicas {
			continue // no unhealthy replicas
		}
		n := min(maxCleanupCount-total, *rs.Spec.Replicas-rs.Status.AvailableReplicas)
		newCount := *rs.Spec.Replicas - n
		if newCount > *rs.Spec.Replicas {
			return nil, 0, fmt.Errorf("when cleaning up unhealthy replicas, got invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, *rs.Spec.Replicas, newCount)
		}
		_, updated, err := dc.scaleReplicaSetAndRecordEvent(ctx, rs, newCount, d)
		if err != nil {
			return nil, total, err
		}
		total += n
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

// scaleDownOldReplicaSetsForRollingUpdate scales old ReplicaSets down,
// oldest first, by the available pods above minAvailable.
func (dc *DeploymentController) scaleDownOldReplicaSetsForRollingUpdate(ctx context.Context, allRSs, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) (int32, error) {
	minAvailable := *d.Spec.Replicas - MaxUnavailable(d)
	available := GetAvailableReplicaCountForReplicaSets(allRSs)
	if available <= minAvailable {
		return 0, nil
	}
	sort.Sort(ReplicaSetsByCreationTimestamp(oldRSs))
	total := int32(0)
	want := available - minAvailable
	for _, rs := range oldRSs {
		if total >= want {
			break
		}
		if *rs.Spec.Replicas == 0 {
			continue
		}
		n := min(*rs.Spec.Replicas, want-total)
		newCount := *rs.Spec.Replicas - n
		if _, _, err := dc.scaleReplicaSetAndRecordEvent(ctx, rs, newCount, d); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}
