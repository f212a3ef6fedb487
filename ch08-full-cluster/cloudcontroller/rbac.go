// Package cloudcontroller holds the cloud-controller-manager's controllers
// (service, route, nodelifecycle, node, in the subpackages of the same
// names), the manager that runs them (app), and here the manager's
// identity and rights in the cluster.
//
// Upstream: k8s.io/cloud-provider/controllers and app; the ClusterRole of
// the Kubernetes documentation's cloud-controller-manager manifests.
package cloudcontroller

import (
	"context"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
)

// The manager's identity and rights. Upstream runs it as the
// ServiceAccount kube-system/cloud-controller-manager bound to the
// ClusterRole system:cloud-controller-manager; here it runs before any
// pod, with a client certificate for the user of the same name.
const (
	// UserName is the certificate's CommonName.
	UserName = "system:cloud-controller-manager"
	// ClusterRoleName names both the ClusterRole and its binding.
	ClusterRoleName = "system:cloud-controller-manager"
)

// Identity is the manager's client identity.
var Identity = pki.Identity{User: UserName}

// RBAC is the ClusterRole of upstream's cloud-controller-manager manifests
// (the rules the Kubernetes documentation lists for it) and its binding.
// Beyond them: services/status, which the service controller patches with
// the balancer's address, and the leader election Lease.
func RBAC() (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding) {
	core := []string{""}
	rule := func(group []string, resources []string, verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: group, Resources: resources, Verbs: verbs}
	}
	meta := metav1.ObjectMeta{Name: ClusterRoleName}
	role := &rbacv1.ClusterRole{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
		rule(core, []string{"events"}, "create", "patch", "update"),
		rule(core, []string{"nodes"}, "*"),
		rule(core, []string{"nodes/status"}, "patch"),
		rule(core, []string{"services"}, "list", "patch", "update", "watch"),
		rule(core, []string{"services/status"}, "patch", "update"),
		rule(core, []string{"serviceaccounts"}, "create"),
		rule(core, []string{"persistentvolumes"}, "get", "list", "update", "watch"),
		rule(core, []string{"endpoints"}, "create", "get", "list", "watch", "update"),
		rule([]string{"coordination.k8s.io"}, []string{"leases"}, "get", "create", "update"),
	}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: meta,
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ClusterRoleName},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: UserName}}}
	return role, binding
}

// EnsureRBAC creates RBAC() with admin's client, if missing.
func EnsureRBAC(ctx context.Context, admin *rest.Client) error {
	role, binding := RBAC()
	if _, err := rest.Create(ctx, admin, role); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	if _, err := rest.Create(ctx, admin, binding); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	return nil
}
