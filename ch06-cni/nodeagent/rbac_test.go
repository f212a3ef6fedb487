package nodeagent

import (
	"context"
	"reflect"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// TestEnsureRBACUpdatesAnOlderRole: a cluster started on the data of an
// older agent has its ClusterRole without the NetworkPolicy rules;
// EnsureRBAC brings the role up to date, after which the agent can watch
// what it enforces.
func TestEnsureRBACUpdatesAnOlderRole(t *testing.T) {
	ctx := context.Background()
	s := startAPIServer(t, "127.0.0.1")
	role, _ := RBAC()
	old := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role.Name}, Rules: role.Rules[:2]}
	if _, err := rest.Create(ctx, s.admin, old); err != nil {
		t.Fatal(err)
	}
	agent, err := rest.New(s.agentKubeconfig(t, "node-a"), "kubik-node-agent/node-a")
	if err != nil {
		t.Fatal(err)
	}
	if err := EnsureRBAC(ctx, s.admin); err != nil {
		t.Fatal(err)
	}
	got, err := rest.Get[rbacv1.ClusterRole](ctx, s.admin, "", role.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Rules, role.Rules) {
		t.Fatalf("rules after EnsureRBAC:\n%+v\nwant\n%+v", got.Rules, role.Rules)
	}
	rv := got.ResourceVersion
	if err := EnsureRBAC(ctx, s.admin); err != nil {
		t.Fatal(err)
	}
	if got, err = rest.Get[rbacv1.ClusterRole](ctx, s.admin, "", role.Name); err != nil || got.ResourceVersion != rv {
		t.Fatalf("a second EnsureRBAC rewrote an up-to-date role: resourceVersion %s → %s, %v", rv, got.ResourceVersion, err)
	}
	eventually(t, "the agent lists pods, namespaces and networkpolicies", func() error {
		if _, err := rest.List[corev1.Pod](ctx, agent, "", rest.ListOptions{}); err != nil {
			return err
		}
		if _, err := rest.List[corev1.Namespace](ctx, agent, "", rest.ListOptions{}); err != nil {
			return err
		}
		_, err := rest.List[networkingv1.NetworkPolicy](ctx, agent, "", rest.ListOptions{})
		return err
	})
}
