// Package resourcev1 holds resource.k8s.io/v1, Dynamic Resource Allocation
// (DRA): DeviceClasses (what kind of device), ResourceSlices (the devices a
// driver publishes), ResourceClaims (a workload's request for devices, and
// the scheduler's allocation in its status) and ResourceClaimTemplates.
//
// Upstream: k8s.io/api/resource/v1
package resourcev1

const (
	// Finalizer is the finalizer that gets set for claims which were allocated through a builtin controller.
	Finalizer = "resource.kubernetes.io/delete-protection"
	// ExtendedResourceClaimAnnotation is the annotation applied on the generated special ResourceClaim.
	ExtendedResourceClaimAnnotation = "resource.kubernetes.io/extended-resource-claim"
	// ResourceDeviceClassPrefix is for generating implicit extended resource name for a device class when its ExtendedResourceName field is not specified.
	ResourceDeviceClassPrefix string = "deviceclass.resource.kubernetes.io/"
)
