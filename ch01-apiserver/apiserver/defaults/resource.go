package defaults

import (
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resourcev1"
)

// setDefaultsResourceClaimSpec applies the defaults of every request of a
// claim (or of a claim template's spec): SetDefaults_ExactDeviceRequest,
// SetDefaults_DeviceSubRequest and the "+default=Equal" of a toleration's
// operator.
func setDefaultsResourceClaimSpec(spec *resourcev1.ResourceClaimSpec) {
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if r.Exactly != nil {
			setDefaultsDeviceRequest(&r.Exactly.AllocationMode, &r.Exactly.Count)
			setDefaultsDeviceTolerations(r.Exactly.Tolerations)
		}
		for j := range r.FirstAvailable {
			sub := &r.FirstAvailable[j]
			setDefaultsDeviceRequest(&sub.AllocationMode, &sub.Count)
			setDefaultsDeviceTolerations(sub.Tolerations)
		}
	}
}

// setDefaultsDeviceRequest is the body of SetDefaults_ExactDeviceRequest and
// SetDefaults_DeviceSubRequest: a request without a mode asks for exactly
// one device.
func setDefaultsDeviceRequest(mode *resourcev1.DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = resourcev1.DeviceAllocationModeExactCount
	}
	if *mode == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

// setDefaultsDeviceTolerations: a toleration without an operator is "Equal".
func setDefaultsDeviceTolerations(tolerations []resourcev1.DeviceToleration) {
	for i := range tolerations {
		if tolerations[i].Operator == "" {
			tolerations[i].Operator = resourcev1.DeviceTolerationOpEqual
		}
	}
}

// setDefaultsResourceClaim defaults the requests of the spec and the copied
// tolerations of the allocation in the status.
func setDefaultsResourceClaim(c *resourcev1.ResourceClaim) {
	setDefaultsResourceClaimSpec(&c.Spec)
	if c.Status.Allocation != nil {
		for i := range c.Status.Allocation.Devices.Results {
			setDefaultsDeviceTolerations(c.Status.Allocation.Devices.Results[i].Tolerations)
		}
	}
}

// setDefaultsResourceSlice is SetDefaults_DeviceTaint for every device: a
// taint records when it was added, to the second.
func setDefaultsResourceSlice(s *resourcev1.ResourceSlice) {
	for i := range s.Spec.Devices {
		for j := range s.Spec.Devices[i].Taints {
			if t := &s.Spec.Devices[i].Taints[j]; t.TimeAdded == nil {
				now := metav1.Now()
				t.TimeAdded = &now
			}
		}
	}
}
