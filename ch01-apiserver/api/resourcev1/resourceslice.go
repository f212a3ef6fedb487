package resourcev1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// ResourceSlice represents one or more resources in a pool of similar resources, managed by a common driver.
type ResourceSlice struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Contains the information published by the driver.
	Spec ResourceSliceSpec `json:"spec" protobuf:"bytes,2,name=spec"`
}

const (
	// ResourceSliceSelectorNodeName can be used in a [metav1.ListOptions] field selector to filter based on [ResourceSliceSpec.NodeName].
	ResourceSliceSelectorNodeName = "spec.nodeName"
	// ResourceSliceSelectorDriver can be used in a [metav1.ListOptions] field selector to filter based on [ResourceSliceSpec.Driver].
	ResourceSliceSelectorDriver = "spec.driver"
)

// ResourceSliceSpec contains the information published by the driver in one ResourceSlice.
type ResourceSliceSpec struct {
	// Driver identifies the DRA driver providing the capacity information.
	Driver string `json:"driver" protobuf:"bytes,1,name=driver"`
	// Pool describes the pool that this ResourceSlice belongs to.
	Pool ResourcePool `json:"pool" protobuf:"bytes,2,name=pool"`
	// NodeName identifies the node which provides the resources in this pool.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,3,opt,name=nodeName"`
	// NodeSelector defines which nodes have access to the resources in the pool, when that pool is not limited to a single node.
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty" protobuf:"bytes,4,opt,name=nodeSelector"`
	// AllNodes indicates that all nodes have access to the resources in the pool.
	AllNodes *bool `json:"allNodes,omitempty" protobuf:"bytes,5,opt,name=allNodes"`
	// Devices lists some or all of the devices in this pool.
	Devices []Device `json:"devices,omitempty" protobuf:"bytes,6,name=devices"`
	// PerDeviceNodeSelection defines whether the access from nodes to resources in the pool is set on the ResourceSlice level or on each device.
	PerDeviceNodeSelection *bool `json:"perDeviceNodeSelection,omitempty" protobuf:"bytes,7,name=perDeviceNodeSelection"`
	// SharedCounters defines a list of counter sets, each of which has a name and a list of counters available.
	SharedCounters []CounterSet `json:"sharedCounters,omitempty" protobuf:"bytes,8,name=sharedCounters"`
}

// CounterSet defines a named set of counters that are available to be used by devices defined in the ResourcePool.
type CounterSet struct {
	// Name defines the name of the counter set.
	Name string `json:"name" protobuf:"bytes,1,name=name"`
	// Counters defines the counters of this set, by name (a DNS label).
	Counters map[string]Counter `json:"counters,omitempty" protobuf:"bytes,2,name=counters"`
}

// DriverNameMaxLength is the maximum valid length of a driver name in the ResourceSliceSpec and other places.
const DriverNameMaxLength = 63

// ResourcePool describes the pool that ResourceSlices belong to.
type ResourcePool struct {
	// Name is used to identify the pool.
	Name string `json:"name" protobuf:"bytes,1,name=name"`
	// Generation tracks the change in a pool over time.
	Generation int64 `json:"generation" protobuf:"bytes,2,name=generation"`
	// ResourceSliceCount is the total number of ResourceSlices in the pool at this generation number.
	ResourceSliceCount int64 `json:"resourceSliceCount" protobuf:"bytes,3,name=resourceSliceCount"`
}

// Limits of a ResourceSlice, checked by validation.
const (
	ResourceSliceMaxSharedCapacity                      = 128
	ResourceSliceMaxDevices                             = 128
	ResourceSliceMaxDevicesWithTaintsOrConsumesCounters = 64
	PoolNameMaxLength                                   = 253 // Same as for a single node name.
	BindingConditionsMaxSize                            = 4
	BindingFailureConditionsMaxSize                     = 4
)

// ResourceSliceMaxCounterSets is the maximum number of counter sets (through the SharedCounters field) in a ResourceSlice.
const ResourceSliceMaxCounterSets = 8

// ResourceSliceMaxCountersPerCounterSet is the maximum number of counters in a counter set.
const ResourceSliceMaxCountersPerCounterSet = 32

// ResourceSliceMaxDeviceCounterConsumptionsPerDevice is the maximum number of device counter consumptions (the ConsumesCounters field) per device.
const ResourceSliceMaxDeviceCounterConsumptionsPerDevice = 2

