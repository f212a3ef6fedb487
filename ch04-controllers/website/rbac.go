package website

import (
	"context"
	"fmt"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Identity is who the controller is: a user of its own, with exactly the
// permissions of ClusterRole (an operator's ServiceAccount upstream).
var Identity = pki.Identity{User: "kubik:website-controller"}

// RoleName names the ClusterRole and its ClusterRoleBinding.
const RoleName = "kubik:website-controller"

// ClusterRole is what the controller may do, and nothing more: read
// Websites and write their status; read and write the three kinds it
// makes; write events; create its CRD and read it back (create cannot be
// limited to one name: the name is in the body, not the path).
func ClusterRole() *rbacv1.ClusterRole {
	rw := []string{"get", "list", "watch", "create", "update"}
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: RoleName},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{Group}, Resources: []string{"websites"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{Group}, Resources: []string{"websites/status"}, Verbs: []string{"update"}},
			// Owner references with blockOwnerDeletion need it where the
			// OwnerReferencesPermissionEnforcement admission plugin runs.
			{APIGroups: []string{Group}, Resources: []string{"websites/finalizers"}, Verbs: []string{"update"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps", "services"}, Verbs: rw},
			{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: rw},
			{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
			{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"create"}},
			{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"},
				ResourceNames: []string{CRDName}},
		},
	}
}

// ClusterRoleBinding grants ClusterRole to Identity.
func ClusterRoleBinding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: RoleName},
		Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: Identity.User}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: RoleName},
	}
}

// EnsureRBAC creates the ClusterRole and its binding unless they exist;
// admin is a client allowed to grant them (the cluster's installer).
func EnsureRBAC(ctx context.Context, admin *rest.Client) error {
	if _, err := rest.Create(ctx, admin, ClusterRole()); err != nil && !rest.IsAlreadyExists(err) {
		return fmt.Errorf("create ClusterRole %s: %w", RoleName, err)
	}
	if _, err := rest.Create(ctx, admin, ClusterRoleBinding()); err != nil && !rest.IsAlreadyExists(err) {
		return fmt.Errorf("create ClusterRoleBinding %s: %w", RoleName, err)
	}
	return nil
}
