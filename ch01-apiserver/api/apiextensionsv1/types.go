// Package apiextensionsv1 holds the apiextensions.k8s.io/v1 types: the
// CustomResourceDefinition, with which a user adds a kind of their own to
// the API, and JSONSchemaProps, the OpenAPI v3 schema of that kind.
//
// Upstream: k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1
// (types.go, types_jsonschema.go).
package apiextensionsv1

import (
	"kubik/ch01-apiserver/api/metav1"
)

// GroupName is the API group of CustomResourceDefinitions.
const GroupName = "apiextensions.k8s.io"

// CustomResourceDefinition makes the apiserver serve a new resource,
// /apis/<spec.group>/<version>/<spec.names.plural>. Its name must be
// <spec.names.plural>.<spec.group>.
type CustomResourceDefinition struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec describes how the user wants the resources to appear.
	Spec CustomResourceDefinitionSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status indicates the actual state of the CustomResourceDefinition.
	Status CustomResourceDefinitionStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CustomResourceDefinitionSpec describes how a user wants their resource to appear.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the defined custom resource (e.g. stable.example.com).
	Group string `json:"group" protobuf:"bytes,1,opt,name=group"`
	// Names specify the resource and kind names for the custom resource.
	Names CustomResourceDefinitionNames `json:"names" protobuf:"bytes,3,opt,name=names"`
	// Scope indicates whether the defined custom resource is cluster- or namespace-scoped.
	Scope ResourceScope `json:"scope" protobuf:"bytes,4,opt,name=scope,casttype=ResourceScope"`
	// Versions is the list of all API versions of the defined custom resource.
	Versions []CustomResourceDefinitionVersion `json:"versions" protobuf:"bytes,7,rep,name=versions"`
	// Conversion defines conversion settings for the CRD.
	Conversion *CustomResourceConversion `json:"conversion,omitempty" protobuf:"bytes,9,opt,name=conversion"`
	// PreserveUnknownFields indicates that object fields which are not specified
	// in the OpenAPI schema should be preserved when persisting to storage.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty" protobuf:"varint,10,opt,name=preserveUnknownFields"`
}

// CustomResourceConversion describes how to convert different versions of a CR.
type CustomResourceConversion struct {
	// Strategy specifies how custom resources are converted between versions: None or Webhook.
	Strategy ConversionStrategyType `json:"strategy" protobuf:"bytes,1,name=strategy"`
	// Webhook describes how to call the conversion webhook.
	Webhook *WebhookConversion `json:"webhook,omitempty" protobuf:"bytes,2,opt,name=webhook"`
}

// ConversionStrategyType describes different conversion types.
type ConversionStrategyType string

const (
	// NoneConverter: only the apiVersion is changed.
	NoneConverter ConversionStrategyType = "None"
	// WebhookConverter: a webhook is called (not supported here).
	WebhookConverter ConversionStrategyType = "Webhook"
)

// WebhookConversion describes how to call a conversion webhook.
type WebhookConversion struct {
	ClientConfig             *WebhookClientConfig `json:"clientConfig,omitempty" protobuf:"bytes,2,name=clientConfig"`
	ConversionReviewVersions []string             `json:"conversionReviewVersions" protobuf:"bytes,3,rep,name=conversionReviewVersions"`
}