// ResourceSliceMaxCountersPerDeviceCounterConsumption is the maximum number of counters per device counter consumption.
const ResourceSliceMaxCountersPerDeviceCounterConsumption = 32

// Device represents one individual hardware instance that can be selected based on its attributes.
type Device struct {
	// Name is unique identifier among all devices managed by the driver in the pool.
	Name string `json:"name" protobuf:"bytes,1,name=name"`
	// Attributes defines the set of attributes for this device.
	Attributes map[QualifiedName]DeviceAttribute `json:"attributes,omitempty" protobuf:"bytes,2,rep,name=attributes"`
	// Capacity defines the set of capacities for this device.
	Capacity map[QualifiedName]DeviceCapacity `json:"capacity,omitempty" protobuf:"bytes,3,rep,name=capacity"`
	// ConsumesCounters defines a list of references to sharedCounters and the set of counters that the device will consume from those counter sets.
	ConsumesCounters []DeviceCounterConsumption `json:"consumesCounters,omitempty" protobuf:"bytes,4,rep,name=consumesCounters"`
	// NodeName identifies the node where the device is available.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,5,opt,name=nodeName"`
	// NodeSelector defines the nodes where the device is available.
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty" protobuf:"bytes,6,opt,name=nodeSelector"`
	// AllNodes indicates that all nodes have access to the device.
	AllNodes *bool `json:"allNodes,omitempty" protobuf:"bytes,7,opt,name=allNodes"`
	// If specified, these are the driver-defined taints.
	Taints []DeviceTaint `json:"taints,omitempty" protobuf:"bytes,8,rep,name=taints"`
	// BindsToNode indicates if the usage of an allocation involving this device has to be limited to exactly the node that was chosen when allocating the claim.
	BindsToNode *bool `json:"bindsToNode,omitempty" protobuf:"varint,9,opt,name=bindsToNode"`
	// BindingConditions defines the conditions for proceeding with binding.
	BindingConditions []string `json:"bindingConditions,omitempty" protobuf:"bytes,10,rep,name=bindingConditions"`
	// BindingFailureConditions defines the conditions for binding failure.
	BindingFailureConditions []string `json:"bindingFailureConditions,omitempty" protobuf:"bytes,11,rep,name=bindingFailureConditions"`
	// AllowMultipleAllocations marks whether the device is allowed to be allocated to multiple DeviceRequests.
	AllowMultipleAllocations *bool `json:"allowMultipleAllocations,omitempty" protobuf:"bytes,12,opt,name=allowMultipleAllocations"`
}

// DeviceCounterConsumption defines a set of counters that a device will consume from a CounterSet.
type DeviceCounterConsumption struct {
	// CounterSet is the name of the set from which the counters defined will be consumed.
	CounterSet string `json:"counterSet" protobuf:"bytes,1,opt,name=counterSet"`
	// Counters defines the counters that will be consumed by the device.
	Counters map[string]Counter `json:"counters,omitempty" protobuf:"bytes,2,opt,name=counters"`
}

// DeviceCapacity describes a quantity associated with a device.
type DeviceCapacity struct {
	// Value defines how much of a certain capacity that device has.
	Value resource.Quantity `json:"value" protobuf:"bytes,1,rep,name=value"`
	// RequestPolicy defines how this DeviceCapacity must be consumed when the device is allowed to be shared by multiple allocations.
	RequestPolicy *CapacityRequestPolicy `json:"requestPolicy,omitempty" protobuf:"bytes,2,opt,name=requestPolicy"`
}

// Counter describes a quantity associated with a device.
type Counter struct {
	// Value defines how much of a certain device counter is available.
	Value resource.Quantity `json:"value" protobuf:"bytes,1,rep,name=value"`
}

// CapacityRequestPolicy defines how requests consume device capacity.
type CapacityRequestPolicy struct {
	// Default specifies how much of this capacity is consumed by a request that does not contain an entry for it in DeviceRequest's Capacity.
	Default *resource.Quantity `json:"default" protobuf:"bytes,1,opt,name=default"`
	// ValidValues defines a set of acceptable quantity values in consuming requests.
	ValidValues []resource.Quantity `json:"validValues,omitempty" protobuf:"bytes,3,opt,name=validValues"`
	// ValidRange defines an acceptable quantity value range in consuming requests.
	ValidRange *CapacityRequestPolicyRange `json:"validRange,omitempty" protobuf:"bytes,4,opt,name=validRange"`
}

