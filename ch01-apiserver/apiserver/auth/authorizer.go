package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/rbacv1"
)

// Authorization: after authentication says who is asking, the authorizers
// decide whether they may. Upstream: k8s.io/apiserver/pkg/authorization
// (authorizer, union, authorizerfactory).
//
// A request becomes Attributes (user, verb, resource or path); the
// authorizers of --authorization-mode are asked in order. Each answers
// Allow, Deny or NoOpinion; the first Allow or Deny wins, and when nobody
// allows, the apiserver refuses the request with 403 and upstream's message:
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

// AlwaysAllow allows everything (the mode of the chapter's first part).
type AlwaysAllow struct{}

func (AlwaysAllow) Authorize(context.Context, *Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

func (AlwaysAllow) RulesFor(context.Context, *UserInfo, string) ([]rbacv1.PolicyRule, bool, error) {
	return []rbacv1.PolicyRule{
		{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
	}, false, nil
}

// AlwaysDeny denies everything.
type AlwaysDeny struct{}

func (AlwaysDeny) Authorize(context.Context, *Attributes) (Decision, string, error) {
	return DecisionDeny, "Everything is forbidden.", nil
}

func (AlwaysDeny) RulesFor(context.Context, *UserInfo, string) ([]rbacv1.PolicyRule, bool, error) {
	return nil, false, nil
}

// Chain is the authorizer of --authorization-mode: the privileged group,
// then every authorizer in turn, as upstream's union authorizer does.
type Chain []Authorizer

// Authorize allows members of system:masters, then asks each authorizer:
// the first Allow or Deny decides; when all have no opinion, their reasons
// are joined with ", ".
func (c Chain) Authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	if a.User != nil && slices.Contains(a.User.Groups, GroupMasters) {
		return DecisionAllow, "", nil
	}
	var reasons []string
	var errs []error
	for _, z := range c {
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

// Allowed is Authorize reduced to yes or no.
func (c Chain) Allowed(ctx context.Context, a *Attributes) bool {
	d, _, _ := c.Authorize(ctx, a)
	return d == DecisionAllow
}

// RulesFor is the union of every authorizer's rules (SelfSubjectRulesReview);
// an authorizer that cannot list rules makes the answer incomplete.
func (c Chain) RulesFor(ctx context.Context, user *UserInfo, namespace string) ([]rbacv1.PolicyRule, bool, error) {
	var rules []rbacv1.PolicyRule
	incomplete := false
	var errs []error
	for _, z := range c {
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

// NewChain builds the chain of --authorization-mode (nil: AlwaysAllow, the
// library default; kube-apiserver's flag says Node,RBAC). node and rbac are
// the authorizers of the Node and RBAC modes. Upstream:
// pkg/kubeapiserver/authorizer/config.go.
func NewChain(modes []string, node, rbac Authorizer) (Chain, error) {
	if len(modes) == 0 {
		modes = []string{ModeAlwaysAllow}
	}
	seen := map[string]bool{}
	var out Chain
	for _, m := range modes {
		if seen[m] {
			return nil, fmt.Errorf("authorization-mode %q has mode specified more than once", strings.Join(modes, ","))
		}
		seen[m] = true
		switch m {
		case ModeAlwaysAllow:
			out = append(out, AlwaysAllow{})
		case ModeAlwaysDeny:
			out = append(out, AlwaysDeny{})
		case ModeNode:
			out = append(out, node)
		case ModeRBAC:
			out = append(out, rbac)
		default:
			return nil, fmt.Errorf("unknown authorization mode %q (supported: AlwaysAllow, AlwaysDeny, Node, RBAC)", m)
		}
	}
	return out, nil
}
