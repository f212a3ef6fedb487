// Package flowcontrolv1 holds flowcontrol.apiserver.k8s.io/v1, API Priority
// and Fairness: FlowSchemas sort incoming requests into flows by who sends
// them and what they ask for, and PriorityLevelConfigurations say how much
// of the apiserver's concurrency each level gets and what happens to the
// requests that find it full (queue or reject). The apiserver creates the
// suggested and mandatory objects at start.
//
// Upstream: k8s.io/api/flowcontrol/v1.
package flowcontrolv1

import "kubik/ch01-apiserver/api/metav1"

// GroupName is the API group.
const GroupName = "flowcontrol.apiserver.k8s.io"

// Wildcards of the rules.
const (
	APIGroupAll    = "*"
	ResourceAll    = "*"
	VerbAll        = "*"
	NonResourceAll = "*"
	NameAll        = "*"
	NamespaceEvery = "*" // every namespace, not the cluster scope
)

// Names of the mandatory objects.
const (
	PriorityLevelConfigurationNameExempt   = "exempt"
	PriorityLevelConfigurationNameCatchAll = "catch-all"
	FlowSchemaNameExempt                   = "exempt"
	FlowSchemaNameCatchAll                 = "catch-all"
)

// FlowSchemaConditionDangling: the FlowSchema names no existing priority level.
const FlowSchemaConditionDangling = "Dangling"

// FlowSchemaMaxMatchingPrecedence is the highest matchingPrecedence.
const FlowSchemaMaxMatchingPrecedence int32 = 10000

// AutoUpdateAnnotationKey marks the bootstrap objects whose spec the
// apiserver keeps at its suggested value.
const AutoUpdateAnnotationKey = "apf.kubernetes.io/autoupdate-spec"

// FlowSchema defines the schema of a group of flows: the requests it
// matches, the priority level they go to, and how they are told apart.
type FlowSchema struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the specification of the desired behavior of a FlowSchema.
	Spec FlowSchemaSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the current status of a FlowSchema.
	Status FlowSchemaStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// FlowSchemaList is a list of FlowSchema objects.
type FlowSchemaList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is a list of FlowSchemas.
	Items []FlowSchema `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// FlowSchemaSpec describes how the FlowSchema's specification looks like.
type FlowSchemaSpec struct {
	// PriorityLevelConfiguration references the priority level of the matched requests.
	PriorityLevelConfiguration PriorityLevelConfigurationReference `json:"priorityLevelConfiguration" protobuf:"bytes,1,opt,name=priorityLevelConfiguration"`
	// MatchingPrecedence chooses among the FlowSchemas that match a request: the numerically lowest wins.
	// Each value must be in [1,10000]; it defaults to 1000.
	MatchingPrecedence int32 `json:"matchingPrecedence" protobuf:"varint,2,opt,name=matchingPrecedence"`
	// DistinguisherMethod defines how to compute the flow distinguisher for requests that match this schema;
	// nil: the distinguisher is always the empty string.
	DistinguisherMethod *FlowDistinguisherMethod `json:"distinguisherMethod,omitempty" protobuf:"bytes,3,opt,name=distinguisherMethod"`
	// Rules describes which requests match this flow schema: those matching at least one member.
	Rules []PolicyRulesWithSubjects `json:"rules,omitempty" protobuf:"bytes,4,rep,name=rules"`
}

// FlowDistinguisherMethodType is the type of flow distinguisher method.
type FlowDistinguisherMethodType string

// The flow distinguisher methods.
const (
	// FlowDistinguisherMethodByUserType: the flow distinguisher is the user name.
	FlowDistinguisherMethodByUserType FlowDistinguisherMethodType = "ByUser"
	// FlowDistinguisherMethodByNamespaceType: the flow distinguisher is the namespace of the object acted upon.
	FlowDistinguisherMethodByNamespaceType FlowDistinguisherMethodType = "ByNamespace"
)

// FlowDistinguisherMethod specifies the method of a flow distinguisher.
type FlowDistinguisherMethod struct {
	// Type is the type of flow distinguisher method: "ByUser" or "ByNamespace".
	Type FlowDistinguisherMethodType `json:"type" protobuf:"bytes,1,opt,name=type"`
}

// PriorityLevelConfigurationReference contains information that points to the "request-priority" being used.
type PriorityLevelConfigurationReference struct {
	// Name is the name of the priority level configuration being referenced.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// PolicyRulesWithSubjects matches a request if at least one of its subjects
// matches the request's sender and at least one of its resource or
// non-resource rules matches what the request asks for.
type PolicyRulesWithSubjects struct {
	// Subjects is the list of normal user, serviceaccount, or group that this rule cares about.
	Subjects []Subject `json:"subjects" protobuf:"bytes,1,rep,name=subjects"`
	// ResourceRules identify matching requests according to their verb and the target resource.
	ResourceRules []ResourcePolicyRule `json:"resourceRules,omitempty" protobuf:"bytes,2,opt,name=resourceRules"`
	// NonResourceRules identify matching requests according to their verb and the target non-resource URL.
	NonResourceRules []NonResourcePolicyRule `json:"nonResourceRules,omitempty" protobuf:"bytes,3,opt,name=nonResourceRules"`
}

// Subject matches the originator of a request: by user, group, or service account.
type Subject struct {
	// Kind indicates which one of the other fields is non-empty.
	Kind SubjectKind `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// User matches based on username.
	User *UserSubject `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	// Group matches based on user group name.
	Group *GroupSubject `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	// ServiceAccount matches ServiceAccounts.
	ServiceAccount *ServiceAccountSubject `json:"serviceAccount,omitempty" protobuf:"bytes,4,opt,name=serviceAccount"`
}

