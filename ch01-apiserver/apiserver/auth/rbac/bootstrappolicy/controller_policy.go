package bootstrappolicy

import (
	"kubik/ch01-apiserver/api/rbacv1"
)

// saRolePrefix names the roles of kube-controller-manager's controllers,
// each bound to a ServiceAccount of its own in kube-system (used with
// --use-service-account-credentials). Kubik's controllers share the
// manager's identity (system:kube-controller-manager holds their rights),
// but the roles are created as upstream creates them.
const saRolePrefix = "system:controller:"

// controllerRoles are upstream's system:controller:* roles for the
// controllers Kubik has them for. Upstream:
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go.
var controllerRoles = []struct {
	name  string
	rules []rbacv1.PolicyRule
}{
	{"clusterrole-aggregation-controller", []rbacv1.PolicyRule{
		// Full rights on ClusterRoles: it writes whatever they aggregate.
		rule(v("escalate", "get", "list", "watch", "update", "patch"), g(rbacv1.GroupName), "clusterroles"),
	}},
	{"ephemeral-volume-controller", []rbacv1.PolicyRule{
		rule(read, core, "pods"),
		rule(v("update"), core, "pods/finalizers"),
		rule(v("get", "list", "watch", "create"), core, "persistentvolumeclaims"),
		eventsRule(),
	}},
	{"horizontal-pod-autoscaler", []rbacv1.PolicyRule{
		rule(read, g("autoscaling"), "horizontalpodautoscalers"),
		rule(v("update"), g("autoscaling"), "horizontalpodautoscalers/status"),
		rule(v("get", "update"), g("*"), "*/scale"),
		rule(v("list", "watch"), core, "pods"),
		// Resource, custom and external metrics.
		rule(v("list", "watch"), g("metrics.k8s.io"), "pods"),
		rule(read, g("custom.metrics.k8s.io"), "*"),
		rule(read, g("external.metrics.k8s.io"), "*"),
		eventsRule(),
	}},
}

// ControllerRoles are the system:controller:* ClusterRoles.
func ControllerRoles() []*rbacv1.ClusterRole {
	var out []*rbacv1.ClusterRole
	for _, r := range controllerRoles {
		out = append(out, clusterRole(saRolePrefix+r.name, r.rules...))
	}
	return out
}

// ControllerRoleBindings bind each system:controller:* role to the
// controller's ServiceAccount in kube-system.
func ControllerRoleBindings() []*rbacv1.ClusterRoleBinding {
	var out []*rbacv1.ClusterRoleBinding
	for _, r := range controllerRoles {
		out = append(out, clusterRoleBinding(saRolePrefix+r.name,
			rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: r.name, Namespace: "kube-system"}))
	}
	return out
}
