// Package apiregistrationv1 holds apiregistration.k8s.io/v1 APIService: one
// group version the apiserver serves, either itself ("local": no service) or
// by proxying to an extension apiserver behind a Service (API aggregation).
//
// Upstream: k8s.io/kube-aggregator/pkg/apis/apiregistration/v1.
package apiregistrationv1

import "kubik/ch01-apiserver/api/metav1"

// GroupName is the API group of APIServices.
const GroupName = "apiregistration.k8s.io"

// AutoManagedLabel marks the APIServices the apiserver itself keeps for its
// built-in and custom resource group versions: "onstart" (created at start,
// never removed) or "true" (created and removed as CRDs come and go).
const AutoManagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// APIService says where one group version is served.
type APIService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec says where the group version is served.
	Spec APIServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status reports whether the group version is available.
	Status APIServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// APIServiceList is a list of APIServices.
type APIServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []APIService `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ServiceReference names the Service in front of an extension apiserver.
type ServiceReference struct {
	// Namespace is the namespace of the Service.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// Name is the name of the Service.
	Name string `json:"name,omitempty" protobuf:"bytes,2,opt,name=name"`
	// Port is the Service port the apiserver calls (default 443).
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`
}

// APIServiceSpec says where a group version is served and how it is ordered
// against the others in discovery.
type APIServiceSpec struct {
	// Service is the Service of the extension apiserver; nil: served by this apiserver.
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// Group is the API group name.
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// Version is the API version.
	Version string `json:"version,omitempty" protobuf:"bytes,3,opt,name=version"`
	// InsecureSkipTLSVerify: the backend's serving certificate is not verified.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty" protobuf:"varint,4,opt,name=insecureSkipTLSVerify"`
	// CABundle is the PEM bundle that verifies the backend's serving certificate.
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,5,opt,name=caBundle"`
	// GroupPriorityMinimum orders the groups in discovery: higher first.
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum" protobuf:"varint,7,opt,name=groupPriorityMinimum"`
	// VersionPriority orders the versions of a group: higher first.
	VersionPriority int32 `json:"versionPriority" protobuf:"varint,8,opt,name=versionPriority"`
}

// ConditionStatus is "True", "False" or "Unknown".
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// APIServiceConditionType names a condition.
type APIServiceConditionType string

// Available: the group version can be served.
const Available APIServiceConditionType = "Available"

// APIServiceCondition is one condition of an APIService.
type APIServiceCondition struct {
	// Type is the condition's type.
	Type APIServiceConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=APIServiceConditionType"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// LastTransitionTime is when the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// APIServiceStatus is the observed state of an APIService.
type APIServiceStatus struct {
	// Conditions are the current conditions.
	Conditions []APIServiceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// Condition returns the condition of the type, or nil.
func (s *APIServiceStatus) Condition(t APIServiceConditionType) *APIServiceCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// IsAvailable reports whether the Available condition is True.
func (a *APIService) IsAvailable() bool {
	c := a.Status.Condition(Available)
	return c != nil && c.Status == ConditionTrue
}
