// Package certificatesv1 holds certificates.k8s.io/v1
// CertificateSigningRequest: a PKCS#10 request for an X.509 certificate, the
// approval (or denial) a human or a controller gives it through its
// /approval subresource, and the certificate a signer writes through
// /status. Kubelets get their client and serving certificates this way;
// `kubectl certificate approve` is the human side.
//
// Upstream: k8s.io/api/certificates/v1.
package certificatesv1

import (
	"fmt"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// GroupName is the API group of this package.
const GroupName = "certificates.k8s.io"

// CertificateSigningRequest objects provide a mechanism to obtain x509 certificates
// by submitting a certificate signing request, and having it asynchronously approved and issued.
type CertificateSigningRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec contains the certificate request, and is immutable after creation.
	// Only the request, signerName, expirationSeconds, and usages fields can be set on creation.
	Spec CertificateSigningRequestSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status says whether the request is approved or denied, and holds the
	// certificate issued by the signer or the condition saying it failed.
	Status CertificateSigningRequestStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CertificateSigningRequestSpec contains the certificate request.
type CertificateSigningRequestSpec struct {
	// Request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block.
	// When serialized as JSON or YAML, the data is additionally base64-encoded.
	Request []byte `json:"request" protobuf:"bytes,1,opt,name=request"`
	// SignerName indicates the requested signer, and is a qualified name ("example.com/signer-name").
	SignerName string `json:"signerName" protobuf:"bytes,7,opt,name=signerName"`
	// ExpirationSeconds is the requested duration of validity of the issued certificate (at least 600).
	ExpirationSeconds *int32 `json:"expirationSeconds,omitempty" protobuf:"varint,8,opt,name=expirationSeconds"`
	// Usages specifies a set of key usages requested in the issued certificate.
	Usages []KeyUsage `json:"usages,omitempty" protobuf:"bytes,5,opt,name=usages"`
	// Username contains the name of the user that created the CertificateSigningRequest.
	// Populated by the API server on creation and immutable.
	Username string `json:"username,omitempty" protobuf:"bytes,2,opt,name=username"`
	// UID contains the uid of the user that created the CertificateSigningRequest.
	// Populated by the API server on creation and immutable.
	UID string `json:"uid,omitempty" protobuf:"bytes,3,opt,name=uid"`
	// Groups contains group membership of the user that created the CertificateSigningRequest.
	// Populated by the API server on creation and immutable.
	Groups []string `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	// Extra contains extra attributes of the user that created the CertificateSigningRequest.
	// Populated by the API server on creation and immutable.
	Extra map[string]ExtraValue `json:"extra,omitempty" protobuf:"bytes,6,rep,name=extra"`
}

// Built-in signer names that kube-controller-manager honours.
const (
	// KubeAPIServerClientSignerName issues client certificates that authenticate to kube-apiserver; never auto-approved.
	KubeAPIServerClientSignerName = "kubernetes.io/kube-apiserver-client"
	// KubeAPIServerClientKubeletSignerName issues the client certificates kubelets authenticate with; may be auto-approved.
	KubeAPIServerClientKubeletSignerName = "kubernetes.io/kube-apiserver-client-kubelet"
	// KubeletServingSignerName issues the serving certificates of kubelets; never auto-approved.
	KubeletServingSignerName = "kubernetes.io/kubelet-serving"
	// LegacyUnknownSignerName is the v1beta1 default, refused by the v1 API.
	LegacyUnknownSignerName = "kubernetes.io/legacy-unknown"
)

// ExtraValue is a list of strings (a named type so protobuf can encode map values).
type ExtraValue []string

func (t ExtraValue) String() string { return fmt.Sprintf("%v", []string(t)) }

// CertificateSigningRequestStatus contains conditions used to indicate
// approved/denied/failed status of the request, and the issued certificate.
type CertificateSigningRequestStatus struct {
	// Conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".
	Conditions []CertificateSigningRequestCondition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
	// Certificate is populated with an issued certificate (PEM) by the signer after an Approved condition is present.
	// It is set via the /status subresource and is immutable once populated.
	Certificate []byte `json:"certificate,omitempty" protobuf:"bytes,2,opt,name=certificate"`
}

// RequestConditionType is the type of a CertificateSigningRequestCondition.
type RequestConditionType string

// Well-known condition types for certificate requests.
const (
	// CertificateApproved: the request was approved and should be issued by the signer.
	CertificateApproved RequestConditionType = "Approved"
	// CertificateDenied: the request was denied and should not be issued by the signer.
	CertificateDenied RequestConditionType = "Denied"
	// CertificateFailed: the signer failed to issue the certificate.
	CertificateFailed RequestConditionType = "Failed"
)

// CertificateSigningRequestCondition describes a condition of a CertificateSigningRequest object.
type CertificateSigningRequestCondition struct {
	// Type of the condition: "Approved" and "Denied" (mutually exclusive, added via /approval)
	// or "Failed" (added via /status). None of them can be removed once added.
	Type RequestConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=RequestConditionType"`
	// Status of the condition, one of True, False, Unknown; Approved, Denied and Failed may only be True.
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,6,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	// Reason indicates a brief reason for the request state.
	Reason string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	// Message contains a human readable message with details about the request state.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// LastUpdateTime is the time of the last update to this condition.
	LastUpdateTime metav1.Time `json:"lastUpdateTime,omitempty" protobuf:"bytes,4,opt,name=lastUpdateTime"`
	// LastTransitionTime is the time the condition last transitioned from one status to another;
	// the server sets it when it is unset.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,5,opt,name=lastTransitionTime"`
}

// CertificateSigningRequestList is a collection of CertificateSigningRequest objects.
type CertificateSigningRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is a collection of CertificateSigningRequest objects.
	Items []CertificateSigningRequest `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// KeyUsage specifies valid usage contexts for keys (RFC 5280 4.2.1.3 and 4.2.1.12).
type KeyUsage string

// The valid key usages.
const (
	UsageSigning           KeyUsage = "signing"
	UsageDigitalSignature  KeyUsage = "digital signature"
	UsageContentCommitment KeyUsage = "content commitment"
	UsageKeyEncipherment   KeyUsage = "key encipherment"
	UsageKeyAgreement      KeyUsage = "key agreement"
	UsageDataEncipherment  KeyUsage = "data encipherment"
	UsageCertSign          KeyUsage = "cert sign"
	UsageCRLSign           KeyUsage = "crl sign"
	UsageEncipherOnly      KeyUsage = "encipher only"
	UsageDecipherOnly      KeyUsage = "decipher only"
	UsageAny               KeyUsage = "any"
	UsageServerAuth        KeyUsage = "server auth"
	UsageClientAuth        KeyUsage = "client auth"
	UsageCodeSigning       KeyUsage = "code signing"
	UsageEmailProtection   KeyUsage = "email protection"
	UsageSMIME             KeyUsage = "s/mime"
	UsageIPsecEndSystem    KeyUsage = "ipsec end system"
	UsageIPsecTunnel       KeyUsage = "ipsec tunnel"
	UsageIPsecUser         KeyUsage = "ipsec user"
	UsageTimestamping      KeyUsage = "timestamping"
	UsageOCSPSigning       KeyUsage = "ocsp signing"
	UsageMicrosoftSGC      KeyUsage = "microsoft sgc"
	UsageNetscapeSGC       KeyUsage = "netscape sgc"
)
