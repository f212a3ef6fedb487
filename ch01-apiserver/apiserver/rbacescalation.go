package apiserver

import (
	"context"
	"fmt"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/auth/rbac"
)

// admitRBAC stops privilege escalation through the RBAC API: whoever creates
// or updates a role may only put in rules they hold themselves, and a binding
// may only grant a role whose rules they hold — unless they may "escalate"
// (roles) or "bind" (bindings) that role. Upstream:
// pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased;
// the comparison is rbac.ConfirmNoEscalation.
func (s *Server) admitRBAC(ctx context.Context, q *request, obj, old metav1.Object) error {
	user := q.user
	if rbac.EscalationAllowed(user) {
		return nil
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
		if s.authorizer.Allowed(ctx, &auth.Attributes{User: user, Verb: "escalate", IsResourceRequest: true, APIGroup: rbacv1.GroupName,
			Resource: "roles", Namespace: ns, Name: meta.Name}) {
			return nil
		}
		rules = o.Rules
	case *rbacv1.ClusterRole:
		if old != nil && rulesEqual(o.Rules, old.(*rbacv1.ClusterRole).Rules) &&
			!hasAggregationRule(o) && !hasAggregationRule(old.(*rbacv1.ClusterRole)) {
			return nil
		}
		if s.authorizer.Allowed(ctx, &auth.Attributes{User: user, Verb: "escalate", IsResourceRequest: true, APIGroup: rbacv1.GroupName,
			Resource: "clusterroles", Name: meta.Name}) {
			return nil
		}
		if err := rbac.ConfirmNoEscalation(ctx, s.rbac, user, ns, o.Rules); err != nil {
			return ErrForbidden(res.Group, res.Resource, res.GroupResource(), meta.Name, err)
		}
		// An aggregated role can gather anything (and setting or changing
		// the rule can keep a role from being tightened): only who holds
		// everything may set or change it.
		if hasAggregationRule(o) || (old != nil && hasAggregationRule(old.(*rbacv1.ClusterRole))) {
			fullAuthority := []rbacv1.PolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
				{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}
			if err := rbac.ConfirmNoEscalation(ctx, s.rbac, user, ns, fullAuthority); err != nil {
				return ErrForbidden(res.Group, res.Resource, res.GroupResource(), meta.Name,
					fmt.Errorf("must have cluster-admin privileges to use the aggregationRule"))
			}
		}
		return nil
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
		if s.authorizer.Allowed(ctx, &auth.Attributes{User: user, Verb: "bind", IsResourceRequest: true, APIGroup: rbacv1.GroupName,
			Resource: roleResource, Namespace: ns, Name: ref.Name}) {
			return nil
		}
		var found bool
		var err error
		if rules, found, err = s.rbac.RoleRefRules(ctx, ref, ns); err != nil {
			return err
		}
		if !found {
			return ErrNotFound(rbacv1.GroupName, roleResource, roleResource+"."+rbacv1.GroupName, ref.Name)
		}
	default:
		return nil
	}
	if err := rbac.ConfirmNoEscalation(ctx, s.rbac, user, ns, rules); err != nil {
		return ErrForbidden(res.Group, res.Resource, res.GroupResource(), meta.Name, err)
	}
	return nil
}

func hasAggregationRule(r *rbacv1.ClusterRole) bool {
	return r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}

func rulesEqual(a, b []rbacv1.PolicyRule) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func subjectsEqual(a, b []rbacv1.Subject) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}
