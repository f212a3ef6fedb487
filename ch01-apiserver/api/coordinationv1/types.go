// Package coordinationv1 holds coordination.k8s.io/v1 Lease: node heartbeats
// and leader election.
//
// Upstream: k8s.io/api/coordination/v1.
package coordinationv1

import "kubik/ch01-apiserver/api/metav1"

// CoordinatedLeaseStrategy picks the holder of a coordinated leader election lease.
type CoordinatedLeaseStrategy string

// OldestEmulationVersion prefers the candidate with the oldest emulation version.
const OldestEmulationVersion CoordinatedLeaseStrategy = "OldestEmulationVersion"

// Lease is a lock held by one party at a time, renewed by heartbeats.
type Lease struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the state of the lease.
	Spec LeaseSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// LeaseSpec is the state of a Lease.
type LeaseSpec struct {
	// HolderIdentity is the current holder.
	HolderIdentity *string `json:"holderIdentity,omitempty" protobuf:"bytes,1,opt,name=holderIdentity"`
	// LeaseDurationSeconds is how long others wait after the last renewal before taking over.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty" protobuf:"varint,2,opt,name=leaseDurationSeconds"`
	// AcquireTime is when the current holder acquired the lease.
	AcquireTime *metav1.MicroTime `json:"acquireTime,omitempty" protobuf:"bytes,3,opt,name=acquireTime"`
	// RenewTime is when the current holder last renewed the lease.
	RenewTime *metav1.MicroTime `json:"renewTime,omitempty" protobuf:"bytes,4,opt,name=renewTime"`
	// LeaseTransitions counts the changes of holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty" protobuf:"varint,5,opt,name=leaseTransitions"`
	// Strategy picks the holder in coordinated leader election.
	Strategy *CoordinatedLeaseStrategy `json:"strategy,omitempty" protobuf:"bytes,6,opt,name=strategy"`
	// PreferredHolder asks the current holder to give the lease up to this one.
	PreferredHolder *string `json:"preferredHolder,omitempty" protobuf:"bytes,7,opt,name=preferredHolder"`
}

// LeaseList is a list of Leases.
type LeaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Lease `json:"items" protobuf:"bytes,2,rep,name=items"`
}
