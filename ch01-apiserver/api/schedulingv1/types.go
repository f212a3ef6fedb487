// Package schedulingv1 holds scheduling.k8s.io/v1 PriorityClass.
//
// Upstream: k8s.io/api/scheduling/v1; the constants come from upstream's
// internal pkg/apis/scheduling.
package schedulingv1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// The built-in priority classes and their values.
const (
	// DefaultPriorityWhenNoDefaultClassExists is a pod's priority when no class is the global default.
	DefaultPriorityWhenNoDefaultClassExists = 0
	// HighestUserDefinablePriority is the largest value a user-created class may have.
	HighestUserDefinablePriority = int32(1000000000)
	// SystemCriticalPriority is the base of the system classes.
	SystemCriticalPriority = 2 * HighestUserDefinablePriority
	// SystemPriorityClassPrefix is reserved for system classes.
	SystemPriorityClassPrefix = "system-"
	// SystemClusterCritical is the class of cluster-critical add-ons.
	SystemClusterCritical = SystemPriorityClassPrefix + "cluster-critical"
	// SystemNodeCritical is the class of node-critical pods.
	SystemNodeCritical = SystemPriorityClassPrefix + "node-critical"
)

// SystemPriorityClasses returns the classes the apiserver creates at start-up.
func SystemPriorityClasses() []*PriorityClass {
	return []*PriorityClass{
		{
			ObjectMeta:  metav1.ObjectMeta{Name: SystemNodeCritical},
			Value:       SystemCriticalPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node.",
		},
		{
			ObjectMeta:  metav1.ObjectMeta{Name: SystemClusterCritical},
			Value:       SystemCriticalPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
		},
	}
}

// PriorityClass maps a class name to a pod priority.
type PriorityClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Value is the priority pods of this class get.
	Value int32 `json:"value" protobuf:"bytes,2,opt,name=value"`
	// GlobalDefault makes this the class of pods that name none.
	GlobalDefault bool `json:"globalDefault,omitempty" protobuf:"bytes,3,opt,name=globalDefault"`
	// Description says when to use the class.
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// PreemptionPolicy is "PreemptLowerPriority" (the default) or "Never".
	PreemptionPolicy *corev1.PreemptionPolicy `json:"preemptionPolicy,omitempty" protobuf:"bytes,5,opt,name=preemptionPolicy"`
}

// PriorityClassList is a list of PriorityClasses.
type PriorityClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []PriorityClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
