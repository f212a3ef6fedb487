// Package metav1 holds the object metadata every Kubernetes kind shares:
// TypeMeta, ObjectMeta, ListMeta, Status, Table, WatchEvent and friends.
//
// Upstream: k8s.io/apimachinery/pkg/apis/meta/v1. Field names, JSON names and
// protobuf field numbers are upstream's, so the JSON on the wire is the same and
// a reader can grep upstream for any of them.
package metav1

import "encoding/json"

// Object is implemented by every top-level kind: anything with TypeMeta and
// ObjectMeta embedded (the methods are promoted from the embedded structs).
type Object interface {
	GetTypeMeta() *TypeMeta
	GetObjectMeta() *ObjectMeta
}

// TypeMeta is the "kind" and "apiVersion" pair at the top of every object.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"`
}

// GetTypeMeta lets every kind that embeds TypeMeta satisfy Object.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the "metadata" of every persisted object.
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	GenerateName               string               `json:"generateName,omitempty" protobuf:"bytes,2,opt,name=generateName"`
	Namespace                  string               `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	SelfLink                   string               `json:"selfLink,omitempty" protobuf:"bytes,4,opt,name=selfLink"`
	UID                        string               `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid,casttype=k8s.io/kubernetes/pkg/types.UID"`
	ResourceVersion            string               `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	Generation                 int64                `json:"generation,omitempty" protobuf:"varint,7,opt,name=generation"`
	CreationTimestamp          Time                 `json:"creationTimestamp,omitempty,omitzero" protobuf:"bytes,8,opt,name=creationTimestamp"`
	DeletionTimestamp          *Time                `json:"deletionTimestamp,omitempty" protobuf:"bytes,9,opt,name=deletionTimestamp"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty" protobuf:"varint,10,opt,name=deletionGracePeriodSeconds"`
	Labels                     map[string]string    `json:"labels,omitempty" protobuf:"bytes,11,rep,name=labels"`
	Annotations                map[string]string    `json:"annotations,omitempty" protobuf:"bytes,12,rep,name=annotations"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty" patchStrategy:"merge" patchMergeKey:"uid" protobuf:"bytes,13,rep,name=ownerReferences"`
	Finalizers                 []string             `json:"finalizers,omitempty" patchStrategy:"merge" protobuf:"bytes,14,rep,name=finalizers"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty" protobuf:"bytes,17,rep,name=managedFields"`
}

// GetObjectMeta lets every kind that embeds ObjectMeta satisfy Object.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// OwnerReference points from a dependent to its owner (garbage collection, adoption).
type OwnerReference struct {
	APIVersion         string `json:"apiVersion" protobuf:"bytes,5,opt,name=apiVersion"`
	Kind               string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	Name               string `json:"name" protobuf:"bytes,3,opt,name=name"`
	UID                string `json:"uid" protobuf:"bytes,4,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	Controller         *bool  `json:"controller,omitempty" protobuf:"varint,6,opt,name=controller"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty" protobuf:"varint,7,opt,name=blockOwnerDeletion"`
}

// ManagedFieldsEntry records which field manager set which fields (server-side apply).
type ManagedFieldsEntry struct {
	Manager     string    `json:"manager,omitempty" protobuf:"bytes,1,opt,name=manager"`
	Operation   string    `json:"operation,omitempty" protobuf:"bytes,2,opt,name=operation,casttype=ManagedFieldsOperationType"`
	APIVersion  string    `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
	Time        *Time     `json:"time,omitempty" protobuf:"bytes,4,opt,name=time"`
	FieldsType  string    `json:"fieldsType,omitempty" protobuf:"bytes,6,opt,name=fieldsType"`
	FieldsV1    *FieldsV1 `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
	Subresource string    `json:"subresource,omitempty" protobuf:"bytes,8,opt,name=subresource"`
}

// FieldsV1 is the raw "fieldsV1" set of a managed fields entry (a JSON trie).
type FieldsV1 struct {
	Raw json.RawMessage `json:"-" protobuf:"bytes,1,opt,name=Raw"`
}

