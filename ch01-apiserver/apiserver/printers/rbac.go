package printers

import (
	"strings"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
)

// RoleBindings and ClusterRoleBindings: NAME, ROLE, AGE (+ USERS, GROUPS,
// SERVICEACCOUNTS with -o wide), as upstream's printRoleBinding. Roles and
// ClusterRoles use the default NAME, CREATED AT table, as upstream.
var bindingPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Role", "string", "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable."),
		ageColumn,
		wide(column("Users", "string", "Users in the roleBinding")),
		wide(column("Groups", "string", "Groups in the roleBinding")),
		wide(column("ServiceAccounts", "string", "ServiceAccounts in the roleBinding")),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		var ref rbacv1.RoleRef
		var subjects []rbacv1.Subject
		var meta *metav1.ObjectMeta
		switch b := obj.(type) {
		case *rbacv1.RoleBinding:
			ref, subjects, meta = b.RoleRef, b.Subjects, &b.ObjectMeta
		case *rbacv1.ClusterRoleBinding:
			ref, subjects, meta = b.RoleRef, b.Subjects, &b.ObjectMeta
		}
		var users, groups, sas []string
		for _, s := range subjects {
			switch s.Kind {
			case rbacv1.UserKind:
				users = append(users, s.Name)
			case rbacv1.GroupKind:
				groups = append(groups, s.Name)
			case rbacv1.ServiceAccountKind:
				sas = append(sas, s.Namespace+"/"+s.Name)
			}
		}
		return []any{meta.Name, ref.Kind + "/" + ref.Name, age(meta.CreationTimestamp, now),
			strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}, nil
	},
}
