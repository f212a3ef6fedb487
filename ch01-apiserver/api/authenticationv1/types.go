// Package authenticationv1 holds authentication.k8s.io/v1: TokenReview,
// TokenRequest (the serviceaccounts/token subresource) and SelfSubjectReview
// ("kubectl auth whoami").
//
// Upstream: k8s.io/api/authentication/v1. These kinds are created, never stored.
package authenticationv1

import (
	"fmt"

	"kubik/ch01-apiserver/api/metav1"
)

// Impersonation request headers.
const (
	ImpersonateUserHeader            = "Impersonate-User"
	ImpersonateGroupHeader           = "Impersonate-Group"
	ImpersonateUIDHeader             = "Impersonate-Uid"
	ImpersonateUserExtraHeaderPrefix = "Impersonate-Extra-"
)

// TokenReview asks the apiserver who a bearer token belongs to.
type TokenReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec holds the token.
	Spec TokenReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is the answer.
	Status TokenReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenReviewSpec is the token to check.
type TokenReviewSpec struct {
	// Token is the opaque bearer token.
	Token string `json:"token,omitempty" protobuf:"bytes,1,opt,name=token"`
	// Audiences the token must be valid for (defaults to the apiserver's).
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,2,rep,name=audiences"`
}

// TokenReviewStatus is the result of a token review.
type TokenReviewStatus struct {
	// Authenticated is true when the token is valid.
	Authenticated bool `json:"authenticated,omitempty" protobuf:"varint,1,opt,name=authenticated"`
	// User is who the token belongs to.
	User UserInfo `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	// Audiences the token is valid for.
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,4,rep,name=audiences"`
	// Error says why the review failed.
	Error string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// UserInfo is an authenticated user.
type UserInfo struct {
	// Username uniquely identifies the user.
	Username string `json:"username,omitempty" protobuf:"bytes,1,opt,name=username"`
	// UID identifies the user across name changes.
	UID string `json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid"`
	// Groups the user belongs to.
	Groups []string `json:"groups,omitempty" protobuf:"bytes,3,rep,name=groups"`
	// Extra holds any additional attributes from the authenticator.
	Extra map[string]ExtraValue `json:"extra,omitempty" protobuf:"bytes,4,rep,name=extra"`
}

// ExtraValue is a list of strings (a named type so protobuf can encode map values).
type ExtraValue []string

func (t ExtraValue) String() string { return fmt.Sprintf("%v", []string(t)) }

// TokenRequest asks for a token of a service account (POST serviceaccounts/<name>/token).
type TokenRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is what the token should be like.
	Spec TokenRequestSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status holds the issued token.
	Status TokenRequestStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenRequestSpec is the requested token.
type TokenRequestSpec struct {
	// Audiences the token is for (defaults to the apiserver's).
	Audiences []string `json:"audiences" protobuf:"bytes,1,rep,name=audiences"`
	// ExpirationSeconds is the requested lifetime (defaults to one hour).
	ExpirationSeconds *int64 `json:"expirationSeconds" protobuf:"varint,4,opt,name=expirationSeconds"`
	// BoundObjectRef ties the token's validity to an object (a Pod, Secret or Node).
	BoundObjectRef *BoundObjectReference `json:"boundObjectRef" protobuf:"bytes,3,opt,name=boundObjectRef"`
}

// TokenRequestStatus is the issued token.
type TokenRequestStatus struct {
	// Token is the opaque bearer token.
	Token string `json:"token" protobuf:"bytes,1,opt,name=token"`
	// ExpirationTimestamp is when the token expires.
	ExpirationTimestamp metav1.Time `json:"expirationTimestamp" protobuf:"bytes,2,opt,name=expirationTimestamp"`
}

// BoundObjectReference is the object a token is bound to.
type BoundObjectReference struct {
	// Kind is "Pod", "Secret" or "Node".
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	// APIVersion of the object.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"`
	// Name of the object.
	Name string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	// UID of the object.
	UID string `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uID,casttype=k8s.io/apimachinery/pkg/types.UID"`
}

// SelfSubjectReview returns the user the request was authenticated as.
type SelfSubjectReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Status is filled in by the server.
	Status SelfSubjectReviewStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
}

// SelfSubjectReviewStatus holds the user's attributes.
type SelfSubjectReviewStatus struct {
	// UserInfo is the requesting user.
	UserInfo UserInfo `json:"userInfo,omitempty" protobuf:"bytes,1,opt,name=userInfo"`
}
