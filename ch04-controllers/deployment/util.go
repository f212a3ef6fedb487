package deployment

// The bookkeeping of rollouts: conditions and their reasons, the
// progress deadline. Upstream: pkg/controller/deployment/util/deployment_util.go.

import (
	"math"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// Reasons of the Progressing and Available conditions.
const (
	ReplicaSetUpdatedReason    = "ReplicaSetUpdated"
	FailedRSCreateReason       = "ReplicaSetCreateError"
	NewReplicaSetReason        = "NewReplicaSetCreated"
	FoundNewRSReason           = "FoundNewReplicaSet"
	NewRSAvailableReason       = "NewReplicaSetAvailable"
	TimedOutReason             = "ProgressDeadlineExceeded"
	PausedDeployReason         = "DeploymentPaused"
	ResumedDeployReason        = "DeploymentResumed"
	MinimumReplicasAvailable   = "MinimumReplicasAvailable"
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)

// maxRevHistoryLengthInChars caps the revision-history annotation.
const maxRevHistoryLengthInChars = 2000

// nowFn is the clock of the progress deadline (tests move it).
var nowFn = time.Now

// NewDeploymentCondition makes a condition stamped now.
func NewDeploymentCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string) *appsv1.DeploymentCondition {
	now := metav1.NewTime(nowFn())
	return &appsv1.DeploymentCondition{Type: t, Status: status, LastUpdateTime: now, LastTransitionTime: now,
		Reason: reason, Message: message}
}

// GetDeploymentCondition returns a copy of the condition of type t, or nil.
func GetDeploymentCondition(s appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range s.Conditions {
		if c := s.Conditions[i]; c.Type == t {
			return &c
		}
	}
	return nil
}

// SetDeploymentCondition adds or replaces the condition of its type; a
// condition with the same status and reason is left alone, and the
// transition time is kept when only the reason changes.
func SetDeploymentCondition(s *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := GetDeploymentCondition(*s, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	RemoveDeploymentCondition(s, c.Type)
	s.Conditions = append(s.Conditions, c)
}

// RemoveDeploymentCondition removes the condition of type t.
func RemoveDeploymentCondition(s *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	var out []appsv1.DeploymentCondition
	for _, c := range s.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	s.Conditions = out
}

// ReplicaSetToDeploymentCondition promotes a ReplicaSet's ReplicaFailure.
func ReplicaSetToDeploymentCondition(c appsv1.ReplicaSetCondition) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: appsv1.DeploymentConditionType(c.Type), Status: c.Status,
		LastTransitionTime: c.LastTransitionTime, LastUpdateTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message}
}

// HasProgressDeadline: progressDeadlineSeconds is set (and not "never").
func HasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// HasRevisionHistoryLimit: revisionHistoryLimit is set (and not "all").
func HasRevisionHistoryLimit(d *appsv1.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}

// DeploymentComplete: every desired pod is updated and available, no old
// pods are left, and the controller has seen the latest spec.
func DeploymentComplete(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	return s.UpdatedReplicas == *d.Spec.Replicas && s.Replicas == *d.Spec.Replicas &&
		s.AvailableReplicas == *d.Spec.Replicas && s.ObservedGeneration >= d.Generation
}

// DeploymentProgressing: compared with the status last written, more pods
// are updated, ready or available, or fewer old pods remain.
func DeploymentProgressing(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	old := d.Status
	return s.UpdatedReplicas > old.UpdatedReplicas ||
		s.Replicas-s.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		s.ReadyReplicas > old.ReadyReplicas ||
		s.AvailableReplicas > old.AvailableReplicas
}

// DeploymentTimedOut: no progress for progressDeadlineSeconds since the
// Progressing condition was last updated.
func DeploymentTimedOut(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	if !HasProgressDeadline(d) {
		return false
	}
	c := GetDeploymentCondition(*s, appsv1.DeploymentProgressing)
	if c == nil || c.Reason == NewRSAvailableReason {
		return false
	}
	if c.Reason == TimedOutReason {
		return true
	}
	delta := time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
	return c.LastUpdateTime.Add(delta).Before(nowFn())
}
