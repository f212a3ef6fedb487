// Package appsv1 holds the apps/v1 kinds: Deployment, ReplicaSet, DaemonSet,
// StatefulSet and ControllerRevision.
//
// Upstream: k8s.io/api/apps/v1. Field names, JSON names, protobuf field numbers
// and strategic-merge-patch tags are upstream's.
package appsv1

import (
	"encoding/json"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
)

// Labels and annotations the apps controllers put on objects.
const (
	// ControllerRevisionHashLabelKey labels the pods of a DaemonSet or StatefulSet with their revision.
	ControllerRevisionHashLabelKey = "controller-revision-hash"
	// StatefulSetRevisionLabel is the StatefulSet name for the same label.
	StatefulSetRevisionLabel = ControllerRevisionHashLabelKey
	// DeprecatedRollbackTo is the annotation the old rollback API used.
	DeprecatedRollbackTo = "deprecated.deployment.rollback.to"
	// DeprecatedTemplateGeneration is the old DaemonSet template generation annotation.
	DeprecatedTemplateGeneration = "deprecated.daemonset.template.generation"
	// StatefulSetPodNameLabel labels every StatefulSet pod with its own name.
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"
	// PodIndexLabel labels every StatefulSet pod with its ordinal.
	PodIndexLabel = "apps.kubernetes.io/pod-index"
	// DefaultDeploymentUniqueLabelKey is added to a ReplicaSet's selector and pods by its Deployment.
	DefaultDeploymentUniqueLabelKey string = "pod-template-hash"
	// DefaultDaemonSetUniqueLabelKey is the label a DaemonSet adds to its pods.
	DefaultDaemonSetUniqueLabelKey = ControllerRevisionHashLabelKey
)

// Annotations the Deployment controller maintains (upstream keeps them in
// pkg/controller/deployment/util; the names are part of the wire format).
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	ChangeCauseAnnotation     = "kubernetes.io/change-cause"
)

// ---- Deployment ----

// Deployment declares the desired state of ReplicaSets and their pods.
type Deployment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behavior of the Deployment.
	Spec DeploymentSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the most recently observed status of the Deployment.
	Status DeploymentStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// DeploymentSpec is the specification of the desired behavior of a Deployment.
type DeploymentSpec struct {
	// Replicas is the number of desired pods (defaults to 1).
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// Selector selects the pods the Deployment owns; it must match the template's labels.
	Selector *metav1.LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	// Template describes the pods that will be created.
	Template corev1.PodTemplateSpec `json:"template" protobuf:"bytes,3,opt,name=template"`
	// Strategy is how existing pods are replaced by new ones.
	Strategy DeploymentStrategy `json:"strategy,omitempty" patchStrategy:"retainKeys" protobuf:"bytes,4,opt,name=strategy"`
	// MinReadySeconds is how long a new pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,5,opt,name=minReadySeconds"`
	// RevisionHistoryLimit is how many old ReplicaSets to keep for rollback (defaults to 10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`
	// Paused stops the controller from acting on template changes.
	Paused bool `json:"paused,omitempty" protobuf:"varint,7,opt,name=paused"`
	// ProgressDeadlineSeconds is how long a rollout may stall before it is reported failed (defaults to 600).
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty" protobuf:"varint,9,opt,name=progressDeadlineSeconds"`
}