func (f FieldsV1) MarshalJSON() ([]byte, error) {
	if f.Raw == nil {
		return []byte("null"), nil
	}
	return f.Raw, nil
}

func (f *FieldsV1) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		f.Raw = nil
		return nil
	}
	f.Raw = append(f.Raw[:0], b...)
	return nil
}

// ListMeta is the "metadata" of a list: the resourceVersion it was read at and
// the continue token of a paginated list.
type ListMeta struct {
	SelfLink           string `json:"selfLink,omitempty" protobuf:"bytes,1,opt,name=selfLink"`
	ResourceVersion    string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
	Continue           string `json:"continue,omitempty" protobuf:"bytes,3,opt,name=continue"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty" protobuf:"bytes,4,opt,name=remainingItemCount"`
}

// List is the generic list the server writes: kind "<Kind>List" and the items.
type List struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Items    []Object `json:"items"`
}

// LabelSelector is the structured form of a label query.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement is one "key operator values" term.
type LabelSelectorRequirement struct {
	Key      string   `json:"key" patchStrategy:"merge" patchMergeKey:"key" protobuf:"bytes,1,opt,name=key"`
	Operator string   `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=LabelSelectorOperator"`
	Values   []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// Label selector operators.
const (
	LabelSelectorOpIn           = "In"
	LabelSelectorOpNotIn        = "NotIn"
	LabelSelectorOpExists       = "Exists"
	LabelSelectorOpDoesNotExist = "DoesNotExist"
)

// Condition is the generic condition (used by Lease-free kinds and by ours where upstream uses it).
type Condition struct {
	Type               string `json:"type" protobuf:"bytes,1,opt,name=type"`
	Status             string `json:"status" protobuf:"bytes,2,opt,name=status"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	LastTransitionTime Time   `json:"lastTransitionTime" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string `json:"reason" protobuf:"bytes,5,opt,name=reason"`
	Message            string `json:"message" protobuf:"bytes,6,opt,name=message"`
}

// DeleteOptions is the body of a DELETE.
type DeleteOptions struct {
	TypeMeta           `json:",inline"`
	GracePeriodSeconds *int64         `json:"gracePeriodSeconds,omitempty" protobuf:"varint,1,opt,name=gracePeriodSeconds"`
	Preconditions      *Preconditions `json:"preconditions,omitempty" protobuf:"bytes,2,opt,name=preconditions"`
	OrphanDependents   *bool          `json:"orphanDependents,omitempty" protobuf:"varint,3,opt,name=orphanDependents"`
	PropagationPolicy  *string        `json:"propagationPolicy,omitempty" protobuf:"varint,4,opt,name=propagationPolicy"`
	DryRun             []string       `json:"dryRun,omitempty" protobuf:"bytes,5,rep,name=dryRun"`
}

// Preconditions must be fulfilled before a delete is carried out.
type Preconditions struct {
	UID             *string `json:"uid,omitempty" protobuf:"bytes,1,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	ResourceVersion *string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
}

// Deletion propagation policies.
const (
	DeletePropagationOrphan     = "Orphan"
	DeletePropagationBackground = "Background"
	DeletePropagationForeground = "Foreground"
)

// Well-known finalizers used by garbage collection.
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// PartialObjectMetadata is an object reduced to its metadata (Table rows, metadata-only lists).
type PartialObjectMetadata struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
}

// WatchEvent is one line of a watch stream.
type WatchEvent struct {
	Type   string          `json:"type" protobuf:"bytes,1,opt,name=type"`
	Object json.RawMessage `json:"object" protobuf:"bytes,2,opt,name=object"`
}

// Watch event types.
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
	Bookmark = "BOOKMARK"
	Error    = "ERROR"
)

// InitialEventsAnnotationKey marks the bookmark that ends the initial events of a streaming list.
const InitialEventsAnnotationKey = "k8s.io/initial-events-end"
