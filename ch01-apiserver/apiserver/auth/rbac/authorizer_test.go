package rbac

import (
	"context"
	"sync"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/storage"
)

// objects is RBAC objects in memory, as the apiserver's registry would
// list them; Watch hands out channels the test sends changes on.
type objects struct {
	mu      sync.Mutex
	items   map[string][]metav1.Object // by resource
	lists   int
	watches map[string]chan storage.Event
}

func newObjects(objs ...metav1.Object) *objects {
	o := &objects{items: map[string][]metav1.Object{}, watches: map[string]chan storage.Event{}}
	for _, obj := range objs {
		o.add(obj)
	}
	return o
}

func (o *objects) add(obj metav1.Object) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var r string
	switch obj.(type) {
	case *rbacv1.Role:
		r = "roles"
	case *rbacv1.ClusterRole:
		r = "clusterroles"
	case *rbacv1.RoleBinding:
		r = "rolebindings"
	case *rbacv1.ClusterRoleBinding:
		r = "clusterrolebindings"
	}
	o.items[r] = append(o.items[r], obj)
}

func (o *objects) List(_ context.Context, res *scheme.Resource) ([]metav1.Object, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lists++
	return append([]metav1.Object(nil), o.items[res.Resource]...), nil
}

func (o *objects) Watch(ctx context.Context, res *scheme.Resource) (<-chan storage.Event, error) {
	ch := make(chan storage.Event)
	o.mu.Lock()
	o.watches[res.Resource] = ch
	o.mu.Unlock()
	go func() { <-ctx.Done(); close(ch) }()
	return ch, nil
}

func (o *objects) listCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lists
}

func roleBinding(name, namespace string, ref rbacv1.RoleRef, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, RoleRef: ref, Subjects: subjects}
}

var (
	view    = &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "view"}, Rules: []rbacv1.PolicyRule{pr(sl("get", "list"), sl(""), sl("pods"), nil)}}
	viewRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	alice   = &auth.UserInfo{Name: "alice", Groups: []string{"dev", auth.GroupAuthenticated}}
)

func TestAuthorizer(t *testing.T) {
	ctx := context.Background()
	robot := &auth.UserInfo{Name: "system:serviceaccount:default:robot", Groups: []string{auth.GroupServiceAccounts}}
	z := New(newObjects(view,
		roleBinding("alice-view", "default", viewRef, rbacv1.Subject{Kind: rbacv1.UserKind, Name: "alice"}),
		roleBinding("robot-view", "default", viewRef, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "robot"}),
		roleBinding("broken", "other", rbacv1.RoleRef{Kind: "ClusterRole", Name: "gone"}, rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "dev"}),
	))
	pods := func(u *auth.UserInfo, verb, namespace string) *auth.Attributes {
		return &auth.Attributes{User: u, Verb: verb, IsResourceRequest: true, Resource: "pods", Namespace: namespace}
	}
	for _, tc := range []struct {
		a      *auth.Attributes
		d      auth.Decision
		reason string
	}{
		{pods(alice, "list", "default"), auth.DecisionAllow, `RBAC: allowed by RoleBinding "alice-view/default" of ClusterRole "view" to User "alice"`},
		{pods(alice, "delete", "default"), auth.DecisionNoOpinion, ""},
		{pods(robot, "get", "default"), auth.DecisionAllow, `RBAC: allowed by RoleBinding "robot-view/default" of ClusterRole "view" to ServiceAccount "robot/default"`},
		{pods(alice, "list", "other"), auth.DecisionNoOpinion, `RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found`},
		{&auth.Attributes{Verb: "get", Path: "/api"}, auth.DecisionNoOpinion, ""},
	} {
		if d, reason, err := z.Authorize(ctx, tc.a); d != tc.d || reason != tc.reason || err != nil {
			t.Errorf("%+v: %v %q %v, want %v %q", *tc.a, d, reason, err, tc.d, tc.reason)
		}
	}
	if rules, _, err := z.RulesFor(ctx, alice, "default"); len(rules) != 1 || err != nil {
		t.Errorf("alice's rules in default: %v %v", rules, err)
	}
	if rules, ok, err := z.RoleRefRules(ctx, viewRef, "default"); !ok || len(rules) != 1 || err != nil {
		t.Errorf("view: %v %v %v", rules, ok, err)
	}
	if _, ok, err := z.RoleRefRules(ctx, rbacv1.RoleRef{Kind: "Role", Name: "view"}, "default"); ok || err != nil {
		t.Errorf("missing Role view: %v %v", ok, err)
	}
}

