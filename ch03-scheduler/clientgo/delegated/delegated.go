// Package delegated is how a server other than the apiserver (a kubelet, a
// hollow node's kubelet API, an aggregated API server such as the metrics
// server) authenticates bearer tokens and authorizes requests: it asks the
// apiserver, with a TokenReview and a SubjectAccessReview, whose answers are
// written back into the request and never stored.
//
// Upstream: the "delegating" authenticator and authorizer of
// k8s.io/apiserver (pkg/authentication/authenticatorfactory,
// pkg/authorization/authorizerfactory) over webhook clients of
// authentication.k8s.io/v1 and authorization.k8s.io/v1.
package delegated

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/authorizationv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// User is who a request comes from.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// BearerToken is the token of the request's `Authorization: Bearer` header,
// or "".
func BearerToken(r *http.Request) string {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(token)
}

// ReviewToken asks the apiserver who the bearer of token is: nil when the
// token authenticates no one.
func ReviewToken(ctx context.Context, c *rest.Client, token string) (*User, error) {
	tr := &authenticationv1.TokenReview{TypeMeta: metav1.TypeMeta{Kind: "TokenReview", APIVersion: "authentication.k8s.io/v1"},
		Spec: authenticationv1.TokenReviewSpec{Token: token}}
	if err := review(ctx, c, "/apis/authentication.k8s.io/v1/tokenreviews", tr); err != nil {
		return nil, err
	}
	if !tr.Status.Authenticated {
		return nil, nil
	}
	u := &User{Name: tr.Status.User.Username, UID: tr.Status.User.UID, Groups: tr.Status.User.Groups}
	for k, v := range tr.Status.User.Extra {
		if u.Extra == nil {
			u.Extra = map[string][]string{}
		}
		u.Extra[k] = v
	}
	return u, nil
}

// Authorize asks the apiserver whether u may do what res (a resource
// request) or nonRes (a path) describes: allowed, and the authorizer's
// reason.
func Authorize(ctx context.Context, c *rest.Client, u *User, res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes) (bool, string, error) {
	spec := authorizationv1.SubjectAccessReviewSpec{User: u.Name, UID: u.UID, Groups: u.Groups,
		ResourceAttributes: res, NonResourceAttributes: nonRes}
	for k, v := range u.Extra {
		if spec.Extra == nil {
			spec.Extra = map[string]authorizationv1.ExtraValue{}
		}
		spec.Extra[k] = v
	}
	sar := &authorizationv1.SubjectAccessReview{TypeMeta: metav1.TypeMeta{Kind: "SubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}, Spec: spec}
	if err := review(ctx, c, "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar); err != nil {
		return false, "", err
	}
	return sar.Status.Allowed, sar.Status.Reason, nil
}

// review POSTs a review and reads the answer back into it.
func review(ctx context.Context, c *rest.Client, path string, obj any) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return c.Do(ctx, rest.Request{Method: http.MethodPost, Path: path, Body: body}, obj)
}
