package bootstrappolicy

import (
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
)

// NamespaceRoles are the Roles created at start in their namespaces
// (upstream's namespace_policy.go). Of upstream's list: the reader of the
// ConfigMap kube-system/extension-apiserver-authentication, which an
// extension apiserver reads to learn which client CA and front-proxy CA to
// trust (API aggregation).
func NamespaceRoles() []*rbacv1.Role {
	return []*rbacv1.Role{{
		ObjectMeta: metav1.ObjectMeta{Name: "extension-apiserver-authentication-reader", Namespace: "kube-system",
			Labels:      map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"},
			Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"}},
		Rules: []rbacv1.PolicyRule{{Verbs: v("get", "list", "watch"), APIGroups: core, Resources: []string{"configmaps"},
			ResourceNames: []string{"extension-apiserver-authentication"}}},
	}}
}

// NamespaceRoleBindings bind the NamespaceRoles: the controller manager and
// the scheduler read the authentication ConfigMap (upstream's
// system::extension-apiserver-authentication-reader).
func NamespaceRoleBindings() []*rbacv1.RoleBinding {
	return []*rbacv1.RoleBinding{{
		ObjectMeta: metav1.ObjectMeta{Name: "system::extension-apiserver-authentication-reader", Namespace: "kube-system",
			Labels:      map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"},
			Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
		Subjects: []rbacv1.Subject{userSubject("system:kube-controller-manager"), userSubject("system:kube-scheduler")},
	}}
}
