package replicaset

import (
	"context"
	"reflect"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch04-controllers/controller"
)

// calculateStatus counts the ReplicaSet's pods: all of them (replicas),
// those carrying every label of the template (fullyLabeledReplicas), the
// ready ones, the available ones (ready for minReadySeconds) and, apart,
// the ones being deleted (terminatingReplicas). A failed
// create or delete sets the ReplicaFailure condition (reason FailedCreate or
// FailedDelete, the error as message); a sync without error removes it.
func calculateStatus(rs *appsv1.ReplicaSet, filteredPods, terminatingPods []*corev1.Pod, manageReplicasErr error) appsv1.ReplicaSetStatus {
	newStatus := rs.Status
	templateLabel := selection.SelectorFromSet(rs.Spec.Template.Labels)
	now := metav1.Now().Time
	var fullyLabeled, ready, available int32
	for _, p := range filteredPods {
		if templateLabel.Matches(p.Labels) {
			fullyLabeled++
		}
		if controller.IsPodReady(p) {
			ready++
			if controller.IsPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	failureCond := GetCondition(rs.Status, appsv1.ReplicaSetReplicaFailure)
	if manageReplicasErr != nil && failureCond == nil {
		var reason string
		if diff := len(filteredPods) - int(replicas(rs)); diff < 0 {
			reason = "FailedCreate"
		} else if diff > 0 {
			reason = "FailedDelete"
		}
		SetCondition(&newStatus, NewReplicaSetCondition(appsv1.ReplicaSetReplicaFailure, corev1.ConditionTrue, reason, manageReplicasErr.Error()))
	} else if manageReplicasErr == nil && failureCond != nil {
		RemoveCondition(&newStatus, appsv1.ReplicaSetReplicaFailure)
	}
	newStatus.Replicas = int32(len(filteredPods))
	newStatus.FullyLabeledReplicas = fullyLabeled
	newStatus.ReadyReplicas = ready
	newStatus.AvailableReplicas = available
	terminating := int32(len(terminatingPods))
	newStatus.TerminatingReplicas = &terminating
	return newStatus
}

// updateReplicaSetStatus writes newStatus (and observedGeneration) unless
// nothing changed; on a conflict it reads the ReplicaSet again and retries
// once.
func updateReplicaSetStatus(ctx context.Context, c Source, rs *appsv1.ReplicaSet, newStatus appsv1.ReplicaSetStatus) (*appsv1.ReplicaSet, error) {
	if rs.Status.Replicas == newStatus.Replicas &&
		rs.Status.FullyLabeledReplicas == newStatus.FullyLabeledReplicas &&
		rs.Status.ReadyReplicas == newStatus.ReadyReplicas &&
		rs.Status.AvailableReplicas == newStatus.AvailableReplicas &&
		equalPtr(rs.Status.TerminatingReplicas, newStatus.TerminatingReplicas) &&
		rs.Generation == rs.Status.ObservedGeneration &&
		reflect.DeepEqual(rs.Status.Conditions, newStatus.Conditions) {
		return rs, nil
	}
	newStatus.ObservedGeneration = rs.Generation
	var updateErr error
	for i := 0; ; i++ {
		rs.Status = newStatus
		updated, err := c.UpdateStatus(ctx, rs)
		if err == nil {
			return updated, nil
		}
		updateErr = err
		if i >= statusUpdateRetries {
			break
		}
		if rs, err = c.Fetch(ctx, rs.Namespace, rs.Name); err != nil {
			return nil, err
		}
	}
	return nil, updateErr
}

func equalPtr(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// NewReplicaSetCondition makes a condition stamped now.
func NewReplicaSetCondition(t appsv1.ReplicaSetConditionType, status corev1.ConditionStatus, reason, msg string) appsv1.ReplicaSetCondition {
	return appsv1.ReplicaSetCondition{Type: t, Status: status, LastTransitionTime: metav1.Now(), Reason: reason, Message: msg}
}

// GetCondition returns the condition of type t, or nil.
func GetCondition(s appsv1.ReplicaSetStatus, t appsv1.ReplicaSetConditionType) *appsv1.ReplicaSetCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// SetCondition adds or replaces the condition of its type, keeping the
// transition time if the status did not change.
func SetCondition(s *appsv1.ReplicaSetStatus, cond appsv1.ReplicaSetCondition) {
	cur := GetCondition(*s, cond.Type)
	if cur != nil && cur.Status == cond.Status && cur.Reason == cond.Reason {
		return
	}
	RemoveCondition(s, cond.Type)
	s.Conditions = append(s.Conditions, cond)
}

// RemoveCondition removes the condition of type t.
func RemoveCondition(s *appsv1.ReplicaSetStatus, t appsv1.ReplicaSetConditionType) {
	var out []appsv1.ReplicaSetCondition
	for _, c := range s.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	s.Conditions = out
}
