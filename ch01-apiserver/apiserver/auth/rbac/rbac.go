// Package rbac is the RBAC authorizer: permissions are rules in Roles (one
// namespace) and ClusterRoles (every namespace, cluster-scoped resources,
// non-resource URLs); RoleBindings and ClusterRoleBindings grant a role to
// users, groups and service accounts. Nothing is ever denied explicitly: a
// request is allowed when one rule of one role bound to the user matches it.
//
// The package also holds what keeps RBAC from being a way around itself:
// ConfirmNoEscalation and the rule comparisons it needs (escalation.go).
// Upstream: plugin/pkg/auth/authorizer/rbac and pkg/registry/rbac/validation.
package rbac

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/auth"
)

// Authorizer evaluates RBAC objects. Upstream reads them from informer
// caches; we keep a snapshot that a watch of the four resources
// invalidates, and re-read them when it is stale (or when no watch runs, as
// in handler-only tests). See resolver.go.
type Authorizer struct {
	objects    Objects
	mu         sync.Mutex
	snap       *snapshot
	snapGen    int64
	gen        atomic.Int64 // bumped by every watched change
	watchingUp atomic.Int32 // how many of the four watches are established
}

// New returns an authorizer that reads RBAC objects from objects. Start
// keeps its snapshot current.
func New(objects Objects) *Authorizer {
	return &Authorizer{objects: objects}
}

// Authorize allows a when some bound rule matches. It never denies.
func (z *Authorizer) Authorize(ctx context.Context, a *auth.Attributes) (auth.Decision, string, error) {
	if a.User == nil {
		return auth.DecisionNoOpinion, "", nil
	}
	snap, err := z.current(ctx)
	if err != nil {
		return auth.DecisionNoOpinion, "", err
	}
	allowedBy := ""
	var errs []string
	snap.visit(a.User, a.Namespace, func(source string, rule *rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err.Error())
			return true
		}
		if RuleAllows(a, rule) {
			allowedBy = source
			return false
		}
		return true
	})
	if allowedBy != "" {
		return auth.DecisionAllow, "RBAC: allowed by " + allowedBy, nil
	}
	if len(errs) == 1 {
		return auth.DecisionNoOpinion, "RBAC: " + errs[0], nil
	}
	if len(errs) > 1 {
		return auth.DecisionNoOpinion, "RBAC: [" + strings.Join(errs, ", ") + "]", nil
	}
	return auth.DecisionNoOpinion, "", nil
}

// RulesFor lists the rules bound to user in namespace.
func (z *Authorizer) RulesFor(ctx context.Context, user *auth.UserInfo, namespace string) ([]rbacv1.PolicyRule, bool, error) {
	snap, err := z.current(ctx)
	if err != nil {
		return nil, false, err
	}
	var rules []rbacv1.PolicyRule
	var errs []error
	snap.visit(user, namespace, func(_ string, rule *rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
		} else {
			rules = append(rules, *rule)
		}
		return true
	})
	return rules, false, errors.Join(errs...)
}

// RoleRefRules returns the rules of the role a binding's roleRef points at
// in namespace; ok is false when it points at nothing.
func (z *Authorizer) RoleRefRules(ctx context.Context, ref rbacv1.RoleRef, namespace string) (rules []rbacv1.PolicyRule, ok bool, err error) {
	snap, err := z.current(ctx)
	if err != nil {
		return nil, false, err
	}
	rules, err = snap.roleRefRules(ref, namespace)
	return rules, err == nil, nil
}

// ---- rule matching (upstream rbac.go) ----

// RuleAllows reports whether rule permits the action a.
func RuleAllows(a *auth.Attributes, rule *rbacv1.PolicyRule) bool {
	if a.IsResourceRequest {
		combined := a.Resource
		if a.Subresource != "" {
			combined = a.Resource + "/" + a.Subresource
		}
		return verbMatches(rule, a.Verb) &&
			apiGroupMatches(rule, a.APIGroup) &&
			resourceMatches(rule, combined, a.Subresource) &&
			resourceNameMatches(rule, a.Name)
	}
	return verbMatches(rule, a.Verb) && nonResourceURLMatches(rule, a.Path)
}

// RulesAllow reports whether any of rules permits a.
func RulesAllow(a *auth.Attributes, rules ...rbacv1.PolicyRule) bool {
	for i := range rules {
		if RuleAllows(a, &rules[i]) {
			return true
		}
	}
	return false
}

func verbMatches(rule *rbacv1.PolicyRule, verb string) bool {
	for _, v := range rule.Verbs {
		if v == rbacv1.VerbAll || v == verb {
			return true
		}
	}
	return false
}

func apiGroupMatches(rule *rbacv1.PolicyRule, group string) bool {
	for _, g := range rule.APIGroups {
		if g == rbacv1.APIGroupAll || g == group {
			return true
		}
	}
	return false
}

// resourceMatches: "*", the exact "pods" or "pods/log", or "*/scale" for any
// resource's scale subresource.
func resourceMatches(rule *rbacv1.PolicyRule, combined, subresource string) bool {
	for _, r := range rule.Resources {
		if r == rbacv1.ResourceAll || r == combined {
			return true
		}
		if subresource != "" && len(r) == len(subresource)+2 && strings.HasPrefix(r, "*/") && strings.HasSuffix(r, subresource) {
			return true
		}
	}
	return false
}

// resourceNameMatches: a rule without resourceNames matches every name; one
// with names matches only those (so never a list or a create, which have no name).
func resourceNameMatches(rule *rbacv1.PolicyRule, name string) bool {
	if len(rule.ResourceNames) == 0 {
		return true
	}
	for _, n := range rule.ResourceNames {
		if n == name {
			return true
		}
	}
	return false
}

// nonResourceURLMatches: "*", the exact path, or a prefix ending in "*".
func nonResourceURLMatches(rule *rbacv1.PolicyRule, path string) bool {
	for _, u := range rule.NonResourceURLs {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}
