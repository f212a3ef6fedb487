package apiserver_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
)

// Bindings written the short way (subjects and roleRef without apiGroup), as
// many published manifests do, are defaulted and accepted, as upstream's
// SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding and
// SetDefaults_Subject do.
func TestRBACBindingDefaults(t *testing.T) {
	subjects := []obj{
		{"kind": "User", "name": "bob"},
		{"kind": "Group", "name": "devs"},
		{"kind": "ServiceAccount", "name": "default", "namespace": "kube-system"},
	}
	wantSubjects := `[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"bob"},
		{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"devs"},
		{"kind":"ServiceAccount","name":"default","namespace":"kube-system"}]`

	t.Run("RoleBinding", func(t *testing.T) {
		ns := shared.newNamespace(t)
		t.Cleanup(func() { shared.del(t, "/api/v1/namespaces/"+ns, nil) })
		path := "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings"
		t.Cleanup(func() { shared.del(t, path+"/bob-view", nil) })
		created := shared.post(t, path, obj{
			"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
			"metadata": obj{"name": "bob-view"},
			"subjects": subjects,
			"roleRef":  obj{"kind": "ClusterRole", "name": "view"},
		}).must(t, http.StatusCreated)
		equal(t, "created roleRef.apiGroup", created.str("roleRef.apiGroup"), "rbac.authorization.k8s.io")
		got := shared.get(t, path+"/bob-view").must(t, http.StatusOK)
		jsonEqual(t, "roleRef", got.path("roleRef"), `{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}`)
		jsonEqual(t, "subjects", got.path("subjects"), wantSubjects)
	})

	t.Run("ClusterRoleBinding", func(t *testing.T) {
		name := fmt.Sprintf("bob-view-%08x", rand.Uint32())
		path := "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
		t.Cleanup(func() { shared.del(t, path+"/"+name, nil) })
		created := shared.post(t, path, obj{
			"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
			"metadata": obj{"name": name},
			"subjects": subjects,
			"roleRef":  obj{"kind": "ClusterRole", "name": "view"},
		}).must(t, http.StatusCreated)
		equal(t, "created roleRef.apiGroup", created.str("roleRef.apiGroup"), "rbac.authorization.k8s.io")
		got := shared.get(t, path+"/"+name).must(t, http.StatusOK)
		jsonEqual(t, "roleRef", got.path("roleRef"), `{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}`)
		jsonEqual(t, "subjects", got.path("subjects"), wantSubjects)
	})
}
