package rbac

import (
	"context"
	"fmt"
	"slices"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/storage"
)

// Which rules apply to a user: the bindings whose subjects name them, and
// the roles those bindings point at. Upstream:
// pkg/registry/rbac/validation/rule.go (DefaultRuleResolver).

// Objects is where the authorizer reads RBAC objects: the apiserver's
// registry (upstream: the informers' listers).
type Objects interface {
	// List returns every object of res, in every namespace.
	List(ctx context.Context, res *scheme.Resource) ([]metav1.Object, error)
	// Watch streams the changes of res until ctx ends or the watch fails
	// (then the channel is closed).
	Watch(ctx context.Context, res *scheme.Resource) (<-chan storage.Event, error)
}

// snapshot is every RBAC object at one moment.
type snapshot struct {
	clusterRoles        map[string]*rbacv1.ClusterRole
	roles               map[string]*rbacv1.Role // "namespace/name"
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
	roleBindings        map[string][]*rbacv1.RoleBinding // by namespace
}

var resources = []string{"clusterroles", "roles", "clusterrolebindings", "rolebindings"}

func resource(name string) *scheme.Resource { return scheme.Lookup(rbacv1.GroupName, "v1", name) }

// current returns the current RBAC objects.
func (z *Authorizer) current(ctx context.Context) (*snapshot, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	gen := z.gen.Load()
	if z.snap != nil && z.snapGen == gen && int(z.watchingUp.Load()) == len(resources) {
		return z.snap, nil
	}
	snap := &snapshot{clusterRoles: map[string]*rbacv1.ClusterRole{}, roles: map[string]*rbacv1.Role{},
		roleBindings: map[string][]*rbacv1.RoleBinding{}}
	for _, name := range resources {
		items, err := z.objects.List(ctx, resource(name))
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

// Start keeps the snapshot honest until ctx ends: any change to an RBAC
// object makes it stale.
func (z *Authorizer) Start(ctx context.Context) {
	for _, name := range resources {
		res := resource(name)
		go func() {
			for ctx.Err() == nil {
				ch, err := z.objects.Watch(ctx, res)
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

// Changed marks the snapshot stale (after a write through this apiserver,
// so that the very next request sees it).
func (z *Authorizer) Changed() { z.gen.Add(1) }

// roleRefRules returns the rules a binding's roleRef points at.
func (snap *snapshot) roleRefRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
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
func (snap *snapshot) visit(user *auth.UserInfo, namespace string, fn func(source string, rule *rbacv1.PolicyRule, err error) bool) {
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

// appliesTo reports whether a binding subject is the user. A ServiceAccount
// subject of a RoleBinding without a namespace means the binding's namespace.
func appliesTo(user *auth.UserInfo, s rbacv1.Subject, bindingNamespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return user.Name == s.Name
	case rbacv1.GroupKind:
		return slices.Contains(user.Groups, s.Name)
	case rbacv1.ServiceAccountKind:
		ns := bindingNamespace
		if s.Namespace != "" {
			ns = s.Namespace
		}
		return ns != "" && user.Name == auth.ServiceAccountUsername(ns, s.Name)
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
