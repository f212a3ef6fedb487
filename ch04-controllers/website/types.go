package website

import (
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
)

// Group, Version and Kind of the custom resource crd.yaml defines.
const (
	Group      = "kubik.io"
	Version    = "v1alpha1"
	Kind       = "Website"
	APIVersion = Group + "/" + Version
	// CRDName is the CustomResourceDefinition's name: <plural>.<group>.
	CRDName = "websites." + Group
)

// Resource is websites.kubik.io for the client and the informer: a custom
// resource has no entry in the static scheme, so the controller names its
// path itself (the informer's Options.Resource, rest.ResourcePath).
var Resource = &scheme.Resource{Group: Group, Version: Version, Resource: "websites", Kind: Kind,
	Singular: "website", Namespaced: true, ShortNames: []string{"ws"}}

// Website is one object of the custom resource, as a Go struct of our own:
// the controller's view of the schema in crd.yaml (upstream: the types a
// kubebuilder project writes in api/v1alpha1).
type Website struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WebsiteSpec   `json:"spec"`
	Status            WebsiteStatus `json:"status,omitempty"`
}

// WebsiteSpec is what the user asks for.
type WebsiteSpec struct {
	// Image is the web server's image; it runs busybox's httpd.
	Image string `json:"image,omitempty"`
	// Replicas is the number of web server pods (the scale subresource).
	Replicas *int32 `json:"replicas,omitempty"`
	// Content is the page served as /index.html.
	Content string `json:"content,omitempty"`
}

// WebsiteStatus is what the controller observed.
type WebsiteStatus struct {
	Replicas           int32              `json:"replicas,omitempty"`
	ReadyReplicas      int32              `json:"readyReplicas,omitempty"`
	URL                string             `json:"url,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// Condition types and reasons of a Website.
const (
	// Ready: every replica of the Deployment is ready.
	ConditionReady = "Ready"
	// Progressing: the Deployment has not reached the spec yet.
	ConditionProgressing = "Progressing"

	ReasonAvailable    = "MinimumReplicasAvailable"
	ReasonUnavailable  = "ReplicasNotReady"
	ReasonScaledToZero = "ScaledToZero"
	ReasonRolloutDone  = "RolloutComplete"
	ReasonRollingOut   = "RollingOut"
)
