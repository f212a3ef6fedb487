// Package rbacv1 holds rbac.authorization.k8s.io/v1: Roles, ClusterRoles and
// the bindings that grant them to users, groups and service accounts.
//
// Upstream: k8s.io/api/rbac/v1.
package rbacv1

import "kubik/ch01-apiserver/api/metav1"

// Wildcards and subject kinds.
const (
	APIGroupAll    = "*"
	ResourceAll    = "*"
	VerbAll        = "*"
	NonResourceAll = "*"

	GroupKind          = "Group"
	ServiceAccountKind = "ServiceAccount"
	UserKind           = "User"

	// AutoUpdateAnnotationKey marks bootstrap roles the apiserver may reconcile at start-up.
	AutoUpdateAnnotationKey = "rbac.authorization.kubernetes.io/autoupdate"
)

// GroupName is the API group of this package.
const GroupName = "rbac.authorization.k8s.io"

// PolicyRule is one permission: verbs on resources (or on non-resource URLs).
type PolicyRule struct {
	// Verbs, e.g. "get", "list", "*".
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// APIGroups of the resources; "" is the core group.
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources, e.g. "pods" or "pods/log".
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// ResourceNames restricts the rule to objects with these names.
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
	// NonResourceURLs, e.g. "/healthz" or "/api/*" (ClusterRoles only).
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,5,rep,name=nonResourceURLs"`
}

// Subject is who a binding grants a role to.
type Subject struct {
	// Kind is "User", "Group" or "ServiceAccount".
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// APIGroup is "" for ServiceAccounts, "rbac.authorization.k8s.io" for users and groups.
	APIGroup string `json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"`
	// Name of the subject.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Namespace of a ServiceAccount.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// RoleRef names the role a binding grants.
type RoleRef struct {
	// APIGroup is "rbac.authorization.k8s.io".
	APIGroup string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	// Kind is "Role" or "ClusterRole".
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Name of the role.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// Role is a namespaced set of rules.
type Role struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Rules are the permissions of the role.
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// RoleList is a list of Roles.
type RoleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Role `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// RoleBinding grants a Role or ClusterRole within one namespace.
type RoleBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Subjects get the role.
	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	// RoleRef is the role granted; immutable.
	RoleRef RoleRef `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// RoleBindingList is a list of RoleBindings.
type RoleBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []RoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRole is a cluster-wide set of rules.
type ClusterRole struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Rules are the permissions of the role; computed when AggregationRule is set.
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
	// AggregationRule makes the role the union of the ClusterRoles it selects.
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty" protobuf:"bytes,3,opt,name=aggregationRule"`
}

// AggregationRule selects the ClusterRoles whose rules are aggregated.
type AggregationRule struct {
	// ClusterRoleSelectors select ClusterRoles by label.
	ClusterRoleSelectors []metav1.LabelSelector `json:"clusterRoleSelectors,omitempty" protobuf:"bytes,1,rep,name=clusterRoleSelectors"`
}

// ClusterRoleList is a list of ClusterRoles.
type ClusterRoleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ClusterRole `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRoleBinding grants a ClusterRole in every namespace.
type ClusterRoleBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Subjects get the role.
	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	// RoleRef is the ClusterRole granted; immutable.
	RoleRef RoleRef `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// ClusterRoleBindingList is a list of ClusterRoleBindings.
type ClusterRoleBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ClusterRoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}
