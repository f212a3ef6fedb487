package nodeagent

import (
	"context"
	"reflect"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
)

// The agent's identity and rights. Flannel runs as the ServiceAccount
// kube-flannel/flannel with the ClusterRole "flannel"; the agent here runs
// on the node before any pod, so it has a client certificate instead, one
// per node, all in one group that a ClusterRoleBinding grants the role.
const (
	// UserPrefix + the node's name is the agent's user name.
	UserPrefix = "system:kubik-node-agent:"
	// Group holds every node's agent.
	Group = "system:kubik-node-agents"
	// ClusterRoleName names both the ClusterRole and its binding.
	ClusterRoleName = "system:kubik-node-agent"
)

// Identity is the identity the agent on node uses: user
// system:kubik-node-agent:<node> in group system:kubik-node-agents.
func Identity(node string) pki.Identity {
	return pki.Identity{User: UserPrefix + node, Groups: []string{Group}}
}

// RBAC is the ClusterRole the agents need and its binding to Group:
// watch all Nodes (their podCIDRs, addresses and annotations), patch
// nodes/status (their own node's annotations), and watch Pods, Namespaces
// and NetworkPolicies, which the agent enforces (Calico's calico-node role
// reads the same three).
func RBAC() (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding) {
	meta := metav1.ObjectMeta{Name: ClusterRoleName}
	role := &rbacv1.ClusterRole{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"nodes"}},
		{Verbs: []string{"patch"}, APIGroups: []string{""}, Resources: []string{"nodes/status"}},
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods", "namespaces"}},
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"}},
	}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: meta,
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ClusterRoleName},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: Group}}}
	return role, binding
}

// EnsureRBAC creates RBAC() with admin's client, if missing, and updates
// the ClusterRole when its rules differ (a cluster restarted on the data
// of an older version gets the rules this agent needs), as the
// apiserver's bootstrap-policy reconciliation does for system roles.
func EnsureRBAC(ctx context.Context, admin *rest.Client) error {
	role, binding := RBAC()
	if _, err := rest.Create(ctx, admin, role); rest.IsAlreadyExists(err) {
		current, err := rest.Get[rbacv1.ClusterRole](ctx, admin, "", role.Name)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(current.Rules, role.Rules) {
			current.Rules = role.Rules
			if _, err := rest.Update(ctx, admin, current); err != nil {
				return err
			}
		}
	} else if err != nil {
		return err
	}
	if _, err := rest.Create(ctx, admin, binding); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	return nil
}
