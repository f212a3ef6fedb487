package admissionregistrationv1

import "kubik/ch01-apiserver/api/metav1"

// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding: admission
// checks written in CEL and evaluated inside the apiserver
// (apiserver/policy), bound to requests by bindings.

// ParameterNotFoundActionType says what a binding does when its params are missing.
type ParameterNotFoundActionType string

// The parameterNotFoundAction values.
const (
	AllowAction ParameterNotFoundActionType = "Allow"
	DenyAction  ParameterNotFoundActionType = "Deny"
)

// ValidationAction says what a failed validation does to a request.
type ValidationAction string

// The validation actions.
const (
	Deny  ValidationAction = "Deny"
	Warn  ValidationAction = "Warn"
	Audit ValidationAction = "Audit"
)

// ValidatingAdmissionPolicy describes CEL validations of requests.
type ValidatingAdmissionPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec              ValidatingAdmissionPolicySpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status            ValidatingAdmissionPolicyStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ValidatingAdmissionPolicyStatus is the type checking result of a policy.
type ValidatingAdmissionPolicyStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	TypeChecking       *TypeChecking      `json:"typeChecking,omitempty" protobuf:"bytes,2,opt,name=typeChecking"`
	Conditions         []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,3,rep,name=conditions"`
}

// TypeChecking holds the warnings of type checking a policy's expressions.
type TypeChecking struct {
	ExpressionWarnings []ExpressionWarning `json:"expressionWarnings,omitempty" protobuf:"bytes,1,rep,name=expressionWarnings"`
}

// ExpressionWarning is one expression's type checking warning.
type ExpressionWarning struct {
	FieldRef string `json:"fieldRef" protobuf:"bytes,2,opt,name=fieldRef"`
	Warning  string `json:"warning" protobuf:"bytes,3,opt,name=warning"`
}

// ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicies.
type ValidatingAdmissionPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ValidatingAdmissionPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicySpec is what a policy checks and on which requests.
type ValidatingAdmissionPolicySpec struct {
	ParamKind        *ParamKind         `json:"paramKind,omitempty" protobuf:"bytes,1,rep,name=paramKind"`
	MatchConstraints *MatchResources    `json:"matchConstraints,omitempty" protobuf:"bytes,2,rep,name=matchConstraints"`
	Validations      []Validation       `json:"validations,omitempty" protobuf:"bytes,3,rep,name=validations"`
	FailurePolicy    *FailurePolicyType `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	AuditAnnotations []AuditAnnotation  `json:"auditAnnotations,omitempty" protobuf:"bytes,5,rep,name=auditAnnotations"`
	MatchConditions  []MatchCondition   `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,6,rep,name=matchConditions"`
	Variables        []Variable         `json:"variables,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=variables"`
}

// ParamKind is the kind of the objects that parameterize a policy.
type ParamKind struct {
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,rep,name=apiVersion"`
	Kind       string `json:"kind,omitempty" protobuf:"bytes,2,rep,name=kind"`
}

// Validation is one CEL expression a request must satisfy.
type Validation struct {
	Expression        string  `json:"expression" protobuf:"bytes,1,opt,name=Expression"`
	Message           string  `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	Reason            *string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	MessageExpression string  `json:"messageExpression,omitempty" protobuf:"bytes,4,opt,name=messageExpression"`
}

// Variable is a named CEL expression other expressions use as variables.<name>.
type Variable struct {
	Name       string `json:"name" protobuf:"bytes,1,opt,name=Name"`
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=Expression"`
}

// AuditAnnotation is an audit annotation a policy computes.
type AuditAnnotation struct {
	Key             string `json:"key" protobuf:"bytes,1,opt,name=key"`
	ValueExpression string `json:"valueExpression" protobuf:"bytes,2,opt,name=valueExpression"`
}

// ValidatingAdmissionPolicyBinding binds a policy to requests and params.
type ValidatingAdmissionPolicyBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec              ValidatingAdmissionPolicyBindingSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// ValidatingAdmissionPolicyBindingList is a list of ValidatingAdmissionPolicyBindings.
type ValidatingAdmissionPolicyBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ValidatingAdmissionPolicyBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicyBindingSpec names the policy, its params, the
// requests it narrows to and the actions of a failed validation.
type ValidatingAdmissionPolicyBindingSpec struct {
	PolicyName        string             `json:"policyName,omitempty" protobuf:"bytes,1,rep,name=policyName"`
	ParamRef          *ParamRef          `json:"paramRef,omitempty" protobuf:"bytes,2,rep,name=paramRef"`
	MatchResources    *MatchResources    `json:"matchResources,omitempty" protobuf:"bytes,3,rep,name=matchResources"`
	ValidationActions []ValidationAction `json:"validationActions,omitempty" protobuf:"bytes,4,rep,name=validationActions"`
}

// ParamRef finds the params of a binding: one object by name, or every
// object a selector matches.
type ParamRef struct {
	Name                    string                       `json:"name,omitempty" protobuf:"bytes,1,rep,name=name"`
	Namespace               string                       `json:"namespace,omitempty" protobuf:"bytes,2,rep,name=namespace"`
	Selector                *metav1.LabelSelector        `json:"selector,omitempty" protobuf:"bytes,3,rep,name=selector"`
	ParameterNotFoundAction *ParameterNotFoundActionType `json:"parameterNotFoundAction,omitempty" protobuf:"bytes,4,rep,name=parameterNotFoundAction"`
}

// MatchResources selects requests by resource, namespace and object labels.
type MatchResources struct {
	NamespaceSelector    *metav1.LabelSelector     `json:"namespaceSelector,omitempty" protobuf:"bytes,1,opt,name=namespaceSelector"`
	ObjectSelector       *metav1.LabelSelector     `json:"objectSelector,omitempty" protobuf:"bytes,2,opt,name=objectSelector"`
	ResourceRules        []NamedRuleWithOperations `json:"resourceRules,omitempty" protobuf:"bytes,3,rep,name=resourceRules"`
	ExcludeResourceRules []NamedRuleWithOperations `json:"excludeResourceRules,omitempty" protobuf:"bytes,4,rep,name=excludeResourceRules"`
	MatchPolicy          *MatchPolicyType          `json:"matchPolicy,omitempty" protobuf:"bytes,7,opt,name=matchPolicy,casttype=MatchPolicyType"`
}

// NamedRuleWithOperations is a rule narrowed to some object names.
type NamedRuleWithOperations struct {
	ResourceNames      []string `json:"resourceNames,omitempty" protobuf:"bytes,1,rep,name=resourceNames"`
	RuleWithOperations `json:",inline" protobuf:"bytes,2,opt,name=ruleWithOperations"`
}
