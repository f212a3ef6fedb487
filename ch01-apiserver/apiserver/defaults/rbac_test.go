package defaults

import (
	"testing"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
)

func TestRBACDefaults(t *testing.T) {
	roleBinding := func() metav1.Object { return &rbacv1.RoleBinding{} }
	clusterRoleBinding := func() metav1.Object { return &rbacv1.ClusterRoleBinding{} }
	runDefaultsCases(t, []defaultsCase{{
		name: "RoleBinding subjects by kind",
		obj:  roleBinding,
		in: `{"metadata":{"name":"rb","namespace":"ns"},"roleRef":{"kind":"Role","name":"edit"},"subjects":[
			{"kind":"User","name":"bob"},{"kind":"Group","name":"devs"},
			{"kind":"ServiceAccount","name":"default","namespace":"ns"},
			{"kind":"Robot","name":"r2"},{"kind":"User","name":"alice","apiGroup":"example.com"}]}`,
		want: `{"metadata":{"name":"rb","namespace":"ns"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"edit"},"subjects":[
			{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"bob"},
			{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"devs"},
			{"kind":"ServiceAccount","name":"default","namespace":"ns"},
			{"kind":"Robot","name":"r2"},{"kind":"User","apiGroup":"example.com","name":"alice"}]}`,
	}, {
		name: "RoleBinding explicit roleRef apiGroup kept",
		obj:  roleBinding,
		in:   `{"metadata":{"name":"rb"},"roleRef":{"apiGroup":"example.com","kind":"Role","name":"edit"}}`,
		want: `{"metadata":{"name":"rb"},"roleRef":{"apiGroup":"example.com","kind":"Role","name":"edit"}}`,
	}, {
		name: "ClusterRoleBinding",
		obj:  clusterRoleBinding,
		in: `{"metadata":{"name":"crb"},"roleRef":{"kind":"ClusterRole","name":"view"},"subjects":[
			{"kind":"User","name":"bob"},{"kind":"ServiceAccount","name":"sa","namespace":"kube-system"}]}`,
		want: `{"metadata":{"name":"crb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[
			{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"bob"},
			{"kind":"ServiceAccount","name":"sa","namespace":"kube-system"}]}`,
	}, {
		name: "ClusterRoleBinding without subjects, explicit apiGroup kept",
		obj:  clusterRoleBinding,
		in:   `{"metadata":{"name":"crb2"},"roleRef":{"apiGroup":"example.com","kind":"ClusterRole","name":"view"}}`,
		want: `{"metadata":{"name":"crb2"},"roleRef":{"apiGroup":"example.com","kind":"ClusterRole","name":"view"}}`,
	}})
}
