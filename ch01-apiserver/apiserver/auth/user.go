// Package auth is the apiserver's authentication and authorization: who
// made a request and whether they may do it.
//
//   - UserInfo and the well-known users and groups (this file);
//   - authenticators: verified client certificates, bearer tokens, the
//     static token file (authenticator.go, tokenfile.go);
//   - Attributes, the Authorizer interface, the chain of
//     --authorization-mode and the AlwaysAllow/AlwaysDeny modes (authorizer.go);
//   - impersonation: acting as another user (impersonation.go).
//
// The RBAC authorizer is in rbac/ (its bootstrap policy in
// rbac/bootstrappolicy/), the Node authorizer in node/, ServiceAccount tokens
// in serviceaccount/. The apiserver wires them into its filter chain and reads
// objects for them. Upstream: k8s.io/apiserver/pkg/authentication and
// k8s.io/apiserver/pkg/authorization.
package auth

import (
	"context"
	"slices"
	"strings"
)

// UserInfo is who made a request. Upstream: k8s.io/apiserver/pkg/authentication/user.
type UserInfo struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Well-known users and groups.
const (
	GroupAuthenticated   = "system:authenticated"
	GroupUnauthenticated = "system:unauthenticated"
	UserAnonymous        = "system:anonymous"
	GroupMasters         = "system:masters"
)

// Component identities, as in the client certificates pki issues.
const (
	UserKubeScheduler         = "system:kube-scheduler"
	UserKubeControllerManager = "system:kube-controller-manager"
	UserKubeProxy             = "system:kube-proxy"
	GroupNodes                = "system:nodes"
	NodeUserPrefix            = "system:node:"
	GroupServiceAccounts      = "system:serviceaccounts"
)

// ExtraCredentialID is the extra that names the credential a request was
// authenticated with (audit logs, `kubectl auth whoami`).
const ExtraCredentialID = "authentication.kubernetes.io/credential-id"

type userKey struct{}

// WithUser returns a context that carries the authenticated user.
// Upstream: k8s.io/apiserver/pkg/endpoints/request.WithUser.
func WithUser(ctx context.Context, u *UserInfo) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the authenticated user of a request context.
func UserFrom(ctx context.Context) (*UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(*UserInfo)
	return u, ok
}

// ServiceAccountUsername is "system:serviceaccount:<namespace>:<name>".
// Upstream: k8s.io/apiserver/pkg/authentication/serviceaccount.MakeUsername.
func ServiceAccountUsername(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// SplitServiceAccountUsername splits "system:serviceaccount:<ns>:<name>".
func SplitServiceAccountUsername(u string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(u, "system:serviceaccount:")
	if !found {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	if !ok || namespace == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return namespace, name, true
}

// NodeIdentity returns the node name of a kubelet's identity: user
// system:node:<name> in group system:nodes.
// Upstream: pkg/auth/nodeidentifier.
func NodeIdentity(u *UserInfo) (string, bool) {
	if u == nil || !slices.Contains(u.Groups, GroupNodes) || !strings.HasPrefix(u.Name, NodeUserPrefix) {
		return "", false
	}
	return strings.TrimPrefix(u.Name, NodeUserPrefix), true
}

// appendIfMissing adds v to list unless it is there.
func appendIfMissing(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