// WebhookClientConfig contains the information to make a TLS connection with the webhook.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	Service  *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	CABundle []byte            `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ServiceReference holds a reference to a Service.
type ServiceReference struct {
	Namespace string  `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	Name      string  `json:"name" protobuf:"bytes,2,opt,name=name"`
	Path      *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	Port      *int32  `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// CustomResourceDefinitionVersion describes a version for a CRD.
type CustomResourceDefinitionVersion struct {
	// Name is the version name, e.g. "v1", "v2beta1".
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Served is a flag enabling/disabling this version from being served via REST APIs.
	Served bool `json:"served" protobuf:"varint,2,opt,name=served"`
	// Storage indicates this version should be used when persisting custom resources
	// to storage. There must be exactly one version with storage=true.
	Storage bool `json:"storage" protobuf:"varint,3,opt,name=storage"`
	// Deprecated indicates this version of the custom resource API is deprecated.
	Deprecated bool `json:"deprecated,omitempty" protobuf:"varint,7,opt,name=deprecated"`
	// DeprecationWarning overrides the default warning returned to API clients.
	DeprecationWarning *string `json:"deprecationWarning,omitempty" protobuf:"bytes,8,opt,name=deprecationWarning"`
	// Schema describes the schema used for validation, pruning, and defaulting of this version.
	Schema *CustomResourceValidation `json:"schema,omitempty" protobuf:"bytes,4,opt,name=schema"`
	// Subresources specify what subresources this version of the defined custom resource have.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty" protobuf:"bytes,5,opt,name=subresources"`
	// AdditionalPrinterColumns specifies additional columns returned in Table output.
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty" protobuf:"bytes,6,rep,name=additionalPrinterColumns"`
	// SelectableFields specifies paths to fields that may be used as field selectors.
	SelectableFields []SelectableField `json:"selectableFields,omitempty" protobuf:"bytes,9,rep,name=selectableFields"`
}

// SelectableField specifies the JSON path of a field that may be used with field selectors.
type SelectableField struct {
	// JSONPath is a simple JSON path, e.g. ".spec.color".
	JSONPath string `json:"jsonPath" protobuf:"bytes,1,opt,name=jsonPath"`
}

// CustomResourceColumnDefinition specifies a column for server side printing.
type CustomResourceColumnDefinition struct {
	Name        string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Type        string `json:"type" protobuf:"bytes,2,opt,name=type"`
	Format      string `json:"format,omitempty" protobuf:"bytes,3,opt,name=format"`
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	Priority    int32  `json:"priority,omitempty" protobuf:"bytes,5,opt,name=priority"`
	JSONPath    string `json:"jsonPath" protobuf:"bytes,6,opt,name=jsonPath"`
}

// CustomResourceDefinitionNames indicates the names to serve this CRD.
type CustomResourceDefinitionNames struct {
	// Plural is the plural name of the resource to serve: /apis/<group>/<version>/<plural>.
	Plural string `json:"plural" protobuf:"bytes,1,opt,name=plural"`
	// Singular is the singular name of the resource. Defaults to lowercased kind.
	Singular string `json:"singular,omitempty" protobuf:"bytes,2,opt,name=singular"`
	// ShortNames are short names for the resource, exposed in API discovery documents.
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,3,opt,name=shortNames"`
	// Kind is the serialized kind of the resource.
	Kind string `json:"kind" protobuf:"bytes,4,opt,name=kind"`
	// ListKind is the serialized kind of the list for this resource. Defaults to "<kind>List".
	ListKind string `json:"listKind,omitempty" protobuf:"bytes,5,opt,name=listKind"`
	// Categories is a list of grouped resources this custom resource belongs to (e.g. 'all').
	Categories []string `json:"categories,omitempty" protobuf:"bytes,6,rep,name=categories"`
}

// ResourceScope is an enum defining the different scopes available to a custom resource.
type ResourceScope string

const (
	ClusterScoped   ResourceScope = "Cluster"
	NamespaceScoped ResourceScope = "Namespaced"
)

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// CustomResourceDefinitionConditionType is a valid value for CustomResourceDefinitionCondition.Type.
type CustomResourceDefinitionConditionType string

const (
	// Established means that the resource has become active.
	Established CustomResourceDefinitionConditionType = "Established"
	// NamesAccepted means the names chosen for this CRD do not conflict with others.
	NamesAccepted CustomResourceDefinitionConditionType = "NamesAccepted"
	// NonStructuralSchema means that one or more OpenAPI schema is not structural.
	NonStructuralSchema CustomResourceDefinitionConditionType = "NonStructuralSchema"
	// Terminating means that the CRD has been deleted and is cleaning up.
	Terminating CustomResourceDefinitionConditionType = "Terminating"
	// KubernetesAPIApprovalPolicyConformant indicates that an API in *.k8s.io or
	// *.kubernetes.io is or is not approved.
	KubernetesAPIApprovalPolicyConformant CustomResourceDefinitionConditionType = "KubernetesAPIApprovalPolicyConformant"
)

// CustomResourceCleanupFinalizer is the finalizer that deletes every custom
// object of a CRD before the CRD itself goes.
const CustomResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// CustomResourceDefinitionCondition contains details for the current condition of this CRD.
type CustomResourceDefinitionCondition struct {
	Type               CustomResourceDefinitionConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=CustomResourceDefinitionConditionType"`
	Status             ConditionStatus                       `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastTransitionTime metav1.Time                           `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                                `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                                `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
	ObservedGeneration int64                                 `json:"observedGeneration,omitempty" protobuf:"varint,6,opt,name=observedGeneration"`
}

// CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition.
type CustomResourceDefinitionStatus struct {
	// Conditions indicate state for particular aspects of a CustomResourceDefinition.
	Conditions []CustomResourceDefinitionCondition `json:"conditions,omitempty" protobuf:"bytes,1,opt,name=conditions" patchStrategy:"merge" patchMergeKey:"type"`
	// AcceptedNames are the names that are actually being used to serve discovery.
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames" protobuf:"bytes,2,opt,name=acceptedNames"`
	// StoredVersions lists all versions of CustomResources that were ever persisted.
	StoredVersions []string `json:"storedVersions" protobuf:"bytes,3,rep,name=storedVersions"`
	// ObservedGeneration is the generation the conditions were set for
	// (left 0 here; upstream's field 4, so that the protobuf form has it).
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,4,opt,name=observedGeneration"`
}

// CustomResourceValidation is a list of validation methods for CustomResources.
type CustomResourceValidation struct {
	// OpenAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty" protobuf:"bytes,1,opt,name=openAPIV3Schema"`
}

// CustomResourceSubresources defines the status and scale subresources for CustomResources.
type CustomResourceSubresources struct {
	// Status indicates the custom resource should serve a `/status` subresource.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty" protobuf:"bytes,1,opt,name=status"`
	// Scale indicates the custom resource should serve a `/scale` subresource.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty" protobuf:"bytes,2,opt,name=scale"`
}

// CustomResourceSubresourceStatus is empty: its presence enables /status.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale defines how to serve the scale subresource.
type CustomResourceSubresourceScale struct {
	// SpecReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`.
	SpecReplicasPath string `json:"specReplicasPath" protobuf:"bytes,1,name=specReplicasPath"`
	// StatusReplicasPath defines the JSON path that corresponds to Scale `status.replicas`.
	StatusReplicasPath string `json:"statusReplicasPath" protobuf:"bytes,2,opt,name=statusReplicasPath"`
	// LabelSelectorPath defines the JSON path that corresponds to Scale `status.selector`.
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty" protobuf:"bytes,3,opt,name=labelSelectorPath"`
}
