package resourcev1

import (
	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// ResourceClaim describes a request for access to resources in the cluster, for use by workloads.
type ResourceClaim struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec describes what is being requested and how to configure it.
	Spec ResourceClaimSpec `json:"spec" protobuf:"bytes,2,name=spec"`
	// Status describes whether the claim is ready to use and what has been allocated.
	Status ResourceClaimStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ResourceClaimSpec defines what is being requested in a ResourceClaim and how to configure it.
type ResourceClaimSpec struct {
	// Devices defines how to request devices.
	Devices DeviceClaim `json:"devices" protobuf:"bytes,1,name=devices"`
}

// DeviceClaim defines how to request devices with a ResourceClaim.
type DeviceClaim struct {
	// Requests represent individual requests for distinct devices which must all be satisfied.
	Requests []DeviceRequest `json:"requests" protobuf:"bytes,1,name=requests"`
	// Constraints must be satisfied by the set of devices that get allocated for the claim.
	Constraints []DeviceConstraint `json:"constraints,omitempty" protobuf:"bytes,2,opt,name=constraints"`
	// Config holds configuration for multiple potential drivers which could satisfy requests in this claim.
	Config []DeviceClaimConfiguration `json:"config,omitempty" protobuf:"bytes,3,opt,name=config"`
}

// Limits of a DeviceClaim, checked by validation.
const (
	DeviceRequestsMaxSize    = AllocationResultsMaxSize
	DeviceConstraintsMaxSize = 32
	DeviceConfigMaxSize      = 32
)

// DRAAdminNamespaceLabelKey is a label key used to grant administrative access to certain resource.k8s.io API types within a namespace.
const DRAAdminNamespaceLabelKey = "resource.kubernetes.io/admin-access"

// DeviceRequest is a request for devices required for a claim.
type DeviceRequest struct {
	// Name can be used to reference this request in a pod.spec.containers[].resources.claims entry and in a constraint of the claim.
	Name string `json:"name" protobuf:"bytes,1,name=name"`
	// Exactly specifies the details for a single request that must be met exactly for the request to be satisfied.
	Exactly *ExactDeviceRequest `json:"exactly,omitempty" protobuf:"bytes,2,name=exactly"`
	// FirstAvailable contains subrequests, of which exactly one will be selected by the scheduler.
	FirstAvailable []DeviceSubRequest `json:"firstAvailable,omitempty" protobuf:"bytes,3,name=firstAvailable"`
}

// ExactDeviceRequest is a request for one or more identical devices.
type ExactDeviceRequest struct {
	// DeviceClassName references a specific DeviceClass, which can define additional configuration and selectors to be inherited by this request.
	DeviceClassName string `json:"deviceClassName" protobuf:"bytes,1,name=deviceClassName"`
	// Selectors define criteria which must be satisfied by a specific device in order for that device to be considered for this request.
	Selectors []DeviceSelector `json:"selectors,omitempty" protobuf:"bytes,2,name=selectors"`
	// AllocationMode and its related fields define how devices are allocated to satisfy this request.
	AllocationMode DeviceAllocationMode `json:"allocationMode,omitempty" protobuf:"bytes,3,opt,name=allocationMode"`
	// Count is used only when the count mode is "ExactCount".
	Count int64 `json:"count,omitempty" protobuf:"bytes,4,opt,name=count"`
	// AdminAccess indicates that this is a claim for administrative access to the device(s).
	AdminAccess *bool `json:"adminAccess,omitempty" protobuf:"bytes,5,opt,name=adminAccess"`
	// Tolerations are the request's tolerations of device taints.
	Tolerations []DeviceToleration `json:"tolerations,omitempty" protobuf:"bytes,6,opt,name=tolerations"`
	// Capacity define resource requirements against each capacity.
	Capacity *CapacityRequirements `json:"capacity,omitempty" protobuf:"bytes,7,opt,name=capacity"`
}

// DeviceSubRequest describes a request for device provided in the claim.spec.devices.requests[].firstAvailable array.
type DeviceSubRequest struct {
	// Name can be used to reference this subrequest in the list of constraints or the list of configurations for the claim.
	Name string `json:"name" protobuf:"bytes,1,name=name"`
	// DeviceClassName references a specific DeviceClass, which can define additional configuration and selectors to be inherited by this subrequest.
	DeviceClassName string `json:"deviceClassName" protobuf:"bytes,2,name=deviceClassName"`
	// Selectors define criteria which must be satisfied by a specific device in order for that device to be considered for this subrequest.
	Selectors []DeviceSelector `json:"selectors,omitempty" protobuf:"bytes,3,name=selectors"`
	// AllocationMode and its related fields define how devices are allocated to satisfy this subrequest.
	AllocationMode DeviceAllocationMode `json:"allocationMode,omitempty" protobuf:"bytes,4,opt,name=allocationMode"`
	// Count is used only when the count mode is "ExactCount".
	Count int64 `json:"count,omitempty" protobuf:"bytes,5,opt,name=count"`
	// Tolerations are the request's tolerations of device taints.
	Tolerations []DeviceToleration `json:"tolerations,omitempty" protobuf:"bytes,6,opt,name=tolerations"`
	// Capacity define resource requirements against each capacity.
	Capacity *CapacityRequirements `json:"capacity,omitempty" protobuf:"bytes,7,opt,name=capacity"`
}

// CapacityRequirements defines the capacity requirements for a specific device request.
type CapacityRequirements struct {
	// Requests represent individual device resource requests for distinct resources, all of which must be provided by the device.
	Requests map[QualifiedName]resource.Quantity `json:"requests,omitempty" protobuf:"bytes,1,rep,name=requests,castkey=QualifiedName"`
}

// Limits of a device request, checked by validation.
const (
	DeviceSelectorsMaxSize             = 32
	FirstAvailableDeviceRequestMaxSize = 8
	DeviceTolerationsMaxLength         = 16
)

// DeviceAllocationMode is how many devices a request wants: ExactCount (see count) or All.
type DeviceAllocationMode string

// Valid [DeviceAllocationMode] values.
const (
	DeviceAllocationModeExactCount = DeviceAllocationMode("ExactCount")
	DeviceAllocationModeAll        = DeviceAllocationMode("All")
)

// DeviceSelector must have exactly one field set.
type DeviceSelector struct {
	// CEL contains a CEL expression for selecting a device.
	CEL *CELDeviceSelector `json:"cel,omitempty" protobuf:"bytes,1,opt,name=cel"`
}

// CELDeviceSelector contains a CEL expression for selecting a device.
type CELDeviceSelector struct {
	// Expression is a CEL expression which evaluates a single device.
	Expression string `json:"expression" protobuf:"bytes,1,name=expression"`
}

// CELSelectorExpressionMaxCost specifies the cost limit for a single CEL selector evaluation.
const CELSelectorExpressionMaxCost = 1000000

// CELSelectorExpressionMaxLength is the maximum length of a CEL selector expression string.
const CELSelectorExpressionMaxLength = 10 * 1024

// DeviceConstraint must have exactly one field set besides Requests.
type DeviceConstraint struct {
	// Requests is a list of the one or more requests in this claim which must co-satisfy this constraint.
	Requests []string `json:"requests,omitempty" protobuf:"bytes,1,opt,name=requests"`
	// MatchAttribute requires that all devices in question have this attribute and that its type and value are the same across those devices.
	MatchAttribute *FullyQualifiedName `json:"matchAttribute,omitempty" protobuf:"bytes,2,opt,name=matchAttribute"`
	// DistinctAttribute requires that all devices in question have this attribute and that its value differs between them.
	DistinctAttribute *FullyQualifiedName `json:"distinctAttribute,omitempty" protobuf:"bytes,3,opt,name=distinctAttribute"`
}

// DeviceClaimConfiguration is used for configuration parameters in DeviceClaim.
type DeviceClaimConfiguration struct {
	// Requests lists the names of requests where the configuration applies.
	Requests            []string `json:"requests,omitempty" protobuf:"bytes,1,opt,name=requests"`
	DeviceConfiguration `json:",inline" protobuf:"bytes,2,name=deviceConfiguration"`
}

// DeviceConfiguration must have exactly one field set.
type DeviceConfiguration struct {
	// Opaque provides driver-specific configuration parameters.
	Opaque *OpaqueDeviceConfiguration `json:"opaque,omitempty" protobuf:"bytes,1,opt,name=opaque"`
}

// OpaqueDeviceConfiguration contains configuration parameters for a driver in a format defined by the driver vendor.
type OpaqueDeviceConfiguration struct {
	// Driver is used to determine which kubelet plugin needs to be passed these configuration parameters.
	Driver string `json:"driver" protobuf:"bytes,1,name=driver"`
	// Parameters can contain arbitrary data.
	Parameters appsv1.RawExtension `json:"parameters" protobuf:"bytes,2,name=parameters"`
}

// OpaqueParametersMaxLength is the maximum length of the raw data in an [OpaqueDeviceConfiguration.Parameters] field.
const OpaqueParametersMaxLength = 10 * 1024

// DeviceToleration lets a claim tolerate taints matching <key,value,effect> with <operator>.
type DeviceToleration struct {
	// Key is the taint key that the toleration applies to.
	Key string `json:"key,omitempty" protobuf:"bytes,1,opt,name=key"`
	// Operator represents a key's relationship to the value.
	Operator DeviceTolerationOperator `json:"operator,omitempty" protobuf:"bytes,2,opt,name=operator,casttype=DeviceTolerationOperator"`
	// Value is the taint value the toleration matches to.
	Value string `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
	// Effect indicates the taint effect to match.
	Effect DeviceTaintEffect `json:"effect,omitempty" protobuf:"bytes,4,opt,name=effect,casttype=DeviceTaintEffect"`
	// TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty" protobuf:"varint,5,opt,name=tolerationSeconds"`
}

// DeviceTolerationOperator is how a toleration compares a taint's key and value.
type DeviceTolerationOperator string

// Valid [DeviceTolerationOperator] values.
const (
	DeviceTolerationOpExists DeviceTolerationOperator = "Exists"
	DeviceTolerationOpEqual  DeviceTolerationOperator = "Equal"
)

// ResourceClaimStatus tracks whether the resource has been allocated and what the result of that was.
type ResourceClaimStatus struct {
	// Allocation is set once the claim has been allocated successfully.
	Allocation *AllocationResult `json:"allocation,omitempty" protobuf:"bytes,1,opt,name=allocation"`
	// ReservedFor indicates which entities are currently allowed to use the claim.
	ReservedFor []ResourceClaimConsumerReference `json:"reservedFor,omitempty" protobuf:"bytes,2,opt,name=reservedFor" patchStrategy:"merge" patchMergeKey:"uid"`
	// Devices contains the status of each device allocated for this claim, as reported by the driver.
	Devices []AllocatedDeviceStatus `json:"devices,omitempty" protobuf:"bytes,4,opt,name=devices"`
}

// ResourceClaimReservedForMaxSize is the maximum number of entries in claim.status.reservedFor.
const ResourceClaimReservedForMaxSize = 256

// ResourceClaimConsumerReference contains enough information to let you locate the consumer of a ResourceClaim.
type ResourceClaimConsumerReference struct {
	// APIGroup is the group for the resource being referenced.
	APIGroup string `json:"apiGroup,omitempty" protobuf:"bytes,1,opt,name=apiGroup"`
	// Resource is the type of resource being referenced, for example "pods".
	Resource string `json:"resource" protobuf:"bytes,3,name=resource"`
	// Name is the name of resource being referenced.
	Name string `json:"name" protobuf:"bytes,4,name=name"`
	// UID identifies exactly one incarnation of the resource.
	UID string `json:"uid" protobuf:"bytes,5,name=uid"`
}

// AllocationResult contains attributes of an allocated resource.
type AllocationResult struct {
	// Devices is the result of allocating devices.
	Devices DeviceAllocationResult `json:"devices,omitempty" protobuf:"bytes,1,opt,name=devices"`
	// NodeSelector defines where the allocated resources are available.
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty" protobuf:"bytes,3,opt,name=nodeSelector"`
	// AllocationTimestamp stores the time when the resources were allocated.
	AllocationTimestamp *metav1.Time `json:"allocationTimestamp,omitempty" protobuf:"bytes,5,opt,name=allocationTimestamp"`
}

// DeviceAllocationResult is the result of allocating devices.
type DeviceAllocationResult struct {
	// Results lists all allocated devices.
	Results []DeviceRequestAllocationResult `json:"results,omitempty" protobuf:"bytes,1,opt,name=results"`
	// Config combines all the claim and class configuration parameters.
	Config []DeviceAllocationConfiguration `json:"config,omitempty" protobuf:"bytes,2,opt,name=config"`
}

// AllocationResultsMaxSize represents the maximum number of entries in allocation.devices.results.
const AllocationResultsMaxSize = 32

// DeviceRequestAllocationResult contains the allocation result for one request.
type DeviceRequestAllocationResult struct {
	// Request is the name of the request in the claim which caused this device to be allocated.
	Request string `json:"request" protobuf:"bytes,1,name=request"`
	// Driver specifies the name of the DRA driver whose kubelet plugin should be invoked to process the allocation once the claim is needed on a node.
	Driver string `json:"driver" protobuf:"bytes,2,name=driver"`
	// Pool together with the driver and device names identifies the allocated device (`<driver name>/<pool name>/<device name>`).
	Pool string `json:"pool" protobuf:"bytes,3,name=pool"`
	// Device references one device instance via its name in the driver's resource pool.
	Device string `json:"device" protobuf:"bytes,4,name=device"`
	// AdminAccess indicates that this device was allocated for administrative access.
	AdminAccess *bool `json:"adminAccess,omitempty" protobuf:"bytes,5,opt,name=adminAccess"`
	// Tolerations is a copy of the request's tolerations at the time when the device got allocated.
	Tolerations []DeviceToleration `json:"tolerations,omitempty" protobuf:"bytes,6,opt,name=tolerations"`
	// BindingConditions contains a copy of the BindingConditions from the corresponding ResourceSlice at the time of allocation.
	BindingConditions []string `json:"bindingConditions,omitempty" protobuf:"bytes,7,rep,name=bindingConditions"`
	// BindingFailureConditions contains a copy of the BindingFailureConditions from the corresponding ResourceSlice at the time of allocation.
	BindingFailureConditions []string `json:"bindingFailureConditions,omitempty" protobuf:"bytes,8,rep,name=bindingFailureConditions"`
	// ShareID uniquely identifies an individual allocation share of the device, used when the device supports multiple simultaneous allocations.
	ShareID *string `json:"shareID,omitempty" protobuf:"bytes,9,opt,name=shareID"`
	// ConsumedCapacity tracks the amount of capacity consumed per device as part of the claim request.
	ConsumedCapacity map[QualifiedName]resource.Quantity `json:"consumedCapacity,omitempty" protobuf:"bytes,10,rep,name=consumedCapacity"`
}

// DeviceAllocationConfiguration gets embedded in an AllocationResult.
type DeviceAllocationConfiguration struct {
	// Source records whether the configuration comes from a class and thus is not something that a normal user would have been able to set or from a claim.
	Source AllocationConfigSource `json:"source" protobuf:"bytes,1,name=source"`
	// Requests lists the names of requests where the configuration applies.
	Requests            []string `json:"requests,omitempty" protobuf:"bytes,2,opt,name=requests"`
	DeviceConfiguration `json:",inline" protobuf:"bytes,3,name=deviceConfiguration"`
}

// AllocationConfigSource says where a configuration came from: the class or the claim.
type AllocationConfigSource string

// Valid [DeviceAllocationConfiguration.Source] values.
const (
	AllocationConfigSourceClass AllocationConfigSource = "FromClass"
	AllocationConfigSourceClaim AllocationConfigSource = "FromClaim"
)

// ResourceClaimList is a collection of claims.
type ResourceClaimList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of resource claims.
	Items []ResourceClaim `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Limits of an AllocatedDeviceStatus, checked by validation.
const (
	// AllocatedDeviceStatusMaxConditions represents the maximum number of conditions in a device status.
	AllocatedDeviceStatusMaxConditions int = 8
	// AllocatedDeviceStatusDataMaxLength represents the maximum length of the raw data in the Data field in a device status.
	AllocatedDeviceStatusDataMaxLength int = 10 * 1024
	// NetworkDeviceDataMaxIPs represents the maximum number of IPs in the networkData field in a device status.
	NetworkDeviceDataMaxIPs int = 16
	// NetworkDeviceDataInterfaceNameMaxLength represents the maximum number of characters for the networkData.interfaceName field in a device status.
	NetworkDeviceDataInterfaceNameMaxLength int = 256
	// NetworkDeviceDataHardwareAddressMaxLength represents the maximum number of characters for the networkData.hardwareAddress field in a device status.
	NetworkDeviceDataHardwareAddressMaxLength int = 128
)

// AllocatedDeviceStatus contains the status of an allocated device, if the driver chooses to report it.
type AllocatedDeviceStatus struct {
	// Driver specifies the name of the DRA driver whose kubelet plugin should be invoked to process the allocation once the claim is needed on a node.
	Driver string `json:"driver" protobuf:"bytes,1,rep,name=driver"`
	// Pool together with the driver and device names identifies the allocated device (`<driver name>/<pool name>/<device name>`).
	Pool string `json:"pool" protobuf:"bytes,2,rep,name=pool"`
	// Device references one device instance via its name in the driver's resource pool.
	Device string `json:"device" protobuf:"bytes,3,rep,name=device"`
	// ShareID uniquely identifies an individual allocation share of the device.
	ShareID *string `json:"shareID,omitempty" protobuf:"bytes,7,opt,name=shareID"`
	// Conditions contains the latest observation of the device's state.
	Conditions []metav1.Condition `json:"conditions" protobuf:"bytes,4,opt,name=conditions"`
	// Data contains arbitrary driver-specific data.
	Data *appsv1.RawExtension `json:"data,omitempty" protobuf:"bytes,5,opt,name=data"`
	// NetworkData contains network-related information specific to the device.
	NetworkData *NetworkDeviceData `json:"networkData,omitempty" protobuf:"bytes,6,opt,name=networkData"`
}

// NetworkDeviceData provides network-related details for the allocated device.
type NetworkDeviceData struct {
	// InterfaceName specifies the name of the network interface associated with the allocated device.
	InterfaceName string `json:"interfaceName,omitempty" protobuf:"bytes,1,opt,name=interfaceName"`
	// IPs lists the network addresses assigned to the device's network interface.
	IPs []string `json:"ips,omitempty" protobuf:"bytes,2,opt,name=ips"`
	// HardwareAddress represents the hardware address (for example the MAC address) of the device's network interface.
	HardwareAddress string `json:"hardwareAddress,omitempty" protobuf:"bytes,3,opt,name=hardwareAddress"`
}
