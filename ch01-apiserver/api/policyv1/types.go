// Package policyv1 holds policy/v1 PodDisruptionBudget and Eviction.
//
// Upstream: k8s.io/api/policy/v1.
package policyv1

import (
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
)

// DisruptionBudgetCause is the Status cause type of an eviction refused by a budget.
const DisruptionBudgetCause = "DisruptionBudget"

// PodDisruptionBudget limits how many pods of a set may be down at once
// because of voluntary disruptions (evictions).
type PodDisruptionBudget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired budget.
	Spec PodDisruptionBudgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the most recently observed state of the budget.
	Status PodDisruptionBudgetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PodDisruptionBudgetList is a list of PodDisruptionBudgets.
type PodDisruptionBudgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []PodDisruptionBudget `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PodDisruptionBudgetSpec describes a budget.
type PodDisruptionBudgetSpec struct {
	// MinAvailable: an eviction is allowed if this many (or percent) pods stay available.
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty" protobuf:"bytes,1,opt,name=minAvailable"`
	// Selector selects the pods of the budget; an empty selector selects all pods of the namespace.
	Selector *metav1.LabelSelector `json:"selector,omitempty" patchStrategy:"replace" protobuf:"bytes,2,opt,name=selector"`
	// MaxUnavailable: an eviction is allowed if at most this many (or percent) pods are unavailable after it.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,3,opt,name=maxUnavailable"`
	// UnhealthyPodEvictionPolicy says when running but not ready pods may be evicted.
	UnhealthyPodEvictionPolicy *UnhealthyPodEvictionPolicyType `json:"unhealthyPodEvictionPolicy,omitempty" protobuf:"bytes,4,opt,name=unhealthyPodEvictionPolicy"`
}

// UnhealthyPodEvictionPolicyType is "IfHealthyBudget" or "AlwaysAllow".
type UnhealthyPodEvictionPolicyType string

const (
	// IfHealthyBudget evicts unhealthy pods only while the budget is met (the default).
	IfHealthyBudget UnhealthyPodEvictionPolicyType = "IfHealthyBudget"
	// AlwaysAllow always lets unhealthy pods be evicted.
	AlwaysAllow UnhealthyPodEvictionPolicyType = "AlwaysAllow"
)

// PodDisruptionBudgetStatus is the observed state of a budget.
type PodDisruptionBudgetStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// DisruptedPods maps pods evicted but not yet gone to the time of eviction.
	DisruptedPods map[string]metav1.Time `json:"disruptedPods,omitempty" protobuf:"bytes,2,rep,name=disruptedPods"`
	// DisruptionsAllowed is the number of evictions currently allowed.
	DisruptionsAllowed int32 `json:"disruptionsAllowed" protobuf:"varint,3,opt,name=disruptionsAllowed"`
	// CurrentHealthy is the number of healthy pods.
	CurrentHealthy int32 `json:"currentHealthy" protobuf:"varint,4,opt,name=currentHealthy"`
	// DesiredHealthy is the minimum number of healthy pods wanted.
	DesiredHealthy int32 `json:"desiredHealthy" protobuf:"varint,5,opt,name=desiredHealthy"`
	// ExpectedPods is the number of pods the budget counts.
	ExpectedPods int32 `json:"expectedPods" protobuf:"varint,6,opt,name=expectedPods"`
	// Conditions: "DisruptionAllowed".
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,7,rep,name=conditions"`
}

// The condition and reasons of a budget.
const (
	DisruptionAllowedCondition = "DisruptionAllowed"
	SyncFailedReason           = "SyncFailed"
	SufficientPodsReason       = "SufficientPods"
	InsufficientPodsReason     = "InsufficientPods"
)

// Eviction is the body POSTed to pods/<name>/eviction: delete the pod if the
// budgets allow it.
type Eviction struct {
	metav1.TypeMeta `json:",inline"`
	// ObjectMeta names the pod to evict.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// DeleteOptions are used for the delete.
	DeleteOptions *metav1.DeleteOptions `json:"deleteOptions,omitempty" protobuf:"bytes,2,opt,name=deleteOptions"`
}
