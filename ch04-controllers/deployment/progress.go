package deployment

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
)

// syncRolloutStatus writes status with the Progressing condition:
//
//	complete             True  NewReplicaSetAvailable  `ReplicaSet "web-…" has successfully progressed.`
//	progress since last  True  ReplicaSetUpdated       `ReplicaSet "web-…" is progressing.`
//	no progress for progressDeadlineSeconds
//	                     False ProgressDeadlineExceeded `ReplicaSet "web-…" has timed out progressing.`
//
// and a ReplicaSet's ReplicaFailure copied up. `kubectl rollout status`
// fails on ProgressDeadlineExceeded.
func (dc *DeploymentController) syncRolloutStatus(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	newStatus := calculateStatus(allRSs, newRS, d)
	if !HasProgressDeadline(d) {
		RemoveDeploymentCondition(&newStatus, appsv1.DeploymentProgressing)
	}
	currentCond := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	isCompleteDeployment := newStatus.Replicas == newStatus.UpdatedReplicas && currentCond != nil && currentCond.Reason == NewRSAvailableReason
	if HasProgressDeadline(d) && !isCompleteDeployment {
		name := func(what string) string {
			if newRS != nil {
				return fmt.Sprintf("ReplicaSet %q %s", newRS.Name, what)
			}
			return fmt.Sprintf("Deployment %q %s", d.Name, what)
		}
		switch {
		case DeploymentComplete(d, &newStatus):
			SetDeploymentCondition(&newStatus, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewRSAvailableReason, name("has successfully progressed.")))
		case DeploymentProgressing(d, &newStatus):
			// Same reason, but lastUpdateTime must move: progress was made.
			cond := NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReplicaSetUpdatedReason, name("is progressing."))
			if currentCond != nil {
				if currentCond.Status == corev1.ConditionTrue {
					cond.LastTransitionTime = currentCond.LastTransitionTime
				}
				RemoveDeploymentCondition(&newStatus, appsv1.DeploymentProgressing)
			}
			SetDeploymentCondition(&newStatus, *cond)
		case DeploymentTimedOut(d, &newStatus):
			SetDeploymentCondition(&newStatus, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, TimedOutReason, name("has timed out progressing.")))
		}
	}
	if failures := getReplicaFailures(allRSs, newRS); len(failures) > 0 {
		SetDeploymentCondition(&newStatus, failures[0])
	} else {
		RemoveDeploymentCondition(&newStatus, appsv1.DeploymentReplicaFailure)
	}
	if reflect.DeepEqual(d.Status, newStatus) {
		dc.requeueStuckDeployment(d, newStatus)
		return nil
	}
	d.Status = newStatus
	return dc.updateStatus(ctx, d)
}

// getReplicaFailures: the new ReplicaSet's ReplicaFailure conditions, else
// the old ones'.
func getReplicaFailures(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []appsv1.DeploymentCondition {
	collect := func(rss ...*appsv1.ReplicaSet) []appsv1.DeploymentCondition {
		var out []appsv1.DeploymentCondition
		for _, rs := range rss {
			if rs == nil {
				continue
			}
			for _, c := range rs.Status.Conditions {
				if c.Type == appsv1.ReplicaSetReplicaFailure {
					out = append(out, ReplicaSetToDeploymentCondition(c))
				}
			}
		}
		return out
	}
	if c := collect(newRS); len(c) > 0 {
		return c
	}
	return collect(allRSs...)
}

// requeueStuckDeployment looks at a Deployment again when its progress
// deadline would pass, so a stuck rollout times out without any event.
// Returns the delay (-1: none).
func (dc *DeploymentController) requeueStuckDeployment(d *appsv1.Deployment, newStatus appsv1.DeploymentStatus) time.Duration {
	cur := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if !HasProgressDeadline(d) || cur == nil {
		return -1
	}
	if DeploymentComplete(d, &newStatus) || cur.Reason == TimedOutReason {
		return -1
	}
	after := cur.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(nowFn())
	if after < time.Second {
		dc.queue.AddRateLimited(dc.key(d))
		return 0
	}
	dc.enqueueAfter(d, after+time.Second)
	return after
}
