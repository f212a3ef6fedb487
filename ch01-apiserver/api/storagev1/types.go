// Package storagev1 holds storage.k8s.io/v1: StorageClass, CSIDriver,
// CSINode, CSIStorageCapacity, VolumeAttachment and VolumeAttributesClass.
// The scheduler's volume plugins watch them; kubectl users see them as
// `kubectl get sc` and friends.
//
// Upstream: k8s.io/api/storage/v1.
package storagev1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// AnnotationIsDefaultStorageClass marks the StorageClass that claims without a class get.
const AnnotationIsDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"

// BetaAnnotationIsDefaultStorageClass is the beta spelling of AnnotationIsDefaultStorageClass, still honoured.
const BetaAnnotationIsDefaultStorageClass = "storageclass.beta.kubernetes.io/is-default-class"

// StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically provisioned.
type StorageClass struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// provisioner indicates the type of the provisioner.
	Provisioner string `json:"provisioner" protobuf:"bytes,2,opt,name=provisioner"`
	// parameters holds the parameters for the provisioner that should create volumes of this storage class.
	Parameters map[string]string `json:"parameters,omitempty" protobuf:"bytes,3,rep,name=parameters"`
	// reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.
	ReclaimPolicy *corev1.PersistentVolumeReclaimPolicy `json:"reclaimPolicy,omitempty" protobuf:"bytes,4,opt,name=reclaimPolicy,casttype=k8s.io/api/core/v1.PersistentVolumeReclaimPolicy"`
	// mountOptions controls the mountOptions for dynamically provisioned PersistentVolumes of this storage class.
	MountOptions []string `json:"mountOptions,omitempty" protobuf:"bytes,5,opt,name=mountOptions"`
	// allowVolumeExpansion shows whether the storage class allow volume expand.
	AllowVolumeExpansion *bool `json:"allowVolumeExpansion,omitempty" protobuf:"varint,6,opt,name=allowVolumeExpansion"`
	// volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound. Defaults to Immediate.
	VolumeBindingMode *VolumeBindingMode `json:"volumeBindingMode,omitempty" protobuf:"bytes,7,opt,name=volumeBindingMode"`
	// allowedTopologies restrict the node topologies where volumes can be dynamically provisioned.
	AllowedTopologies []corev1.TopologySelectorTerm `json:"allowedTopologies,omitempty" protobuf:"bytes,8,rep,name=allowedTopologies"`
}

// StorageClassList is a collection of storage classes.
type StorageClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []StorageClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeBindingMode indicates how PersistentVolumeClaims should be bound.
type VolumeBindingMode string

const (
	// VolumeBindingImmediate binds and provisions a claim as soon as it is created.
	VolumeBindingImmediate VolumeBindingMode = "Immediate"
	// VolumeBindingWaitForFirstConsumer delays binding until a pod using the claim is scheduled.
	VolumeBindingWaitForFirstConsumer VolumeBindingMode = "WaitForFirstConsumer"
)

// VolumeAttachment captures the intent to attach or detach the specified volume to/from the specified node.
type VolumeAttachment struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// spec represents specification of the desired attach/detach volume behavior.
	Spec VolumeAttachmentSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// status represents status of the VolumeAttachment request, populated by the entity completing the attach or detach operation.
	Status VolumeAttachmentStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// VolumeAttachmentList is a collection of VolumeAttachment objects.
type VolumeAttachmentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []VolumeAttachment `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeAttachmentSpec is the specification of a VolumeAttachment request.
type VolumeAttachmentSpec struct {
	// attacher indicates the name of the volume driver that MUST handle this request.
	Attacher string `json:"attacher" protobuf:"bytes,1,opt,name=attacher"`
	// source represents the volume that should be attached.
	Source VolumeAttachmentSource `json:"source" protobuf:"bytes,2,opt,name=source"`
	// nodeName represents the node that the volume should be attached to.
	NodeName string `json:"nodeName" protobuf:"bytes,3,opt,name=nodeName"`
}

// VolumeAttachmentSource represents a volume that should be attached: exactly one member can be set.
type VolumeAttachmentSource struct {
	// persistentVolumeName represents the name of the persistent volume to attach.
	PersistentVolumeName *string `json:"persistentVolumeName,omitempty" protobuf:"bytes,1,opt,name=persistentVolumeName"`
	// inlineVolumeSpec contains all the information necessary to attach a persistent volume defined by a pod's inline VolumeSource.
	InlineVolumeSpec *corev1.PersistentVolumeSpec `json:"inlineVolumeSpec,omitempty" protobuf:"bytes,2,opt,name=inlineVolumeSpec"`
}

// VolumeAttachmentStatus is the status of a VolumeAttachment request.
type VolumeAttachmentStatus struct {
	// attached indicates the volume is successfully attached.
	Attached bool `json:"attached" protobuf:"varint,1,opt,name=attached"`
	// attachmentMetadata is populated with any information returned by the attach operation, upon successful attach.
	AttachmentMetadata map[string]string `json:"attachmentMetadata,omitempty" protobuf:"bytes,2,rep,name=attachmentMetadata"`
	// attachError represents the last error encountered during attach operation, if any.
	AttachError *VolumeError `json:"attachError,omitempty" protobuf:"bytes,3,opt,name=attachError,casttype=VolumeError"`
	// detachError represents the last error encountered during detach operation, if any.
	DetachError *VolumeError `json:"detachError,omitempty" protobuf:"bytes,4,opt,name=detachError,casttype=VolumeError"`
}

// VolumeError captures an error encountered during a volume operation.
type VolumeError struct {
	// time represents the time the error was encountered.
	Time metav1.Time `json:"time,omitempty" protobuf:"bytes,1,opt,name=time"`
	// message represents the error encountered during Attach or Detach operation.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// errorCode is a numeric gRPC code representing the error encountered during Attach or Detach operations.
	ErrorCode *int32 `json:"errorCode,omitempty" protobuf:"varint,3,opt,name=errorCode"`
}

// CSIDriver captures information about a Container Storage Interface (CSI) volume driver deployed on the cluster.
type CSIDriver struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. metadata.Name indicates the name of the CSI driver that this object refers to.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// spec represents the specification of the CSI Driver.
	Spec CSIDriverSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// CSIDriverList is a collection of CSIDriver objects.
type CSIDriverList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []CSIDriver `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CSIDriverSpec is the specification of a CSIDriver.
type CSIDriverSpec struct {
	// attachRequired indicates this CSI volume driver requires an attach operation. This field is immutable.
	AttachRequired *bool `json:"attachRequired,omitempty" protobuf:"varint,1,opt,name=attachRequired"`
	// podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.
	PodInfoOnMount *bool `json:"podInfoOnMount,omitempty" protobuf:"bytes,2,opt,name=podInfoOnMount"`
	// volumeLifecycleModes defines what kind of volumes this CSI volume driver supports: Persistent and/or Ephemeral.
	VolumeLifecycleModes []VolumeLifecycleMode `json:"volumeLifecycleModes,omitempty" protobuf:"bytes,3,opt,name=volumeLifecycleModes"`
	// storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects.
	StorageCapacity *bool `json:"storageCapacity,omitempty" protobuf:"bytes,4,opt,name=storageCapacity"`
	// fsGroupPolicy defines if the underlying volume supports changing ownership and permission of the volume before being mounted.
	FSGroupPolicy *FSGroupPolicy `json:"fsGroupPolicy,omitempty" protobuf:"bytes,5,opt,name=fsGroupPolicy"`
	// tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.
	TokenRequests []TokenRequest `json:"tokenRequests,omitempty" protobuf:"bytes,6,opt,name=tokenRequests"`
	// requiresRepublish indicates the CSI driver wants NodePublishVolume being periodically called to reflect any possible change in the mounted volume.
	RequiresRepublish *bool `json:"requiresRepublish,omitempty" protobuf:"varint,7,opt,name=requiresRepublish"`
	// seLinuxMount specifies if the CSI driver supports "-o context" mount option.
	SELinuxMount *bool `json:"seLinuxMount,omitempty" protobuf:"varint,8,opt,name=seLinuxMount"`
	// nodeAllocatableUpdatePeriodSeconds specifies the interval between periodic updates of the CSINode allocatable capacity for this driver.
	NodeAllocatableUpdatePeriodSeconds *int64 `json:"nodeAllocatableUpdatePeriodSeconds,omitempty" protobuf:"varint,9,opt,name=nodeAllocatableUpdatePeriodSeconds"`
	// serviceAccountTokenInSecrets is an opt-in for CSI drivers to indicate that service account tokens should be passed via the Secrets field in NodePublishVolumeRequest instead of the VolumeContext field.
	ServiceAccountTokenInSecrets *bool `json:"serviceAccountTokenInSecrets,omitempty" protobuf:"varint,10,opt,name=serviceAccountTokenInSecrets"`
}

// FSGroupPolicy specifies if a CSI Driver supports modifying volume ownership and permissions of the volume to be mounted.
type FSGroupPolicy string

const (
	// ReadWriteOnceWithFSTypeFSGroupPolicy changes ownership only for a filesystem volume mounted ReadWriteOnce.
	ReadWriteOnceWithFSTypeFSGroupPolicy FSGroupPolicy = "ReadWriteOnceWithFSType"
	// FileFSGroupPolicy always changes ownership and permissions when an fsGroup is set.
	FileFSGroupPolicy FSGroupPolicy = "File"
	// NoneFSGroupPolicy never changes ownership or permissions.
	NoneFSGroupPolicy FSGroupPolicy = "None"
)