// TestAuthorizerSnapshot: without watches every decision reads the RBAC
// objects; with the four watches up, one read serves until something changes.
func TestAuthorizerSnapshot(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	objs := newObjects(view)
	z := New(objs)
	list := &auth.Attributes{User: alice, Verb: "list", IsResourceRequest: true, Resource: "pods", Namespace: "default"}
	z.Authorize(ctx, list)
	z.Authorize(ctx, list)
	if n := objs.listCount(); n != 2*len(resources) {
		t.Errorf("without watches: %d lists, want %d", n, 2*len(resources))
	}

	z.Start(ctx)
	for deadline := time.Now().Add(time.Minute); int(z.watchingUp.Load()) != len(resources); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watches did not start")
		}
	}
	// Once every watch has counted what came before it, decisions stop reading.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		before := objs.listCount()
		if d, _, _ := z.Authorize(ctx, list); d != auth.DecisionNoOpinion {
			t.Fatalf("alice may list pods: %v", d)
		}
		if objs.listCount() == before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("with the watches up, every decision still reads the RBAC objects")
		}
	}

	// A new binding, announced by its watch, is seen.
	objs.add(roleBinding("alice-view", "default", viewRef, rbacv1.Subject{Kind: rbacv1.UserKind, Name: "alice"}))
	objs.mu.Lock()
	ch := objs.watches["rolebindings"]
	objs.mu.Unlock()
	ch <- storage.Event{Type: storage.EventPut}
	for deadline := time.Now().Add(time.Minute); !allowed(ctx, z, list); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the new binding was not seen")
		}
	}
	// Changed: a write through the apiserver, seen by the next decision.
	before := objs.listCount()
	z.Changed()
	z.Authorize(ctx, list)
	if objs.listCount() == before {
		t.Error("Changed did not make the snapshot stale")
	}
}

func allowed(ctx context.Context, z *Authorizer, a *auth.Attributes) bool {
	d, _, _ := z.Authorize(ctx, a)
	return d == auth.DecisionAllow
}

func TestConfirmNoEscalation(t *testing.T) {
	ctx := context.Background()
	z := New(newObjects(view,
		roleBinding("alice-view", "default", viewRef, rbacv1.Subject{Kind: rbacv1.UserKind, Name: "alice"}),
		roleBinding("broken", "default", rbacv1.RoleRef{Kind: "ClusterRole", Name: "gone"}, rbacv1.Subject{Kind: rbacv1.UserKind, Name: "alice"})))
	if err := ConfirmNoEscalation(ctx, z, alice, "default", []rbacv1.PolicyRule{pr(sl("get"), sl(""), sl("pods"), nil)}); err != nil {
		t.Errorf("rules alice holds: %v", err)
	}
	err := ConfirmNoEscalation(ctx, z, alice, "default", []rbacv1.PolicyRule{pr(sl("get", "delete"), sl(""), sl("pods", "nodes"), nil)})
	want := `user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:` + "\n" +
		`{APIGroups:[""], Resources:["nodes"], Verbs:["get" "delete"]}` + "\n" +
		`{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}` +
		`; resolution errors: clusterrole.rbac.authorization.k8s.io "gone" not found`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if !EscalationAllowed(&auth.UserInfo{Name: "admin", Groups: []string{auth.GroupMasters}}) || EscalationAllowed(alice) {
		t.Error("EscalationAllowed: system:masters only")
	}
}
