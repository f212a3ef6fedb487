package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/selection"
)

// Authorization: after authentication says who is asking, the authorizers
// decide whether they may. Upstream: k8s.io/apiserver/pkg/authorization and
// the authorization filter (endpoints/filters/authorization.go).
//
// A request becomes Attributes (user, verb, resource or path); the
// authorizers of --authorization-mode are asked in order. Each answers
// Allow, Deny or NoOpinion; the first Allow or Deny wins, and when nobody
// allows, the request is refused with 403 and upstream's message:
//
//	pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"
//
// Members of system:masters are allowed everything before any authorizer is
// asked (upstream's "privileged group" authorizer): the admin kubeconfig and
// the apiserver's own loopback requests work even when RBAC is broken.

// Attributes describe one action. Upstream: authorizer.AttributesRecord.
type Attributes struct {
	User              *UserInfo
	Verb              string
	IsResourceRequest bool
	Path              string // non-resource requests: "/api", "/healthz"
	Namespace         string
	APIGroup          string
	APIVersion        string
	Resource          string
	Subresource       string
	Name              string
	// FieldSelector is the raw ?fieldSelector= of a list or watch (the Node
	// authorizer lets a kubelet list only pods with spec.nodeName=<itself>).
	FieldSelector string
}

// Decision is an authorizer's answer.
type Decision int

const (
	DecisionNoOpinion Decision = iota
	DecisionAllow
	DecisionDeny
)

// Authorizer decides about one action. reason explains a decision (it ends up
// in 403 messages and in SubjectAccessReview status).
type Authorizer interface {
	Authorize(ctx context.Context, a *Attributes) (d Decision, reason string, err error)
}

// RuleResolver lists what a user may do in a namespace ("kubectl auth can-i --list").
type RuleResolver interface {
	RulesFor(ctx context.Context, user *UserInfo, namespace string) (rules []rbacv1.PolicyRule, incomplete bool, err error)
}

// Authorization modes (--authorization-mode), upstream's names.
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	ModeNode        = "Node"
	ModeRBAC        = "RBAC"
)

// newAuthorizers builds the chain of --authorization-mode.
func (s *Server) newAuthorizers(modes []string) ([]Authorizer, error) {
	if len(modes) == 0 {
		modes = []string{ModeAlwaysAllow} // upstream's library default; kube-apiserver's flag says Node,RBAC here
	}
	seen := map[string]bool{}
	var out []Authorizer
	for _, m := range modes {
		if seen[m] {
			return nil, fmt.Errorf("authorization-mode %q has mode specified more than once", strings.Join(modes, ","))
		}
		seen[m] = true
		switch m {
		case ModeAlwaysAllow:
			out = append(out, alwaysAllow{})
		case ModeAlwaysDeny:
			out = append(out, alwaysDeny{})
		case ModeNode:
			out = append(out, &nodeAuthorizer{s: s})
		case ModeRBAC:
			out = append(out, s.rbac)
		default:
			return nil, fmt.Errorf("unknown authorization mode %q (supported: AlwaysAllow, AlwaysDeny, Node, RBAC)", m)
		}
	}
	return out, nil
}

type alwaysAllow struct{}

