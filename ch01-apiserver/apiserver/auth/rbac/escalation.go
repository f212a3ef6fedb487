package rbac

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/auth"
)

// Escalation prevention: whoever creates or updates a role may only put in
// rules they hold themselves, and a binding may only grant a role whose
// rules they hold — unless they may "escalate" (roles) or "bind" (bindings)
// that role, which the apiserver asks its authorizer before calling
// ConfirmNoEscalation. Upstream: pkg/registry/rbac/validation and
// pkg/registry/rbac/escalation_check.go.

// EscalationAllowed: members of system:masters (and requests without a
// user) may grant anything.
func EscalationAllowed(user *auth.UserInfo) bool {
	return user == nil || slices.Contains(user.Groups, auth.GroupMasters)
}

// ConfirmNoEscalation returns an error unless user already holds, in
// namespace, every permission of rules (what resolver lists for them); the
// error lists what is missing, as upstream's:
//
//	user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
//	{APIGroups:[""], Resources:["nodes"], Verbs:["list"]}
func ConfirmNoEscalation(ctx context.Context, resolver auth.RuleResolver, user *auth.UserInfo, namespace string, rules []rbacv1.PolicyRule) error {
	owner, _, err := resolver.RulesFor(ctx, user, namespace)
	ok, missing := Covers(owner, rules)
	if ok {
		return nil
	}
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
	return errors.New(msg)
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
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

func resourceCoversAll(set, want []string) bool {
	if slices.Contains(set, rbacv1.ResourceAll) || hasAll(set, want) {
		return true
	}
	for _, p := range want {
		if slices.Contains(set, p) {
			continue
		}
		_, sub, ok := strings.Cut(p, "/")
		if !ok || !slices.Contains(set, "*/"+sub) {
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
	verbs := slices.Contains(owner.Verbs, rbacv1.VerbAll) || hasAll(owner.Verbs, sub.Verbs)
	groups := slices.Contains(owner.APIGroups, rbacv1.APIGroupAll) || hasAll(owner.APIGroups, sub.APIGroups)
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
