// Package admissionregistrationv1 holds admissionregistration.k8s.io/v1
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration: which
// requests the apiserver sends to which admission webhooks.
//
// Upstream: k8s.io/api/admissionregistration/v1.
package admissionregistrationv1

import "kubik/ch01-apiserver/api/metav1"

// GroupName is the API group of the webhook configurations.
const GroupName = "admissionregistration.k8s.io"

// ScopeType says which objects a rule covers by scope.
type ScopeType string

// The scopes of a Rule.
const (
	ClusterScope    ScopeType = "Cluster"
	NamespacedScope ScopeType = "Namespaced"
	AllScopes       ScopeType = "*"
)

// FailurePolicyType says what happens when the webhook cannot be called.
type FailurePolicyType string

// The failure policies.
const (
	Ignore FailurePolicyType = "Ignore"
	Fail   FailurePolicyType = "Fail"
)

// MatchPolicyType says how rules match requests made through other versions.
type MatchPolicyType string

// The match policies.
const (
	Exact      MatchPolicyType = "Exact"
	Equivalent MatchPolicyType = "Equivalent"
)

// SideEffectClass says whether a webhook changes anything outside the object.
type SideEffectClass string

// The side-effect classes (Unknown and Some are refused in v1).
const (
	SideEffectClassUnknown      SideEffectClass = "Unknown"
	SideEffectClassNone         SideEffectClass = "None"
	SideEffectClassSome         SideEffectClass = "Some"
	SideEffectClassNoneOnDryRun SideEffectClass = "NoneOnDryRun"
)

// ReinvocationPolicyType says whether a mutating webhook runs again after later mutations.
type ReinvocationPolicyType string

// The reinvocation policies.
const (
	NeverReinvocationPolicy    ReinvocationPolicyType = "Never"
	IfNeededReinvocationPolicy ReinvocationPolicyType = "IfNeeded"
)

// OperationType is the verb of an admission request.
type OperationType string

// The operations a rule may name.
const (
	OperationAll OperationType = "*"
	Create       OperationType = "CREATE"
	Update       OperationType = "UPDATE"
	Delete       OperationType = "DELETE"
	Connect      OperationType = "CONNECT"
)

// Rule names API groups, versions and resources ("pods", "pods/status", "*", "*/*").
type Rule struct {
	APIGroups   []string   `json:"apiGroups,omitempty" protobuf:"bytes,1,rep,name=apiGroups"`
	APIVersions []string   `json:"apiVersions,omitempty" protobuf:"bytes,2,rep,name=apiVersions"`
	Resources   []string   `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	Scope       *ScopeType `json:"scope,omitempty" protobuf:"bytes,4,rep,name=scope"`
}

// RuleWithOperations is a Rule and the operations it covers.
type RuleWithOperations struct {
	Operations []OperationType `json:"operations,omitempty" protobuf:"bytes,1,rep,name=operations,casttype=OperationType"`
	Rule       `json:",inline" protobuf:"bytes,2,opt,name=rule"`
}

// ServiceReference names the Service a webhook is served by.
type ServiceReference struct {
	Namespace string  `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	Name      string  `json:"name" protobuf:"bytes,2,opt,name=name"`
	Path      *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	Port      *int32  `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// WebhookClientConfig says how to reach a webhook: a URL or a Service, and
// the CA bundle that signs its serving certificate.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	Service  *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	CABundle []byte            `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// MatchCondition is a CEL expression a request must satisfy for the webhook to be called.
type MatchCondition struct {
	Name       string `json:"name" protobuf:"bytes,1,opt,name=Name"`
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=Expression"`
}

// ValidatingWebhook is one webhook that may refuse a request.
type ValidatingWebhook struct {
	Name                    string                `json:"name" protobuf:"bytes,1,opt,name=name"`
	ClientConfig            WebhookClientConfig   `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	Rules                   []RuleWithOperations  `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	FailurePolicy           *FailurePolicyType    `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	MatchPolicy             *MatchPolicyType      `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	NamespaceSelector       *metav1.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	ObjectSelector          *metav1.LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,10,opt,name=objectSelector"`
	SideEffects             *SideEffectClass      `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	TimeoutSeconds          *int32                `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	AdmissionReviewVersions []string              `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	MatchConditions         []MatchCondition      `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,11,opt,name=matchConditions"`
}

// MutatingWebhook is one webhook that may change or refuse a request.
type MutatingWebhook struct {
	Name                    string                  `json:"name" protobuf:"bytes,1,opt,name=name"`
	ClientConfig            WebhookClientConfig     `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	Rules                   []RuleWithOperations    `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	FailurePolicy           *FailurePolicyType      `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	MatchPolicy             *MatchPolicyType        `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	NamespaceSelector       *metav1.LabelSelector   `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	ObjectSelector          *metav1.LabelSelector   `json:"objectSelector,omitempty" protobuf:"bytes,11,opt,name=objectSelector"`
	SideEffects             *SideEffectClass        `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	TimeoutSeconds          *int32                  `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	AdmissionReviewVersions []string                `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	ReinvocationPolicy      *ReinvocationPolicyType `json:"reinvocationPolicy,omitempty" protobuf:"bytes,10,opt,name=reinvocationPolicy,casttype=ReinvocationPolicyType"`
	MatchConditions         []MatchCondition        `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,12,opt,name=matchConditions"`
}

// ValidatingWebhookConfiguration lists validating webhooks.
type ValidatingWebhookConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Webhooks          []ValidatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// ValidatingWebhookConfigurationList is a list of ValidatingWebhookConfigurations.
type ValidatingWebhookConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ValidatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// MutatingWebhookConfiguration lists mutating webhooks.
type MutatingWebhookConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Webhooks          []MutatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// MutatingWebhookConfigurationList is a list of MutatingWebhookConfigurations.
type MutatingWebhookConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []MutatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}