// DeploymentStrategy describes how to replace existing pods with new ones.
type DeploymentStrategy struct {
	// Type is "Recreate" or "RollingUpdate" (the default).
	Type DeploymentStrategyType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type,casttype=DeploymentStrategyType"`
	// RollingUpdate holds the parameters of a rolling update.
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// DeploymentStrategyType is the kind of deployment strategy.
type DeploymentStrategyType string

const (
	// RecreateDeploymentStrategyType kills all existing pods before creating new ones.
	RecreateDeploymentStrategyType DeploymentStrategyType = "Recreate"
	// RollingUpdateDeploymentStrategyType replaces the old ReplicaSet with the new one gradually.
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// RollingUpdateDeployment holds the parameters of a rolling update.
type RollingUpdateDeployment struct {
	// MaxUnavailable is how many pods (or what percentage) may be unavailable during the update (defaults to 25%).
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`
	// MaxSurge is how many pods (or what percentage) may exist above the desired count (defaults to 25%).
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// DeploymentStatus is the most recently observed status of a Deployment.
type DeploymentStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// Replicas is the number of non-terminating pods targeted by this Deployment.
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"`
	// UpdatedReplicas is the number of non-terminating pods with the desired template.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty" protobuf:"varint,3,opt,name=updatedReplicas"`
	// ReadyReplicas is the number of pods with a Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,7,opt,name=readyReplicas"`
	// AvailableReplicas is the number of pods ready for at least minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty" protobuf:"varint,4,opt,name=availableReplicas"`
	// UnavailableReplicas is the number of pods still needed for 100% availability.
	UnavailableReplicas int32 `json:"unavailableReplicas,omitempty" protobuf:"varint,5,opt,name=unavailableReplicas"`
	// TerminatingReplicas is the number of terminating pods (alpha; nil when not tracked).
	TerminatingReplicas *int32 `json:"terminatingReplicas,omitempty" protobuf:"varint,9,opt,name=terminatingReplicas"`
	// Conditions are the latest observations of the Deployment's state.
	Conditions []DeploymentCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
	// CollisionCount is used to avoid pod-template-hash collisions.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,8,opt,name=collisionCount"`
}

// DeploymentConditionType names a Deployment condition.
type DeploymentConditionType string

const (
	// DeploymentAvailable means the Deployment has at least its minimum available pods.
	DeploymentAvailable DeploymentConditionType = "Available"
	// DeploymentProgressing means the rollout is making progress (or has completed).
	DeploymentProgressing DeploymentConditionType = "Progressing"
	// DeploymentReplicaFailure means a pod could not be created or deleted.
	DeploymentReplicaFailure DeploymentConditionType = "ReplicaFailure"
)

// DeploymentCondition describes the state of a Deployment at a certain point.
type DeploymentCondition struct {
	// Type of the condition.
	Type DeploymentConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=DeploymentConditionType"`
	// Status is "True", "False" or "Unknown".
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	// LastUpdateTime is the last time this condition was updated.
	LastUpdateTime metav1.Time `json:"lastUpdateTime,omitempty" protobuf:"bytes,6,opt,name=lastUpdateTime"`
	// LastTransitionTime is the last time the status changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,7,opt,name=lastTransitionTime"`
	// Reason is a machine-readable CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// DeploymentList is a list of Deployments.
type DeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Deployment `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ---- ReplicaSet ----

// ReplicaSet keeps a number of identical pods running.
type ReplicaSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behavior of the ReplicaSet.
	Spec ReplicaSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the most recently observed status of the ReplicaSet.
	Status ReplicaSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ReplicaSetList is a list of ReplicaSets.
type ReplicaSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ReplicaSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ReplicaSetSpec is the specification of a ReplicaSet.
type ReplicaSetSpec struct {
	// Replicas is the number of desired pods (defaults to 1).
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// MinReadySeconds is how long a new pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	// Selector selects the pods the ReplicaSet owns.
	Selector *metav1.LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	// Template describes the pods created when too few are running.
	Template corev1.PodTemplateSpec `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// ReplicaSetStatus is the most recently observed status of a ReplicaSet.
type ReplicaSetStatus struct {
	// Replicas is the most recently observed number of non-terminating pods.
	Replicas int32 `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	// FullyLabeledReplicas is the number of pods whose labels match the template's.
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty" protobuf:"varint,2,opt,name=fullyLabeledReplicas"`
	// ReadyReplicas is the number of pods with a Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,4,opt,name=readyReplicas"`
	// AvailableReplicas is the number of pods ready for at least minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty" protobuf:"varint,5,opt,name=availableReplicas"`
	// TerminatingReplicas is the number of terminating pods (alpha; nil when not tracked).
	TerminatingReplicas *int32 `json:"terminatingReplicas,omitempty" protobuf:"varint,7,opt,name=terminatingReplicas"`
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// Conditions are the latest observations of the ReplicaSet's state.
	Conditions []ReplicaSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// ReplicaSetConditionType names a ReplicaSet condition.
type ReplicaSetConditionType string

// ReplicaSetReplicaFailure means a pod could not be created or deleted.
const ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"

// ReplicaSetCondition describes the state of a ReplicaSet at a certain point.
type ReplicaSetCondition struct {
	// Type of the condition.
	Type ReplicaSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=ReplicaSetConditionType"`
	// Status is "True", "False" or "Unknown".
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	// LastTransitionTime is the last time the status changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a machine-readable CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ---- DaemonSet ----

// DaemonSet runs one copy of a pod on every (selected) node.
type DaemonSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behavior of the DaemonSet.
	Spec DaemonSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the most recently observed status of the DaemonSet.
	Status DaemonSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// DaemonSetList is a list of DaemonSets.
type DaemonSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []DaemonSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// DaemonSetSpec is the specification of a DaemonSet.
type DaemonSetSpec struct {
	// Selector selects the pods the DaemonSet owns.
	Selector *metav1.LabelSelector `json:"selector" protobuf:"bytes,1,opt,name=selector"`
	// Template describes the pod run on every node.
	Template corev1.PodTemplateSpec `json:"template" protobuf:"bytes,2,opt,name=template"`
	// UpdateStrategy is how existing pods are replaced by new ones.
	UpdateStrategy DaemonSetUpdateStrategy `json:"updateStrategy,omitempty" protobuf:"bytes,3,opt,name=updateStrategy"`
	// MinReadySeconds is how long a new pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	// RevisionHistoryLimit is how many old ControllerRevisions to keep (defaults to 10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`
}

// DaemonSetUpdateStrategy describes how DaemonSet pods are replaced.
type DaemonSetUpdateStrategy struct {
	// Type is "RollingUpdate" (the default) or "OnDelete".
	Type DaemonSetUpdateStrategyType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// RollingUpdate holds the parameters of a rolling update.
	RollingUpdate *RollingUpdateDaemonSet `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// DaemonSetUpdateStrategyType is the kind of DaemonSet update strategy.
type DaemonSetUpdateStrategyType string

const (
	// RollingUpdateDaemonSetStrategyType replaces old pods node by node.
	RollingUpdateDaemonSetStrategyType DaemonSetUpdateStrategyType = "RollingUpdate"
	// OnDeleteDaemonSetStrategyType replaces a pod only when it is deleted.
	OnDeleteDaemonSetStrategyType DaemonSetUpdateStrategyType = "OnDelete"
)

// RollingUpdateDaemonSet holds the parameters of a DaemonSet rolling update.
type RollingUpdateDaemonSet struct {
	// MaxUnavailable is how many nodes may lack an available pod during the update (defaults to 1).
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`
	// MaxSurge is how many nodes may run an extra new pod during the update (defaults to 0).
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// DaemonSetStatus is the most recently observed status of a DaemonSet.
type DaemonSetStatus struct {
	// CurrentNumberScheduled is the number of nodes running a daemon pod that should.
	CurrentNumberScheduled int32 `json:"currentNumberScheduled" protobuf:"varint,1,opt,name=currentNumberScheduled"`
	// NumberMisscheduled is the number of nodes running a daemon pod that should not.
	NumberMisscheduled int32 `json:"numberMisscheduled" protobuf:"varint,2,opt,name=numberMisscheduled"`
	// DesiredNumberScheduled is the number of nodes that should run a daemon pod.
	DesiredNumberScheduled int32 `json:"desiredNumberScheduled" protobuf:"varint,3,opt,name=desiredNumberScheduled"`
	// NumberReady is the number of nodes whose daemon pod is ready.
	NumberReady int32 `json:"numberReady" protobuf:"varint,4,opt,name=numberReady"`
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,5,opt,name=observedGeneration"`
	// UpdatedNumberScheduled is the number of nodes running the updated daemon pod.
	UpdatedNumberScheduled int32 `json:"updatedNumberScheduled,omitempty" protobuf:"varint,6,opt,name=updatedNumberScheduled"`
	// NumberAvailable is the number of nodes whose daemon pod is available.
	NumberAvailable int32 `json:"numberAvailable,omitempty" protobuf:"varint,7,opt,name=numberAvailable"`
	// NumberUnavailable is the number of nodes that should run an available daemon pod and do not.
	NumberUnavailable int32 `json:"numberUnavailable,omitempty" protobuf:"varint,8,opt,name=numberUnavailable"`
	// CollisionCount is used to avoid revision name collisions.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`
	// Conditions are the latest observations of the DaemonSet's state.
	Conditions []DaemonSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,10,rep,name=conditions"`
}

// DaemonSetConditionType names a DaemonSet condition.
type DaemonSetConditionType string

// DaemonSetCondition describes the state of a DaemonSet at a certain point.
type DaemonSetCondition struct {
	// Type of the condition.
	Type DaemonSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=DaemonSetConditionType"`
	// Status is "True", "False" or "Unknown".
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	// LastTransitionTime is the last time the status changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a machine-readable CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ---- StatefulSet ----

// StatefulSet runs pods with stable identities and stable storage.
type StatefulSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behavior of the StatefulSet.
	Spec StatefulSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the most recently observed status of the StatefulSet.
	Status StatefulSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// StatefulSetList is a list of StatefulSets.
type StatefulSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []StatefulSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PodManagementPolicyType says how a StatefulSet creates and deletes pods.
type PodManagementPolicyType string

const (
	// OrderedReadyPodManagement creates pods in order 0..N-1, each after the previous is ready (the default).
	OrderedReadyPodManagement PodManagementPolicyType = "OrderedReady"
	// ParallelPodManagement creates and deletes pods all at once.
	ParallelPodManagement PodManagementPolicyType = "Parallel"
)

// StatefulSetSpec is the specification of a StatefulSet.
type StatefulSetSpec struct {
	// Replicas is the number of desired pods (defaults to 1).
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// Selector selects the pods the StatefulSet owns.
	Selector *metav1.LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	// Template describes the pods created.
	Template corev1.PodTemplateSpec `json:"template" protobuf:"bytes,3,opt,name=template"`
	// VolumeClaimTemplates are the claims every pod gets, named <claim>-<pod>.
	VolumeClaimTemplates []corev1.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty" protobuf:"bytes,4,rep,name=volumeClaimTemplates"`
	// ServiceName is the headless Service that gives the pods their DNS names.
	ServiceName string `json:"serviceName" protobuf:"bytes,5,opt,name=serviceName"`
	// PodManagementPolicy is "OrderedReady" (the default) or "Parallel".
	PodManagementPolicy PodManagementPolicyType `json:"podManagementPolicy,omitempty" protobuf:"bytes,6,opt,name=podManagementPolicy,casttype=PodManagementPolicyType"`
	// UpdateStrategy is how pods are replaced when the template changes.
	UpdateStrategy StatefulSetUpdateStrategy `json:"updateStrategy,omitempty" protobuf:"bytes,7,opt,name=updateStrategy"`
	// RevisionHistoryLimit is how many old ControllerRevisions to keep (defaults to 10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,8,opt,name=revisionHistoryLimit"`
	// MinReadySeconds is how long a new pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,9,opt,name=minReadySeconds"`
	// PersistentVolumeClaimRetentionPolicy says what happens to the claims on delete and scale-down.
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty" protobuf:"bytes,10,opt,name=persistentVolumeClaimRetentionPolicy"`
	// Ordinals sets the number of the first replica (defaults to 0).
	Ordinals *StatefulSetOrdinals `json:"ordinals,omitempty" protobuf:"bytes,11,opt,name=ordinals"`
}

// StatefulSetUpdateStrategy describes how StatefulSet pods are replaced.
type StatefulSetUpdateStrategy struct {
	// Type is "RollingUpdate" (the default) or "OnDelete".
	Type StatefulSetUpdateStrategyType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type,casttype=StatefulSetStrategyType"`
	// RollingUpdate holds the parameters of a rolling update.
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// StatefulSetUpdateStrategyType is the kind of StatefulSet update strategy.
type StatefulSetUpdateStrategyType string

const (
	// RollingUpdateStatefulSetStrategyType replaces pods from the highest ordinal down.
	RollingUpdateStatefulSetStrategyType StatefulSetUpdateStrategyType = "RollingUpdate"
	// OnDeleteStatefulSetStrategyType replaces a pod only when it is deleted.
	OnDeleteStatefulSetStrategyType StatefulSetUpdateStrategyType = "OnDelete"
	// RecreateStatefulSetStrategyType is reserved by upstream and not implemented.
	RecreateStatefulSetStrategyType StatefulSetUpdateStrategyType = "Recreate"
)

// RollingUpdateStatefulSetStrategy holds the parameters of a StatefulSet rolling update.
type RollingUpdateStatefulSetStrategy struct {
	// Partition: only pods with an ordinal >= partition are updated (defaults to 0).
	Partition *int32 `json:"partition,omitempty" protobuf:"varint,1,opt,name=partition"`
	// MaxUnavailable is how many pods may be unavailable during the update (alpha, defaults to 1).
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"varint,2,opt,name=maxUnavailable"`
}

// PersistentVolumeClaimRetentionPolicyType is "Retain" or "Delete".
type PersistentVolumeClaimRetentionPolicyType string

const (
	// RetainPersistentVolumeClaimRetentionPolicyType keeps the claims (the default).
	RetainPersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Retain"
	// DeletePersistentVolumeClaimRetentionPolicyType deletes the claims with their pods.
	DeletePersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Delete"
)

// StatefulSetPersistentVolumeClaimRetentionPolicy says what happens to the claims of a StatefulSet.
type StatefulSetPersistentVolumeClaimRetentionPolicy struct {
	// WhenDeleted applies when the StatefulSet is deleted.
	WhenDeleted PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty" protobuf:"bytes,1,opt,name=whenDeleted,casttype=PersistentVolumeClaimRetentionPolicyType"`
	// WhenScaled applies when the StatefulSet is scaled down.
	WhenScaled PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty" protobuf:"bytes,2,opt,name=whenScaled,casttype=PersistentVolumeClaimRetentionPolicyType"`
}

// StatefulSetOrdinals describes the numbering of StatefulSet replicas.
type StatefulSetOrdinals struct {
	// Start is the number of the first replica.
	Start int32 `json:"start" protobuf:"varint,1,opt,name=start"`
}

// StatefulSetStatus is the most recently observed status of a StatefulSet.
type StatefulSetStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// Replicas is the number of pods created by the controller.
	Replicas int32 `json:"replicas" protobuf:"varint,2,opt,name=replicas"`
	// ReadyReplicas is the number of pods with a Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,3,opt,name=readyReplicas"`
	// CurrentReplicas is the number of pods at currentRevision.
	CurrentReplicas int32 `json:"currentReplicas,omitempty" protobuf:"varint,4,opt,name=currentReplicas"`
	// UpdatedReplicas is the number of pods at updateRevision.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty" protobuf:"varint,5,opt,name=updatedReplicas"`
	// CurrentRevision is the revision that produced pods 0..currentReplicas-1.
	CurrentRevision string `json:"currentRevision,omitempty" protobuf:"bytes,6,opt,name=currentRevision"`
	// UpdateRevision is the revision new pods are created from.
	UpdateRevision string `json:"updateRevision,omitempty" protobuf:"bytes,7,opt,name=updateRevision"`
	// CollisionCount is used to avoid revision name collisions.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`
	// Conditions are the latest observations of the StatefulSet's state.
	Conditions []StatefulSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,10,rep,name=conditions"`
	// AvailableReplicas is the number of pods ready for at least minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas" protobuf:"varint,11,opt,name=availableReplicas"`
}

// StatefulSetConditionType names a StatefulSet condition.
type StatefulSetConditionType string

// StatefulSetProgressing is reserved by upstream.
const StatefulSetProgressing StatefulSetConditionType = "Progressing"

// StatefulSetCondition describes the state of a StatefulSet at a certain point.
type StatefulSetCondition struct {
	// Type of the condition.
	Type StatefulSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=StatefulSetConditionType"`
	// Status is "True", "False" or "Unknown".
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	// LastTransitionTime is the last time the status changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a machine-readable CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ---- ControllerRevision ----

// ControllerRevision is an immutable snapshot of a DaemonSet's or
// StatefulSet's template, used for rollout and rollback.
type ControllerRevision struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Data is the serialized state (a strategic merge patch of the owner's spec).
	Data RawExtension `json:"data" protobuf:"bytes,2,opt,name=data"`
	// Revision is the revision number.
	Revision int64 `json:"revision" protobuf:"varint,3,opt,name=revision"`
}

// ControllerRevisionList is a list of ControllerRevisions.
type ControllerRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ControllerRevision `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// RawExtension is upstream's runtime.RawExtension: an embedded JSON document
// kept as bytes (a message {bytes raw = 1} in protobuf).
type RawExtension struct {
	Raw json.RawMessage `json:"-" protobuf:"bytes,1,opt,name=raw"`
}

// MarshalJSON writes the raw document, or null.
func (r RawExtension) MarshalJSON() ([]byte, error) {
	if r.Raw == nil {
		return []byte("null"), nil
	}
	return r.Raw, nil
}

// UnmarshalJSON keeps a copy of the document; null is no document.
func (r *RawExtension) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		r.Raw = nil
		return nil
	}
	r.Raw = append(r.Raw[:0], b...)
	return nil
}