// CapacityRequestPolicyRange defines a valid range for consumable capacity values.
type CapacityRequestPolicyRange struct {
	// Min specifies the minimum capacity allowed for a consumption request.
	Min *resource.Quantity `json:"min,omitempty" protobuf:"bytes,1,opt,name=min"`
	// Max defines the upper limit for capacity that can be requested.
	Max *resource.Quantity `json:"max,omitempty" protobuf:"bytes,2,opt,name=max"`
	// Step defines the step size between valid capacity amounts within the range.
	Step *resource.Quantity `json:"step,omitempty" protobuf:"bytes,3,opt,name=step"`
}

// ResourceSliceMaxAttributesAndCapacitiesPerDevice limits the sum of the entries in attributes and capacity.
const ResourceSliceMaxAttributesAndCapacitiesPerDevice = 32

// QualifiedName is the name of a device attribute or capacity.
type QualifiedName string

// FullyQualifiedName is a QualifiedName where the domain is set.
type FullyQualifiedName string

// DeviceMaxDomainLength is the maximum length of the domain prefix in a fully-qualified name.
const DeviceMaxDomainLength = 63

// DeviceMaxIDLength is the maximum length of the identifier in a device attribute or capacity name (`<domain>/<ID>`).
const DeviceMaxIDLength = 32

// DeviceAttribute must have exactly one field set.
type DeviceAttribute struct {
	// IntValue is a number. (The Go names have a Value suffix: a field "String" would clash with the method.)
	IntValue *int64 `json:"int,omitempty" protobuf:"varint,2,opt,name=int"`
	// BoolValue is a true/false value.
	BoolValue *bool `json:"bool,omitempty" protobuf:"varint,3,opt,name=bool"`
	// StringValue is a string.
	StringValue *string `json:"string,omitempty" protobuf:"bytes,4,opt,name=string"`
	// VersionValue is a semantic version according to semver.org spec 2.0.0.
	VersionValue *string `json:"version,omitempty" protobuf:"bytes,5,opt,name=version"`
}

// DeviceAttributeMaxValueLength is the maximum length of a string or version attribute value.
const DeviceAttributeMaxValueLength = 64

// DeviceTaintsMaxLength is the maximum number of taints per Device.
const DeviceTaintsMaxLength = 16

// DeviceTaint has the "effect" on claims that do not tolerate it and, through them, on the pods using them.
type DeviceTaint struct {
	// The taint key to be applied to a device.
	Key string `json:"key" protobuf:"bytes,1,name=key"`
	// The taint value corresponding to the taint key.
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// The effect of the taint on claims that do not tolerate the taint and through such claims on the pods using them.
	Effect DeviceTaintEffect `json:"effect" protobuf:"bytes,3,name=effect,casttype=DeviceTaintEffect"`
	// TimeAdded is when the taint was added; set by the apiserver if left empty.
	TimeAdded *metav1.Time `json:"timeAdded,omitempty" protobuf:"bytes,4,opt,name=timeAdded"`
}

// DeviceTaintEffect is what a DeviceTaint does to claims that do not tolerate it.
type DeviceTaintEffect string

const (
	// No effect, the taint is purely informational.
	DeviceTaintEffectNone DeviceTaintEffect = "None"
	// Do not allow new pods to schedule which use a tainted device unless they tolerate the taint.
	DeviceTaintEffectNoSchedule DeviceTaintEffect = "NoSchedule"
	// Evict any already-running pods that do not tolerate the device taint.
	DeviceTaintEffectNoExecute DeviceTaintEffect = "NoExecute"
)

// ResourceSliceList is a collection of ResourceSlices.
type ResourceSliceList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of resource ResourceSlices.
	Items []ResourceSlice `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// String formats the taint as kubectl does for node taints: key=value:effect.
func (t DeviceTaint) String() string {
	if len(t.Effect) == 0 {
		if len(t.Value) == 0 {
			return t.Key
		}
		return t.Key + "=" + t.Value + ":"
	}
	if len(t.Value) == 0 {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}