func (alwaysAllow) Authorize(context.Context, *Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

func (alwaysAllow) RulesFor(context.Context, *UserInfo, string) ([]rbacv1.PolicyRule, bool, error) {
	return []rbacv1.PolicyRule{
		{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
	}, false, nil
}

type alwaysDeny struct{}

func (alwaysDeny) Authorize(context.Context, *Attributes) (Decision, string, error) {
	return DecisionDeny, "Everything is forbidden.", nil
}

func (alwaysDeny) RulesFor(context.Context, *UserInfo, string) ([]rbacv1.PolicyRule, bool, error) {
	return nil, false, nil
}

// authorize asks the privileged group, then every authorizer in turn, as
// upstream's union authorizer does: reasons of the authorizers without an
// opinion are joined with ", ".
func (s *Server) authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	if a.User != nil && contains(a.User.Groups, GroupMasters) {
		return DecisionAllow, "", nil
	}
	var reasons []string
	var errs []error
	for _, z := range s.authorizers {
		d, reason, err := z.Authorize(ctx, a)
		if err != nil {
			errs = append(errs, err)
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
		if d != DecisionNoOpinion {
			return d, reason, err
		}
	}
	return DecisionNoOpinion, strings.Join(reasons, ", "), errors.Join(errs...)
}

// allowed is authorize reduced to yes or no.
func (s *Server) allowed(ctx context.Context, a *Attributes) bool {
	d, _, _ := s.authorize(ctx, a)
	return d == DecisionAllow
}

// rulesFor is the union of every authorizer's rules (SelfSubjectRulesReview).
func (s *Server) rulesFor(ctx context.Context, user *UserInfo, namespace string) ([]rbacv1.PolicyRule, bool, error) {
	var rules []rbacv1.PolicyRule
	incomplete := false
	var errs []error
	for _, z := range s.authorizers {
		rr, ok := z.(RuleResolver)
		if !ok {
			incomplete = true
			continue
		}
		r, inc, err := rr.RulesFor(ctx, user, namespace)
		rules = append(rules, r...)
		incomplete = incomplete || inc
		if err != nil {
			errs = append(errs, err)
		}
	}
	return rules, incomplete, errors.Join(errs...)
}

// requestAttributes turns an HTTP request into Attributes, as upstream's
// RequestInfo resolver and GetAuthorizerAttributes do.
func requestAttributes(r *http.Request, user *UserInfo) *Attributes {
	info := requestInfoFrom(r)
	a := &Attributes{User: user, Verb: info.Verb, Path: r.URL.Path}
	if !info.IsResourceRequest {
		return a
	}
	a.IsResourceRequest = true
	a.Namespace, a.APIGroup, a.APIVersion = info.Namespace, info.APIGroup, info.APIVersion
	a.Resource, a.Subresource, a.Name = info.Resource, info.Subresource, info.Name
	if a.Resource == "namespaces" && len(info.Parts) == 1 {
		a.Namespace = "" // the collection of namespaces is cluster-scoped
	}
	a.FieldSelector = r.URL.Query().Get("fieldSelector")
	// A list or watch of one object by metadata.name=x is, for authorization,
	// a request about x (upstream's RequestInfoFactory does the same).
	if a.Name == "" && (a.Verb == "list" || a.Verb == "watch") && a.FieldSelector != "" {
		if sel, err := selection.ParseFieldSelector(a.FieldSelector); err == nil {
			if v, ok := sel.RequiresExactMatch("metadata.name"); ok {
				a.Name = v
			}
		}
	}
	return a
}

// withAuthorization refuses what the authorizers do not allow. The public
// health and version paths are allowed to everyone without asking (upstream
// grants them through the system:public-info-viewer binding; answering them
// even when storage is down is what a health check needs).
func (s *Server) withAuthorization(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isPublicPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		user, _ := UserFrom(r.Context())
		a := requestAttributes(r, user)
		d, reason, err := s.authorize(r.Context(), a)
		if d == DecisionAllow {
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			s.log.Info("authorization failed", "path", r.URL.Path, "user", userName(user), "err", err)
			writeStatus(w, r, ErrInternal(err))
			return
		}
		writeStatus(w, r, errForbiddenAction(a, reason))
	})
}

func userName(u *UserInfo) string {
	if u == nil {
		return ""
	}
	return u.Name
}

// forbiddenMessage is upstream's responsewriters.forbiddenMessage.
func forbiddenMessage(a *Attributes) string {
	name := userName(a.User)
	if !a.IsResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.Verb, resource, a.APIGroup)
}

// errForbiddenAction is the 403 of a refused request:
// `pods "x" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default"`,
// or `forbidden: User "alice" cannot get path "/api"` for a path.
func errForbiddenAction(a *Attributes, reason string) *StatusError {
	msg := forbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	if !a.IsResourceRequest {
		return ErrForbidden("", "", "", "", errors.New(msg))
	}
	gr := a.Resource
	if a.APIGroup != "" {
		gr += "." + a.APIGroup
	}
	return ErrForbidden(a.APIGroup, a.Resource, gr, a.Name, errors.New(msg))
}
