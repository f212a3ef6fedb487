// Package nodev1 holds node.k8s.io/v1 RuntimeClass: a container runtime
// configuration (a CRI handler) pods choose by spec.runtimeClassName, with
// the pod overhead it costs and the nodes that have it.
//
// Upstream: k8s.io/api/node/v1.
package nodev1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// RuntimeClass defines a class of container runtime supported in the cluster.
type RuntimeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Handler is the name of the CRI runtime handler that runs pods of this class (a DNS label, immutable).
	Handler string `json:"handler" protobuf:"bytes,2,opt,name=handler"`
	// Overhead is the resources a pod of this class uses on top of its containers'.
	Overhead *Overhead `json:"overhead,omitempty" protobuf:"bytes,3,opt,name=overhead"`
	// Scheduling constrains pods of this class to the nodes that support it.
	Scheduling *Scheduling `json:"scheduling,omitempty" protobuf:"bytes,4,opt,name=scheduling"`
}

// Overhead is the resource overhead of running a pod of a RuntimeClass.
type Overhead struct {
	// PodFixed is the fixed overhead of a pod.
	PodFixed corev1.ResourceList `json:"podFixed,omitempty" protobuf:"bytes,1,opt,name=podFixed,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName,castvalue=k8s.io/apimachinery/pkg/api/resource.Quantity"`
}

// Scheduling is what pods of a RuntimeClass need from their nodes; the
// RuntimeClass admission merges it into each pod.
type Scheduling struct {
	// NodeSelector lists the labels a node must have to run pods of this class.
	NodeSelector map[string]string `json:"nodeSelector,omitempty" protobuf:"bytes,1,opt,name=nodeSelector"`
	// Tolerations are added to the pods of this class.
	Tolerations []corev1.Toleration `json:"tolerations,omitempty" protobuf:"bytes,2,rep,name=tolerations"`
}

// RuntimeClassList is a list of RuntimeClasses.
type RuntimeClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of RuntimeClasses.
	Items []RuntimeClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
