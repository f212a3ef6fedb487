package clusterroleaggregation

import (
	"slices"
	"testing"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

func newController(t *testing.T) (*controllertest.Env, *ClusterRoleAggregationController) {
	env := controllertest.New(t)
	c, err := NewClusterRoleAggregation(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	return env, c
}

func waitCached(t *testing.T, c *ClusterRoleAggregationController, name string, ok func(*rbacv1.ClusterRole) bool) {
	t.Helper()
	controllertest.Eventually(t, name+" cached", func() bool {
		r, found := c.clusterRoles.GetStore().Get("", name)
		return found && ok(r)
	})
}

func holds(r *rbacv1.ClusterRole, rule rbacv1.PolicyRule) bool {
	for _, x := range r.Rules {
		if slices.Equal(x.APIGroups, rule.APIGroups) && slices.Equal(x.Resources, rule.Resources) && slices.Equal(x.Verbs, rule.Verbs) {
			return true
		}
	}
	return false
}

// The apiserver writes admin, edit and view already aggregated: the
// controller finds nothing to change.
func TestBootstrapRolesAreAggregated(t *testing.T) {
	env, c := newController(t)
	for _, name := range []string{"view", "edit", "admin"} {
		env.ClearActions()
		if err := c.syncClusterRole(env.Ctx, name); err != nil {
			t.Fatal(err)
		}
		env.ExpectWrites(t)
	}
}

// A role labelled aggregate-to-view joins view, then edit (which selects
// view) and admin (which selects edit); unlabelled, it leaves them.
func TestAggregateCustomRole(t *testing.T) {
	env, c := newController(t)
	crontabs := rbacv1.PolicyRule{APIGroups: []string{"stable.example.com"}, Resources: []string{"crontabs"}, Verbs: []string{"get", "list", "watch"}}
	custom, err := rest.Create(env.Ctx, env.Admin, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "crontab-viewer", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules:      []rbacv1.PolicyRule{crontabs}})
	if err != nil {
		t.Fatal(err)
	}
	waitCached(t, c, "crontab-viewer", func(*rbacv1.ClusterRole) bool { return true })
	for _, name := range []string{"view", "edit", "admin"} {
		env.ClearActions()
		if err := c.syncClusterRole(env.Ctx, name); err != nil {
			t.Fatal(err)
		}
		env.ExpectWrites(t, "patch clusterroles "+name)
		r, err := rest.Get[rbacv1.ClusterRole](env.Ctx, env.Admin, "", name)
		if err != nil {
			t.Fatal(err)
		}
		if !holds(r, crontabs) {
			t.Errorf("%s does not hold the crontabs rule: %v", name, r.Rules)
		}
		waitCached(t, c, name, func(x *rbacv1.ClusterRole) bool { return holds(x, crontabs) })
	}
	delete(custom.Labels, "rbac.authorization.k8s.io/aggregate-to-view")
	if _, err := rest.Update(env.Ctx, env.Admin, custom); err != nil {
		t.Fatal(err)
	}
	waitCached(t, c, "crontab-viewer", func(x *rbacv1.ClusterRole) bool { return len(x.Labels) == 0 })
	env.ClearActions()
	if err := c.syncClusterRole(env.Ctx, "view"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t, "patch clusterroles view")
	r, _ := rest.Get[rbacv1.ClusterRole](env.Ctx, env.Admin, "", "view")
	if holds(r, crontabs) {
		t.Error("view still holds the crontabs rule")
	}
}

// A role without an aggregationRule is left alone.
func TestNotAggregated(t *testing.T) {
	env, c := newController(t)
	env.ClearActions()
	if err := c.syncClusterRole(env.Ctx, "cluster-admin"); err != nil {
		t.Fatal(err)
	}
	if err := c.syncClusterRole(env.Ctx, "no-such-role"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t)
}
