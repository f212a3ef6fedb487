package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/scheme"
)

// RBAC: permissions are rules in Roles (one namespace) and ClusterRoles (every
// namespace, cluster-scoped resources, non-resource URLs); RoleBindings and
// ClusterRoleBindings grant a role to users, groups and service accounts.
// Nothing is ever denied explicitly: a request is allowed when one rule of one
// role bound to the user matches it. Upstream:
// plugin/pkg/auth/authorizer/rbac and pkg/registry/rbac/validation.

// ---- rule matching (upstream rbac.go) ----

// RuleAllows reports whether rule permits the action a.
func RuleAllows(a *Attributes, rule *rbacv1.PolicyRule) bool {
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
func RulesAllow(a *Attributes, rules ...rbacv1.PolicyRule) bool {
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

// ---- subjects ----

// serviceAccountUsername is "system:serviceaccount:<namespace>:<name>".
func serviceAccountUsername(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// appliesTo reports whether a binding subject is the user. A ServiceAccount
// subject of a RoleBinding without a namespace means the binding's namespace.
func appliesTo(user *UserInfo, s rbacv1.Subject, bindingNamespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return user.Name == s.Name
	case rbacv1.GroupKind:
		return contains(user.Groups, s.Name)
	case rbacv1.ServiceAccountKind:
		ns := bindingNamespace
		if s.Namespace != "" {
			ns = s.Namespace
		}
		return ns != "" && user.Name == serviceAccountUsername(ns, s.Name)
	}
	return false
}

func describeSubject(s rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// ---- the authorizer and its cache of RBAC objects ----

// rbacSnapshot is every RBAC object at one moment.
type rbacSnapshot struct {
	clusterRoles        map[string]*rbacv1.ClusterRole
	roles               map[string]*rbacv1.Role // "namespace/name"
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
	roleBindings        map[string][]*rbacv1.RoleBinding // by namespace
}

// rbacAuthorizer evaluates RBAC objects. Upstream reads them from informer
// caches; we keep a snapshot that a storage watch on the four prefixes
// invalidates, and re-read storage when it is stale (or when no watch runs,
// as in handler-only tests).
type rbacAuthorizer struct {
	s          *Server
	mu         sync.Mutex
	snap       *rbacSnapshot
	snapGen    int64
	gen        atomic.Int64 // bumped by every watched change
	watchingUp atomic.Int32 // how many of the four watches are established
}

var rbacResources = []string{"clusterroles", "roles", "clusterrolebindings", "rolebindings"}

func rbacResource(name string) *scheme.Resource { return scheme.Lookup(rbacv1.GroupName, "v1", name) }

// snapshot returns the current RBAC objects.
func (z *rbacAuthorizer) snapshot(ctx context.Context) (*rbacSnapshot, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	gen := z.gen.Load()
	if z.snap != nil && z.snapGen == gen && int(z.watchingUp.Load()) == len(rbacResources) {
		return z.snap, nil
	}
	snap := &rbacSnapshot{clusterRoles: map[string]*rbacv1.ClusterRole{}, roles: map[string]*rbacv1.Role{},
		roleBindings: map[string][]*rbacv1.RoleBinding{}}
	for _, name := range rbacResources {
		items, _, err := z.s.list(ctx, rbacResource(name), "", listOptions{})
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			switch o := it.(type) {
			case *rbacv1.ClusterRole:
				snap.clusterRoles[o.Name] = o
			case *rbacv1.Role:
				snap.roles[o.Namespace+"/"+o.Name] = o
			case *rbacv1.ClusterRoleBinding:
				snap.clusterRoleBindings = append(snap.clusterRoleBindings, o)
			case *rbacv1.RoleBinding:
				snap.roleBindings[o.Namespace] = append(snap.roleBindings[o.Namespace], o)
			}
		}
	}
	z.snap, z.snapGen = snap, gen
	return snap, nil
}

// watch keeps the snapshot honest: any change to an RBAC object makes it stale.
func (z *rbacAuthorizer) watch(ctx context.Context) {
	for _, name := range rbacResources {
		prefix := storagePrefix(rbacResource(name), "")
		go func() {
			for ctx.Err() == nil {
				ch, err := z.s.cfg.Storage.Watch(ctx, prefix, 0)
				if err != nil {
					time.Sleep(time.Second)
					continue
				}
				z.watchingUp.Add(1)
				z.gen.Add(1) // anything written before the watch started
				for range ch {
					z.gen.Add(1)
				}
				z.watchingUp.Add(-1)
				z.gen.Add(1)
			}
		}()
	}
}

// roleRefRules returns the rules a binding's roleRef points at.
func (snap *rbacSnapshot) roleRefRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		if r := snap.roles[namespace+"/"+ref.Name]; r != nil {
			return r.Rules, nil
		}
		return nil, fmt.Errorf("role.rbac.authorization.k8s.io %q not found", ref.Name)
	case "ClusterRole":
		if r := snap.clusterRoles[ref.Name]; r != nil {
			return r.Rules, nil
		}
		return nil, fmt.Errorf("clusterrole.rbac.authorization.k8s.io %q not found", ref.Name)
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// visit calls fn with every rule that applies to user in namespace ("" =
// cluster bindings only), with a description of where it came from; fn
// returns false to stop. Upstream: DefaultRuleResolver.VisitRulesFor.
func (snap *rbacSnapshot) visit(user *UserInfo, namespace string, fn func(source string, rule *rbacv1.PolicyRule, err error) bool) {
	for _, b := range snap.clusterRoleBindings {
		for _, subj := range b.Subjects {
			if !appliesTo(user, subj, "") {
				continue
			}
			rules, err := snap.roleRefRules(b.RoleRef, "")
			if err != nil {
				if !fn("", nil, err) {
					return
				}
				break
			}
			source := fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s", b.Name, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(subj, ""))
			for i := range rules {
				if !fn(source, &rules[i], nil) {
					return
				}
			}
			break
		}
	}
	if namespace == "" {
		return
	}
	for _, b := range snap.roleBindings[namespace] {
		for _, subj := range b.Subjects {
			if !appliesTo(user, subj, namespace) {
				continue
			}
			rules, err := snap.roleRefRules(b.RoleRef, namespace)
			if err != nil {
				if !fn("", nil, err) {
					return
				}
				break
			}
			source := fmt.Sprintf("RoleBinding %q of %s %q to %s", b.Name+"/"+b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(subj, namespace))
			for i := range rules {
				if !fn(source, &rules[i], nil) {
					return
				}
			}
			break
		}
	}
}

// Authorize allows a when some bound rule matches. It never denies.
func (z *rbacAuthorizer) Authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	if a.User == nil {
		return DecisionNoOpinion, "", nil
	}
	snap, err := z.snapshot(ctx)
	if err != nil {
		return DecisionNoOpinion, "", err
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
		return DecisionAllow, "RBAC: allowed by " + allowedBy, nil
	}
	if len(errs) == 1 {
		return DecisionNoOpinion, "RBAC: " + errs[0], nil
	}
	if len(errs) > 1 {
		return DecisionNoOpinion, "RBAC: [" + strings.Join(errs, ", ") + "]", nil
	}
	return DecisionNoOpinion, "", nil
}

// RulesFor lists the rules bound to user in namespace.
func (z *rbacAuthorizer) RulesFor(ctx context.Context, user *UserInfo, namespace string) ([]rbacv1.PolicyRule, bool, error) {
	snap, err := z.snapshot(ctx)
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

// ---- escalation prevention (upstream pkg/registry/rbac/validation) ----

// admitRBAC stops privilege escalation through the RBAC API: whoever creates
// or updates a role may only put in rules they hold themselves, and a binding
// may only grant a role whose rules they hold — unless they may "escalate"
// (roles) or "bind" (bindings) that role.
func (s *Server) admitRBAC(ctx context.Context, q *request, obj, old metav1.Object) error {
	user := q.user
	if user == nil || contains(user.Groups, GroupMasters) {
		return nil // upstream's EscalationAllowed
	}
	res := q.res
	meta := obj.GetObjectMeta()
	ns := meta.Namespace
	var rules []rbacv1.PolicyRule
	switch o := obj.(type) {
	case *rbacv1.Role:
		if old != nil && rulesEqual(o.Rules, old.(*rbacv1.Role).Rules) {
			return nil
		}
		if s.allowed(ctx, &Attributes{User: user, Verb: "escalate", IsResourceRequest: true, APIGroup: rbacv1.GroupName,
			Resource: "roles", Namespace: ns, Name: meta.Name}) {
			return nil
		}
		rules = o.Rules
	case *rbacv1.ClusterRole:
		if old != nil && rulesEqual(o.Rules, old.(*rbacv1.ClusterRole).Rules) && o.AggregationRule == nil {
			return nil
		}
		if s.allowed(ctx, &Attributes{User: user, Verb: "escalate", IsResourceRequest: true, APIGroup: rbacv1.GroupName,
			Resource: "clusterroles", Name: meta.Name}) {
			return nil
		}
		rules = o.Rules
		if o.AggregationRule != nil { // an aggregated role may end up with anything
			rules = []rbacv1.PolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
				{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}
		}
	case *rbacv1.RoleBinding, *rbacv1.ClusterRoleBinding:
		var ref rbacv1.RoleRef
		var subjects []rbacv1.Subject
		if rb, ok := o.(*rbacv1.RoleBinding); ok {
			ref, subjects = rb.RoleRef, rb.Subjects
		} else {
			crb := o.(*rbacv1.ClusterRoleBinding)
			ref, subjects = crb.RoleRef, crb.Subjects
		}
		if old != nil {
			var oldRef rbacv1.RoleRef
			var oldSubjects []rbacv1.Subject
			if rb, ok := old.(*rbacv1.RoleBinding); ok {
				oldRef, oldSubjects = rb.RoleRef, rb.Subjects
			} else {
				crb := old.(*rbacv1.ClusterRoleBinding)
				oldRef, oldSubjects = crb.RoleRef, crb.Subjects
			}
			if oldRef == ref && subjectsEqual(oldSubjects, subjects) {
				return nil
			}
		}
		roleResource := "roles"
		if ref.Kind == "ClusterRole" {
			roleResource = "clusterroles"
		}
		if s.allowed(ctx, &Attributes{User: user, Verb: "bind", IsResourceRequest: true, APIGroup: rbacv1.GroupName,
			Resource: roleResource, Namespace: ns, Name: ref.Name}) {
			return nil
		}
		snap, err := s.rbac.snapshot(ctx)
		if err != nil {
			return err
		}
		rules, err = snap.roleRefRules(ref, ns)
		if err != nil {
			return ErrNotFound(rbacv1.GroupName, roleResource, roleResource+"."+rbacv1.GroupName, ref.Name)
		}
	default:
		return nil
	}
	owner, _, err := s.rbac.RulesFor(ctx, user, ns)
	if ok, missing := Covers(owner, rules); !ok {
		var lines []string
		seen := map[string]bool{}
		for _, m := range CompactRules(missing) {
			if d := CompactString(m); !seen[d] {
				seen[d] = true
				lines = append(lines, d)
			}
		}
		sort.Strings(lines)
		msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
			user.Name, user.Groups, strings.Join(lines, "\n"))
		if err != nil {
			msg += fmt.Sprintf("; resolution errors: %v", err)
		}
		return ErrForbidden(res.Group, res.Resource, res.GroupResource(), meta.Name, errors.New(msg))
	}
	return nil
}

func rulesEqual(a, b []rbacv1.PolicyRule) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func subjectsEqual(a, b []rbacv1.Subject) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// Covers reports whether owner rules include every permission of servant
// rules, and which atomic permissions are missing.
func Covers(owner, servant []rbacv1.PolicyRule) (bool, []rbacv1.PolicyRule) {
	var missing []rbacv1.PolicyRule
	for _, sr := range servant {
		for _, sub := range BreakdownRule(sr) {
			covered := false
			for _, or := range owner {
				if ruleCovers(or, sub) {
					covered = true
					break
				}
			}
			if !covered {
				missing = append(missing, sub)
			}
		}
	}
	return len(missing) == 0, missing
}

// BreakdownRule splits a rule into one rule per group, resource, verb (and name).
func BreakdownRule(rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, g := range rule.APIGroups {
		for _, r := range rule.Resources {
			for _, v := range rule.Verbs {
				if len(rule.ResourceNames) > 0 {
					for _, n := range rule.ResourceNames {
						out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{r}, Verbs: []string{v}, ResourceNames: []string{n}})
					}
				} else {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{r}, Verbs: []string{v}})
				}
			}
		}
	}
	for _, u := range rule.NonResourceURLs {
		for _, v := range rule.Verbs {
			out = append(out, rbacv1.PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

func hasAll(set, want []string) bool {
	for _, w := range want {
		if !contains(set, w) {
			return false
		}
	}
	return true
}

func resourceCoversAll(set, want []string) bool {
	if contains(set, rbacv1.ResourceAll) || hasAll(set, want) {
		return true
	}
	for _, p := range want {
		if contains(set, p) {
			continue
		}
		_, sub, ok := strings.Cut(p, "/")
		if !ok || !contains(set, "*/"+sub) {
			return false
		}
	}
	return true
}

func nonResourceURLsCoverAll(set, want []string) bool {
	for _, p := range want {
		covered := false
		for _, o := range set {
			if o == p || (strings.HasSuffix(o, "*") && strings.HasPrefix(p, strings.TrimRight(o, "*"))) {
				covered = true
				break
			}
		}
		if !covered {
			return false
		}
	}
	return true
}

func ruleCovers(owner, sub rbacv1.PolicyRule) bool {
	verbs := contains(owner.Verbs, rbacv1.VerbAll) || hasAll(owner.Verbs, sub.Verbs)
	groups := contains(owner.APIGroups, rbacv1.APIGroupAll) || hasAll(owner.APIGroups, sub.APIGroups)
	resources := resourceCoversAll(owner.Resources, sub.Resources)
	urls := nonResourceURLsCoverAll(owner.NonResourceURLs, sub.NonResourceURLs)
	names := len(owner.ResourceNames) == 0 || (len(sub.ResourceNames) > 0 && hasAll(owner.ResourceNames, sub.ResourceNames))
	return verbs && groups && resources && names && urls
}

// CompactRules merges rules that differ only in verbs (one group, one
// resource, at most one name) back into one rule, for readable messages.
func CompactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	type key struct{ group, resource, name string }
	var out []rbacv1.PolicyRule
	simple := map[key]int{}
	for _, r := range rules {
		if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
			out = append(out, r)
			continue
		}
		k := key{r.APIGroups[0], r.Resources[0], ""}
		if len(r.ResourceNames) == 1 {
			k.name = "\x00" + r.ResourceNames[0]
		}
		if i, ok := simple[k]; ok {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		simple[k] = len(out)
		r.Verbs = append([]string(nil), r.Verbs...)
		out = append(out, r)
	}
	return out
}

// CompactString is upstream's one-line form of a rule:
// {APIGroups:[""], Resources:["pods"], Verbs:["delete"]}.
func CompactString(r rbacv1.PolicyRule) string {
	var parts []string
	if len(r.APIGroups) > 0 {
		parts = append(parts, fmt.Sprintf("APIGroups:%q", r.APIGroups))
	}
	if len(r.Resources) > 0 {
		parts = append(parts, fmt.Sprintf("Resources:%q", r.Resources))
	}
	if len(r.NonResourceURLs) > 0 {
		parts = append(parts, fmt.Sprintf("NonResourceURLs:%q", r.NonResourceURLs))
	}
	if len(r.ResourceNames) > 0 {
		parts = append(parts, fmt.Sprintf("ResourceNames:%q", r.ResourceNames))
	}
	if len(r.Verbs) > 0 {
		parts = append(parts, fmt.Sprintf("Verbs:%q", r.Verbs))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// changed marks the snapshot stale (after a write through this apiserver).
func (z *rbacAuthorizer) changed() { z.gen.Add(1) }
