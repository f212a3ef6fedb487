// Package admissionv1 holds admission.k8s.io/v1 AdmissionReview: what the
// apiserver POSTs to an admission webhook and what the webhook answers.
// It is a wire format only; the apiserver serves no resource of this group.
//
// Upstream: k8s.io/api/admission/v1.
package admissionv1

import (
	"encoding/json"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/metav1"
)

// SchemeGroupVersion is the apiVersion of an AdmissionReview.
const SchemeGroupVersion = "admission.k8s.io/v1"

// Operation is the verb of an admission request.
type Operation string

// The operations.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// PatchType is the format of AdmissionResponse.Patch.
type PatchType string

// PatchTypeJSONPatch is RFC 6902, the only patch type v1 allows.
const PatchTypeJSONPatch PatchType = "JSONPatch"

// GroupVersionKind is upstream's metav1.GroupVersionKind as JSON.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// GroupVersionResource is upstream's metav1.GroupVersionResource as JSON.
type GroupVersionResource struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

// AdmissionReview carries a request to a webhook and its response back.
type AdmissionReview struct {
	metav1.TypeMeta `json:",inline"`
	Request         *AdmissionRequest  `json:"request,omitempty"`
	Response        *AdmissionResponse `json:"response,omitempty"`
}

// AdmissionRequest describes the request being admitted. Object, OldObject
// and Options are raw JSON ("null" when absent, as upstream's RawExtension).
type AdmissionRequest struct {
	UID                string                    `json:"uid"`
	Kind               GroupVersionKind          `json:"kind"`
	Resource           GroupVersionResource      `json:"resource"`
	SubResource        string                    `json:"subResource,omitempty"`
	RequestKind        *GroupVersionKind         `json:"requestKind,omitempty"`
	RequestResource    *GroupVersionResource     `json:"requestResource,omitempty"`
	RequestSubResource string                    `json:"requestSubResource,omitempty"`
	Name               string                    `json:"name,omitempty"`
	Namespace          string                    `json:"namespace,omitempty"`
	Operation          Operation                 `json:"operation"`
	UserInfo           authenticationv1.UserInfo `json:"userInfo"`
	Object             json.RawMessage           `json:"object"`
	OldObject          json.RawMessage           `json:"oldObject"`
	DryRun             *bool                     `json:"dryRun,omitempty"`
	Options            json.RawMessage           `json:"options"`
}

// AdmissionResponse is the webhook's answer.
type AdmissionResponse struct {
	UID              string            `json:"uid"`
	Allowed          bool              `json:"allowed"`
	Result           *metav1.Status    `json:"status,omitempty"`
	Patch            []byte            `json:"patch,omitempty"`
	PatchType        *PatchType        `json:"patchType,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
}
