package corev1

import "kubik/ch01-apiserver/api/metav1"

// ReplicationController is the ReplicaSet's predecessor: it keeps
// spec.replicas pods matching an equality-only selector running. Still
// served by every apiserver (and listed by kube-scheduler, whose spreading
// counts the pods of a controller together); new workloads use Deployments.
type ReplicationController struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behaviour of the controller.
	Spec ReplicationControllerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the most recently observed status of the controller.
	Status ReplicationControllerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ReplicationControllerList is a list of ReplicationControllers.
type ReplicationControllerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ReplicationController `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ReplicationControllerSpec is the desired state of a ReplicationController.
type ReplicationControllerSpec struct {
	// Replicas is the number of desired pods (default 1).
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// MinReadySeconds is how long a new pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	// Selector: the labels pods must have to count (defaults to the template's labels).
	Selector map[string]string `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector"`
	// Template is the pod created when too few pods match.
	Template *PodTemplateSpec `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// ReplicationControllerStatus is the observed state of a ReplicationController.
type ReplicationControllerStatus struct {
	// Replicas is the number of pods that match the selector.
	Replicas int32 `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	// FullyLabeledReplicas counts the pods that have the template's labels.
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty" protobuf:"varint,2,opt,name=fullyLabeledReplicas"`
	// ReadyReplicas counts the ready pods.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,4,opt,name=readyReplicas"`
	// AvailableReplicas counts the pods ready for at least minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty" protobuf:"varint,5,opt,name=availableReplicas"`
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// Conditions: ReplicaFailure.
	Conditions []ReplicationControllerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// ReplicationControllerConditionType is a condition of a ReplicationController.
type ReplicationControllerConditionType string

// ReplicationControllerReplicaFailure: a pod could not be created or deleted.
const ReplicationControllerReplicaFailure ReplicationControllerConditionType = "ReplicaFailure"

// ReplicationControllerCondition is one condition of a ReplicationController.
type ReplicationControllerCondition struct {
	// Type of the condition.
	Type ReplicationControllerConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=ReplicationControllerConditionType"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// LastTransitionTime is when the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase cause.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}
