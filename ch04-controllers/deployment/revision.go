package deployment

// Revisions and the annotations a Deployment puts on its ReplicaSets.
// Upstream: pkg/controller/deployment/util/deployment_util.go.

import (
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/metav1"
)

// Revision is the deployment.kubernetes.io/revision of an object (0 if none).
func Revision(m *metav1.ObjectMeta) (int64, error) {
	v, ok := m.Annotations[appsv1.RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// MaxRevision is the highest revision of the ReplicaSets.
func MaxRevision(rss []*appsv1.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		if v, err := Revision(&rs.ObjectMeta); err == nil && v > m {
			m = v
		}
	}
	return m
}

// SetDeploymentRevision sets the Deployment's revision annotation; true if
// it changed.
func SetDeploymentRevision(d *appsv1.Deployment, revision string) bool {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	if d.Annotations[appsv1.RevisionAnnotation] == revision {
		return false
	}
	d.Annotations[appsv1.RevisionAnnotation] = revision
	return true
}

// annotationsToSkip are never copied from a Deployment to its ReplicaSets.
var annotationsToSkip = map[string]bool{
	"kubectl.kubernetes.io/last-applied-configuration": true,
	appsv1.RevisionAnnotation:                          true,
	appsv1.RevisionHistoryAnnotation:                   true,
	appsv1.DesiredReplicasAnnotation:                   true,
	appsv1.MaxReplicasAnnotation:                       true,
	appsv1.DeprecatedRollbackTo:                        true,
}

// SetNewReplicaSetAnnotations copies the Deployment's annotations (the
// change-cause among them: `kubectl rollout history` shows it) to the new
// ReplicaSet and gives it newRevision. A ReplicaSet that had a revision
// before (a rollback brought its template back) remembers the old one in
// revision-history. A ReplicaSet about to be created also gets the
// desired-replicas and max-replicas annotations.
func SetNewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision string, exists bool) bool {
	changed := copyDeploymentAnnotationsToReplicaSet(d, rs)
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	oldRevision, ok := rs.Annotations[appsv1.RevisionAnnotation]
	// Compared as numbers: a fresh revision is never lower than the RS's own.
	oldRevisionInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return false
		}
		oldRevisionInt = 0
	}
	newRevisionInt, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldRevisionInt < newRevisionInt {
		rs.Annotations[appsv1.RevisionAnnotation] = newRevision
		changed = true
	}
	if ok && oldRevisionInt < newRevisionInt {
		history := rs.Annotations[appsv1.RevisionHistoryAnnotation]
		old := strings.Split(history, ",")
		if len(old[0]) == 0 {
			rs.Annotations[appsv1.RevisionHistoryAnnotation] = oldRevision
		} else {
			total := len(history) + len(oldRevision) + 1
			start := 0
			for total > maxRevHistoryLengthInChars && start < len(old) {
				total -= len(old[start]) + 1
				start++
			}
			if total <= maxRevHistoryLengthInChars {
				rs.Annotations[appsv1.RevisionHistoryAnnotation] = strings.Join(append(old[start:], oldRevision), ",")
			}
		}
	}
	if !exists && SetReplicasAnnotations(rs, *d.Spec.Replicas, *d.Spec.Replicas+MaxSurge(d)) {
		changed = true
	}
	return changed
}

func copyDeploymentAnnotationsToReplicaSet(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	for k, v := range d.Annotations {
		if annotationsToSkip[k] || rs.Annotations[k] == v {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// SetReplicasAnnotations records the Deployment's replicas and
// replicas+maxSurge on a ReplicaSet, for proportional scaling; true if
// something changed.
func SetReplicasAnnotations(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	d, m := strconv.Itoa(int(desired)), strconv.Itoa(int(maxReplicas))
	changed := rs.Annotations[appsv1.DesiredReplicasAnnotation] != d || rs.Annotations[appsv1.MaxReplicasAnnotation] != m
	rs.Annotations[appsv1.DesiredReplicasAnnotation] = d
	rs.Annotations[appsv1.MaxReplicasAnnotation] = m
	return changed
}

// ReplicasAnnotationsNeedUpdate: the two annotations differ from these.
func ReplicasAnnotationsNeedUpdate(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	return rs.Annotations[appsv1.DesiredReplicasAnnotation] != strconv.Itoa(int(desired)) ||
		rs.Annotations[appsv1.MaxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

func getIntAnnotation(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}
