// Package authorizationv1 holds authorization.k8s.io/v1: the access reviews
// behind "kubectl auth can-i" and webhook authorization.
//
// Upstream: k8s.io/api/authorization/v1. These kinds are created, never stored.
package authorizationv1

import (
	"fmt"

	"kubik/ch01-apiserver/api/metav1"
)

// SubjectAccessReview asks whether a user may perform an action.
type SubjectAccessReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the user and the action.
	Spec SubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is the answer.
	Status SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SelfSubjectAccessReview asks whether the requesting user may perform an action.
type SelfSubjectAccessReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the action.
	Spec SelfSubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is the answer.
	Status SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// LocalSubjectAccessReview is a SubjectAccessReview limited to one namespace.
type LocalSubjectAccessReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the user and the action; its namespace must be the request's.
	Spec SubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is the answer.
	Status SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ResourceAttributes describe an action on a resource.
type ResourceAttributes struct {
	// Namespace of the object; "" means all namespaces for namespaced resources.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// Verb, e.g. "get", "list", "watch", "create", "*".
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
	// Group of the resource; "" is the core group.
	Group string `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	// Version of the resource.
	Version string `json:"version,omitempty" protobuf:"bytes,4,opt,name=version"`
	// Resource, e.g. "pods".
	Resource string `json:"resource,omitempty" protobuf:"bytes,5,opt,name=resource"`
	// Subresource, e.g. "log".
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,6,opt,name=subresource"`
	// Name of the object; "" means all.
	Name string `json:"name,omitempty" protobuf:"bytes,7,opt,name=name"`
	// FieldSelector of a list or watch.
	FieldSelector *FieldSelectorAttributes `json:"fieldSelector,omitempty" protobuf:"bytes,8,opt,name=fieldSelector"`
	// LabelSelector of a list or watch.
	LabelSelector *LabelSelectorAttributes `json:"labelSelector,omitempty" protobuf:"bytes,9,opt,name=labelSelector"`
}

// LabelSelectorAttributes is the label selector of an authorized request.
type LabelSelectorAttributes struct {
	// RawSelector is the selector as in a query string.
	RawSelector string `json:"rawSelector,omitempty" protobuf:"bytes,1,opt,name=rawSelector"`
	// Requirements is the parsed selector.
	Requirements []metav1.LabelSelectorRequirement `json:"requirements,omitempty" protobuf:"bytes,2,rep,name=requirements"`
}

// FieldSelectorAttributes is the field selector of an authorized request.
type FieldSelectorAttributes struct {
	// RawSelector is the selector as in a query string.
	RawSelector string `json:"rawSelector,omitempty" protobuf:"bytes,1,opt,name=rawSelector"`
	// Requirements is the parsed selector.
	Requirements []FieldSelectorRequirement `json:"requirements,omitempty" protobuf:"bytes,2,rep,name=requirements"`
}

// FieldSelectorRequirement is one "key operator values" term of a field
// selector. Upstream it lives in meta/v1.
type FieldSelectorRequirement struct {
	// Key is the field path.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Operator is "In", "NotIn", "Exists" or "DoesNotExist".
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=FieldSelectorOperator"`
	// Values for In and NotIn.
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// NonResourceAttributes describe an action on a non-resource path.
type NonResourceAttributes struct {
	// Path, e.g. "/healthz".
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	// Verb is the lower-case HTTP method, e.g. "get".
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
}

// SubjectAccessReviewSpec is a user and an action; exactly one of the attributes is set.
type SubjectAccessReviewSpec struct {
	// ResourceAttributes describe an action on a resource.
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	// NonResourceAttributes describe an action on a path.
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
	// User is the user name.
	User string `json:"user,omitempty" protobuf:"bytes,3,opt,name=user"`
	// Groups of the user.
	Groups []string `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	// Extra attributes of the user.
	Extra map[string]ExtraValue `json:"extra,omitempty" protobuf:"bytes,5,rep,name=extra"`
	// UID of the user.
	UID string `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
}

// ExtraValue is a list of strings (a named type so protobuf can encode map values).
type ExtraValue []string

func (t ExtraValue) String() string { return fmt.Sprintf("%v", []string(t)) }

// SelfSubjectAccessReviewSpec is an action of the requesting user.
type SelfSubjectAccessReviewSpec struct {
	// ResourceAttributes describe an action on a resource.
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	// NonResourceAttributes describe an action on a path.
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
}

// SubjectAccessReviewStatus is the answer of an access review.
type SubjectAccessReviewStatus struct {
	// Allowed is true when the action is allowed.
	Allowed bool `json:"allowed" protobuf:"varint,1,opt,name=allowed"`
	// Denied is true when an authorizer denied explicitly (not just had no opinion).
	Denied bool `json:"denied,omitempty" protobuf:"varint,4,opt,name=denied"`
	// Reason explains the decision, e.g. the RBAC binding that allowed it.
	Reason string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	// EvaluationError is set when the check could not be completed.
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,3,opt,name=evaluationError"`
}

// SelfSubjectRulesReview lists what the requesting user may do in a namespace
// ("kubectl auth can-i --list").
type SelfSubjectRulesReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the namespace.
	Spec SelfSubjectRulesReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is the list of rules.
	Status SubjectRulesReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SelfSubjectRulesReviewSpec names the namespace to evaluate.
type SelfSubjectRulesReviewSpec struct {
	// Namespace to evaluate rules for.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
}

// SubjectRulesReviewStatus is the set of actions a user may perform.
type SubjectRulesReviewStatus struct {
	// ResourceRules are the allowed actions on resources.
	ResourceRules []ResourceRule `json:"resourceRules" protobuf:"bytes,1,rep,name=resourceRules"`
	// NonResourceRules are the allowed actions on paths.
	NonResourceRules []NonResourceRule `json:"nonResourceRules" protobuf:"bytes,2,rep,name=nonResourceRules"`
	// Incomplete is true when an authorizer cannot list its rules (e.g. a webhook).
	Incomplete bool `json:"incomplete" protobuf:"bytes,3,rep,name=incomplete"`
	// EvaluationError is set when rules could not be evaluated.
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,4,opt,name=evaluationError"`
}

// ResourceRule is a set of allowed actions on resources.
type ResourceRule struct {
	// Verbs, e.g. "get", "*".
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// APIGroups of the resources.
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources, e.g. "pods".
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// ResourceNames restricts the rule to these names.
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
}

// NonResourceRule is a set of allowed actions on paths.
type NonResourceRule struct {
	// Verbs, e.g. "get".
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// NonResourceURLs, e.g. "/healthz", "/api/*".
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,2,rep,name=nonResourceURLs"`
}