// SubjectKind is the kind of subject.
type SubjectKind string

// The subject kinds.
const (
	SubjectKindUser           SubjectKind = "User"
	SubjectKindGroup          SubjectKind = "Group"
	SubjectKindServiceAccount SubjectKind = "ServiceAccount"
)

// UserSubject holds detailed information for user-kind subject.
type UserSubject struct {
	// Name is the username that matches, or "*" to match all usernames.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// GroupSubject holds detailed information for group-kind subject.
type GroupSubject struct {
	// Name is the user group that matches, or "*" to match all user groups.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// ServiceAccountSubject holds detailed information for service-account-kind subject.
type ServiceAccountSubject struct {
	// Namespace is the namespace of matching ServiceAccount objects.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// Name is the name of matching ServiceAccount objects, or "*" to match regardless of name.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
}

// ResourcePolicyRule matches resource requests by verb, API group,
// resource and namespace (or the cluster scope).
type ResourcePolicyRule struct {
	// Verbs is a list of matching verbs and may not be empty; "*" must be the only entry.
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// APIGroups is a list of matching API groups and may not be empty; "*" must be the only entry.
	APIGroups []string `json:"apiGroups" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources is a list of matching resources (lowercase and plural, with a subresource if desired,
	// e.g. "nodes/status"); "*" must be the only entry.
	Resources []string `json:"resources" protobuf:"bytes,3,rep,name=resources"`
	// ClusterScope indicates whether to match requests that do not specify a namespace.
	ClusterScope bool `json:"clusterScope,omitempty" protobuf:"varint,4,opt,name=clusterScope"`
	// Namespaces restricts matches to these target namespaces ("*": any specified namespace).
	Namespaces []string `json:"namespaces" protobuf:"bytes,5,rep,name=namespaces"`
}

// NonResourcePolicyRule matches non-resource requests by verb and URL.
type NonResourcePolicyRule struct {
	// Verbs is a list of matching verbs and may not be empty; "*" must be the only entry.
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// NonResourceURLs is a set of URL prefixes ("/healthz", "/healthz/*"); "*" must be the only entry.
	NonResourceURLs []string `json:"nonResourceURLs" protobuf:"bytes,6,rep,name=nonResourceURLs"`
}

// FlowSchemaStatus represents the current state of a FlowSchema.
type FlowSchemaStatus struct {
	// Conditions is a list of the current states of FlowSchema.
	Conditions []FlowSchemaCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// FlowSchemaCondition describes conditions for a FlowSchema.
type FlowSchemaCondition struct {
	// Type is the type of the condition.
	Type FlowSchemaConditionType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Status is the status of the condition: True, False, Unknown.
	Status ConditionStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is the last time the condition transitioned from one status to another.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a unique, one-word, CamelCase reason for the condition's last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable message indicating details about last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// FlowSchemaConditionType is a valid value for FlowSchemaCondition.Type.
type FlowSchemaConditionType string

// PriorityLevelConfiguration represents the configuration of a priority level.
type PriorityLevelConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the specification of the desired behavior of a "request-priority".
	Spec PriorityLevelConfigurationSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the current status of a "request-priority".
	Status PriorityLevelConfigurationStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PriorityLevelConfigurationList is a list of PriorityLevelConfiguration objects.
type PriorityLevelConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is a list of request-priorities.
	Items []PriorityLevelConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PriorityLevelConfigurationSpec specifies the configuration of a priority level.
type PriorityLevelConfigurationSpec struct {
	// Type is "Exempt" (never limited nor queued) or "Limited" (a share of the server's capacity).
	Type PriorityLevelEnablement `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Limited specifies how requests are handled for a Limited priority level.
	Limited *LimitedPriorityLevelConfiguration `json:"limited,omitempty" protobuf:"bytes,2,opt,name=limited"`
	// Exempt specifies how requests are handled for an exempt priority level.
	Exempt *ExemptPriorityLevelConfiguration `json:"exempt,omitempty" protobuf:"bytes,3,opt,name=exempt"`
}

// PriorityLevelEnablement indicates whether limits on execution are enabled for the priority level.
type PriorityLevelEnablement string

// The priority level enablements.
const (
	PriorityLevelEnablementExempt  PriorityLevelEnablement = "Exempt"
	PriorityLevelEnablementLimited PriorityLevelEnablement = "Limited"
)

// LimitedPriorityLevelConfiguration specifies how to handle requests that
// are subject to limits: how much they get, and what happens to the excess.
type LimitedPriorityLevelConfiguration struct {
	// NominalConcurrencyShares is this level's share of the server's concurrency limit (default 30).
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// LimitResponse indicates what to do with requests that can not be executed right now.
	LimitResponse LimitResponse `json:"limitResponse,omitempty" protobuf:"bytes,2,opt,name=limitResponse"`
	// LendablePercent is the fraction of the level's nominal limit other levels may borrow (0-100, default 0).
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,3,opt,name=lendablePercent"`
	// BorrowingLimitPercent limits how much this level may borrow, relative to its nominal limit (nil: no limit).
	BorrowingLimitPercent *int32 `json:"borrowingLimitPercent,omitempty" protobuf:"varint,4,opt,name=borrowingLimitPercent"`
}

// ExemptPriorityLevelConfiguration describes the configurable aspects of
// the handling of exempt requests.
type ExemptPriorityLevelConfiguration struct {
	// NominalConcurrencyShares is this level's nominal share of the server's concurrency limit (default 0).
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares,omitempty" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// LendablePercent is the fraction of the level's nominal limit other levels may borrow (0-100, default 0).
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,2,opt,name=lendablePercent"`
}

// LimitResponse defines how to handle requests that can not be executed right now.
type LimitResponse struct {
	// Type is "Queue" or "Reject".
	Type LimitResponseType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Queuing holds the configuration parameters for queuing (only with type "Queue").
	Queuing *QueuingConfiguration `json:"queuing,omitempty" protobuf:"bytes,2,opt,name=queuing"`
}

// LimitResponseType identifies how a Limited priority level handles a request that can not be executed right now.
type LimitResponseType string

// The limit responses.
const (
	LimitResponseTypeQueue  LimitResponseType = "Queue"
	LimitResponseTypeReject LimitResponseType = "Reject"
)

// QueuingConfiguration holds the configuration parameters for queuing.
type QueuingConfiguration struct {
	// Queues is the number of queues for this priority level (default 64).
	Queues int32 `json:"queues" protobuf:"varint,1,opt,name=queues"`
	// HandSize is how many queues a flow is shuffle-sharded over (default 8, at most queues).
	HandSize int32 `json:"handSize" protobuf:"varint,2,opt,name=handSize"`
	// QueueLengthLimit is the maximum number of requests waiting in one queue (default 50).
	QueueLengthLimit int32 `json:"queueLengthLimit" protobuf:"varint,3,opt,name=queueLengthLimit"`
}

// PriorityLevelConfigurationConditionType is a valid value for PriorityLevelConfigurationCondition.Type.
type PriorityLevelConfigurationConditionType string

// PriorityLevelConfigurationStatus represents the current state of a "request-priority".
type PriorityLevelConfigurationStatus struct {
	// Conditions is the current state of "request-priority".
	Conditions []PriorityLevelConfigurationCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// PriorityLevelConfigurationCondition defines the condition of priority level.
type PriorityLevelConfigurationCondition struct {
	// Type is the type of the condition.
	Type PriorityLevelConfigurationConditionType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Status is the status of the condition: True, False, Unknown.
	Status ConditionStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is the last time the condition transitioned from one status to another.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a unique, one-word, CamelCase reason for the condition's last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable message indicating details about last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ConditionStatus is the status of the condition.
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)