// VolumeLifecycleMode is an enumeration of possible usage modes for a volume provided by a CSI driver.
type VolumeLifecycleMode string

const (
	// VolumeLifecyclePersistent is a volume backed by a PersistentVolume and claim.
	VolumeLifecyclePersistent VolumeLifecycleMode = "Persistent"
	// VolumeLifecycleEphemeral is an inline volume that lives as long as its pod.
	VolumeLifecycleEphemeral VolumeLifecycleMode = "Ephemeral"
)

// TokenRequest contains parameters of a service account token.
type TokenRequest struct {
	// audience is the intended audience of the token in "TokenRequestSpec".
	Audience string `json:"audience" protobuf:"bytes,1,opt,name=audience"`
	// expirationSeconds is the duration of validity of the token in "TokenRequestSpec".
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty" protobuf:"varint,2,opt,name=expirationSeconds"`
}

// CSINode holds information about all CSI drivers installed on a node.
type CSINode struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata. metadata.name must be the Kubernetes node name.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// spec is the specification of CSINode
	Spec CSINodeSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// CSINodeSpec holds information about the specification of all CSI drivers installed on a node.
type CSINodeSpec struct {
	// drivers is a list of information of all CSI Drivers existing on a node.
	Drivers []CSINodeDriver `json:"drivers" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,1,rep,name=drivers"`
}

// CSINodeDriver holds information about the specification of one CSI driver installed on a node.
type CSINodeDriver struct {
	// name represents the name of the CSI driver that this object refers to.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// nodeID of the node from the driver point of view.
	NodeID string `json:"nodeID" protobuf:"bytes,2,opt,name=nodeID"`
	// topologyKeys is the list of keys supported by the driver.
	TopologyKeys []string `json:"topologyKeys" protobuf:"bytes,3,rep,name=topologyKeys"`
	// allocatable represents the volume resources of a node that are available for scheduling.
	Allocatable *VolumeNodeResources `json:"allocatable,omitempty" protobuf:"bytes,4,opt,name=allocatable"`
}

// VolumeNodeResources is a set of resource limits for scheduling of volumes.
type VolumeNodeResources struct {
	// count indicates the maximum number of unique volumes managed by the CSI driver that can be used on a node.
	Count *int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`
}

// CSINodeList is a collection of CSINode objects.
type CSINodeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []CSINode `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CSIStorageCapacity stores the result of one CSI GetCapacity call for a storage class and topology segment.
type CSIStorageCapacity struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// nodeTopology defines which nodes have access to the storage for which capacity was reported.
	NodeTopology *metav1.LabelSelector `json:"nodeTopology,omitempty" protobuf:"bytes,2,opt,name=nodeTopology"`
	// storageClassName represents the name of the StorageClass that the reported capacity applies to.
	StorageClassName string `json:"storageClassName" protobuf:"bytes,3,name=storageClassName"`
	// capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.
	Capacity *resource.Quantity `json:"capacity,omitempty" protobuf:"bytes,4,opt,name=capacity"`
	// maximumVolumeSize is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.
	MaximumVolumeSize *resource.Quantity `json:"maximumVolumeSize,omitempty" protobuf:"bytes,5,opt,name=maximumVolumeSize"`
}

// CSIStorageCapacityList is a collection of CSIStorageCapacity objects.
type CSIStorageCapacityList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []CSIStorageCapacity `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeAttributesClass is a named set of mutable attributes a CSI driver
// applies to a volume (its IOPS, its throughput): a claim names the class in
// spec.volumeAttributesClassName, and changing that name asks the driver to
// modify the volume in place. The class itself cannot change.
type VolumeAttributesClass struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// DriverName is the name of the CSI driver. This field is immutable.
	DriverName string `json:"driverName" protobuf:"bytes,2,opt,name=driverName"`
	// Parameters hold the volume attributes defined by the CSI driver, passed to it on
	// create and modify. They are immutable; at least one is required.
	Parameters map[string]string `json:"parameters,omitempty" protobuf:"bytes,3,rep,name=parameters"`
}

// VolumeAttributesClassList is a collection of VolumeAttributesClass objects.
type VolumeAttributesClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of VolumeAttributesClass objects.
	Items []VolumeAttributesClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VACProtectionFinalizer keeps a VolumeAttributesClass while claims or
// volumes still use it; the StorageObjectInUseProtection admission plugin
// adds it and the vac-protection controller removes it.
const VACProtectionFinalizer = "kubernetes.io/vac-protection"
