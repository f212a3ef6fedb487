package deployment

// Orders of ReplicaSets. Upstream: pkg/controller/controller_utils.go and
// deployment_util.go.

import (
	"kubik/ch01-apiserver/api/appsv1"
)

// ReplicaSetsByCreationTimestamp: oldest first, then by name.
type ReplicaSetsByCreationTimestamp []*appsv1.ReplicaSet

func (o ReplicaSetsByCreationTimestamp) Len() int      { return len(o) }
func (o ReplicaSetsByCreationTimestamp) Swap(i, j int) { o[i], o[j] = o[j], o[i] }
func (o ReplicaSetsByCreationTimestamp) Less(i, j int) bool {
	if o[i].CreationTimestamp.Equal(o[j].CreationTimestamp.Time) {
		return o[i].Name < o[j].Name
	}
	return o[i].CreationTimestamp.Before(o[j].CreationTimestamp.Time)
}

// ReplicaSetsBySizeOlder: largest first, older first among equals
// (scaling down takes from old ones first).
type ReplicaSetsBySizeOlder []*appsv1.ReplicaSet

func (o ReplicaSetsBySizeOlder) Len() int      { return len(o) }
func (o ReplicaSetsBySizeOlder) Swap(i, j int) { o[i], o[j] = o[j], o[i] }
func (o ReplicaSetsBySizeOlder) Less(i, j int) bool {
	if *o[i].Spec.Replicas == *o[j].Spec.Replicas {
		return ReplicaSetsByCreationTimestamp(o).Less(i, j)
	}
	return *o[i].Spec.Replicas > *o[j].Spec.Replicas
}

// ReplicaSetsBySizeNewer: largest first, newer first among equals
// (scaling up gives to new ones first).
type ReplicaSetsBySizeNewer []*appsv1.ReplicaSet

func (o ReplicaSetsBySizeNewer) Len() int      { return len(o) }
func (o ReplicaSetsBySizeNewer) Swap(i, j int) { o[i], o[j] = o[j], o[i] }
func (o ReplicaSetsBySizeNewer) Less(i, j int) bool {
	if *o[i].Spec.Replicas == *o[j].Spec.Replicas {
		return ReplicaSetsByCreationTimestamp(o).Less(j, i)
	}
	return *o[i].Spec.Replicas > *o[j].Spec.Replicas
}

// ReplicaSetsByRevision: lowest revision first (the first to clean up).
type ReplicaSetsByRevision []*appsv1.ReplicaSet

func (o ReplicaSetsByRevision) Len() int      { return len(o) }
func (o ReplicaSetsByRevision) Swap(i, j int) { o[i], o[j] = o[j], o[i] }
func (o ReplicaSetsByRevision) Less(i, j int) bool {
	r1, err1 := Revision(&o[i].ObjectMeta)
	r2, err2 := Revision(&o[j].ObjectMeta)
	if err1 != nil || err2 != nil || r1 == r2 {
		return ReplicaSetsByCreationTimestamp(o).Less(i, j)
	}
	return r1 < r2
}
