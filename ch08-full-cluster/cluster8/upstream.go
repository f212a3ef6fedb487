package cluster8

import (
	"context"
	"fmt"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/auth/rbac/bootstrappolicy"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/provision"
)

// ControllerManagerRoleName names the ClusterRole (and its binding) that
// gives Kubik's controller manager, on upstream's apiserver, the rights
// Kubik's apiserver gives its identity.
const ControllerManagerRoleName = "kubik:kube-controller-manager"

// needsControllerManagerRole: upstream's apiserver with Kubik's
// controller manager. Upstream's system:kube-controller-manager role
// holds little more than list and watch: upstream runs each controller
// as a ServiceAccount of its own with its own role
// (--use-service-account-credentials); Kubik's controllers share the
// manager's identity, so that identity needs all their rights, as
// upstream's documentation says of --use-service-account-credentials=false.
func needsControllerManagerRole(t provision.Topology) bool {
	cps := t.ByRole(provision.ControlPlane)
	return len(cps) > 0 && t.IsUpstream(cps[0].Name, "kube-apiserver") && !t.IsUpstream(cps[0].Name, "kube-controller-manager")
}

// controllerManagerRBAC is Kubik's own system:kube-controller-manager
// role under another name, bound to the manager's user.
func controllerManagerRBAC() (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding, error) {
	for _, r := range bootstrappolicy.ClusterRoles() {
		if r.Name != auth.UserKubeControllerManager {
			continue
		}
		meta := metav1.ObjectMeta{Name: ControllerManagerRoleName}
		role := &rbacv1.ClusterRole{ObjectMeta: meta, Rules: r.Rules}
		binding := &rbacv1.ClusterRoleBinding{ObjectMeta: meta,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ControllerManagerRoleName},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: auth.UserKubeControllerManager}}}
		return role, binding, nil
	}
	return nil, nil, fmt.Errorf("no %s role in Kubik's bootstrap policy", auth.UserKubeControllerManager)
}

// ensureControllerManagerRBAC creates controllerManagerRBAC, if missing.
func ensureControllerManagerRBAC(ctx context.Context, admin *rest.Client) error {
	role, binding, err := controllerManagerRBAC()
	if err != nil {
		return err
	}
	if _, err := rest.Create(ctx, admin, role); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	if _, err := rest.Create(ctx, admin, binding); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	return nil
}
