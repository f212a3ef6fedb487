package bootstrappolicy

import (
	"reflect"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/rbacv1"
)

// Aggregate fills every role of roles that has an aggregationRule with the
// rules of the roles its selectors pick, as chapter 4's
// clusterrole-aggregation controller does: for each selector, the matching
// roles in name order, each rule once. Aggregated roles may select other
// aggregated roles (admin selects edit, edit selects view), so it repeats
// until nothing changes. Only matchLabels selectors are evaluated: the
// bootstrap roles use no others.
func Aggregate(roles []*rbacv1.ClusterRole) {
	byName := slices.Clone(roles)
	slices.SortFunc(byName, func(a, b *rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
	for changed := true; changed; {
		changed = false
		for _, r := range roles {
			if r.AggregationRule == nil {
				continue
			}
			rules := AggregatedRules(r, byName)
			if !reflect.DeepEqual(rules, r.Rules) {
				r.Rules, changed = rules, true
			}
		}
	}
}

// AggregatedRules is the union of the rules of the roles (sorted by name)
// that target's aggregation selectors (matchLabels) pick, target aside.
func AggregatedRules(target *rbacv1.ClusterRole, sortedRoles []*rbacv1.ClusterRole) []rbacv1.PolicyRule {
	rules := []rbacv1.PolicyRule{}
	for _, sel := range target.AggregationRule.ClusterRoleSelectors {
		for _, r := range sortedRoles {
			if r.Name == target.Name || !matchesLabels(sel.MatchLabels, r.Labels) {
				continue
			}
			for _, rule := range r.Rules {
				if !slices.ContainsFunc(rules, func(x rbacv1.PolicyRule) bool { return reflect.DeepEqual(x, rule) }) {
					rules = append(rules, rule)
				}
			}
		}
	}
	return rules
}

func matchesLabels(want, labels map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}
