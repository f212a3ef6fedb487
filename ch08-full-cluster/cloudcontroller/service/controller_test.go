package service

// Tests in chapter 4's style: fixtures written to a real apiserver, the
// controller's sync functions called directly with a fake cloud, and the
// requests it sent checked (ExpectWrites) with what the cloud was asked.

import (
	"errors"
	"log/slog"
	"slices"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/cloudcontroller/internal/ccmtest"
	"kubik/ch08-full-cluster/cloudprovider"
	"kubik/ch08-full-cluster/cloudprovider/fake"
	"kubik/internal/controllertest"
)

type fixture struct {
	*controllertest.Env
	t     *testing.T
	cloud *fake.Cloud
	c     *Controller
}

func newFixture(t *testing.T) *fixture {
	env := ccmtest.New(t)
	vip := corev1.LoadBalancerIPModeVIP
	cloud := &fake.Cloud{ExternalIP: "10.240.8.200", BalancerIPMode: &vip}
	c, err := New(cloud, env.CC, "kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	go c.recorder.Run(env.Ctx)
	env.Start(t)
	return &fixture{Env: env, t: t, cloud: cloud, c: c}
}

func (f *fixture) createService(name string, edit func(*corev1.Service)) *corev1.Service {
	f.t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt(8080)}}}}
	if edit != nil {
		edit(svc)
	}
	created, err := rest.Create(f.Ctx, f.Admin, svc)
	if err != nil {
		f.t.Fatal(err)
	}
	f.waitForCache(name, func(s *corev1.Service) bool { return s.ResourceVersion == created.ResourceVersion })
	return created
}

// waitForCache waits until the informer's copy of the Service satisfies ok.
func (f *fixture) waitForCache(name string, ok func(*corev1.Service) bool) {
	f.t.Helper()
	controllertest.Eventually(f.t, "service "+name+" in the cache", func() bool {
		s, found := f.c.services.GetStore().Get("default", name)
		return found && ok(s)
	})
}

func (f *fixture) get(name string) (*corev1.Service, error) {
	return rest.Get[corev1.Service](f.Ctx, f.Admin, "default", name)
}

func (f *fixture) sync(key string) error {
	f.ClearActions()
	f.cloud.ClearCalls()
	return f.c.syncService(f.Ctx, key)
}

func (f *fixture) expectCalls(want ...string) {
	f.t.Helper()
	if got := f.cloud.GetCalls(); !slices.Equal(got, want) {
		f.t.Errorf("cloud calls %v, want %v", got, want)
	}
}

// TestEnsureAndDelete: a LoadBalancer Service gets the finalizer and the
// balancer's address; a second sync writes nothing; deleting it deletes
// the balancer, then the finalizer, and the Service goes.
func TestEnsureAndDelete(t *testing.T) {
	f := newFixture(t)
	ccmtest.Node(t, f.Env, "n1", "10.240.8.11", corev1.ConditionTrue)
	ccmtest.Node(t, f.Env, "n2", "10.240.8.12", corev1.ConditionFalse) // not Ready: still a backend
	controllertest.Eventually(t, "nodes in the cache", func() bool { return f.c.nodes.GetStore().Len() == 2 })
	f.createService("web", nil)

	if err := f.sync("default/web"); err != nil {
		t.Fatal(err)
	}
	f.ExpectWrites(t, "patch services default/web", "patch services/status default/web")
	f.expectCalls("create")
	svc, _ := f.get("web")
	if !cloudprovider.HasLBFinalizer(svc) {
		t.Errorf("finalizers %v", svc.Finalizers)
	}
	if ing := svc.Status.LoadBalancer.Ingress; len(ing) != 1 || ing[0].IP != "10.240.8.200" {
		t.Errorf("status %+v", svc.Status.LoadBalancer)
	}
	if hosts := f.cloud.EnsureCalls[0].Hosts; len(hosts) != 2 || hosts[0].Name != "n1" || hosts[1].Name != "n2" {
		t.Errorf("EnsureLoadBalancer hosts %v", hosts)
	}
	ccmtest.WaitForEvents(t, f.Env, "default", "Service", "web", "EnsuringLoadBalancer Ensuring load balancer", "EnsuredLoadBalancer Ensured load balancer")

	// In step: the cloud is asked again, nothing is written.
	f.waitForCache("web", func(s *corev1.Service) bool {
		return len(s.Status.LoadBalancer.Ingress) == 1 && cloudprovider.HasLBFinalizer(s)
	})
	if err := f.sync("default/web"); err != nil {
		t.Fatal(err)
	}
	f.ExpectWrites(t)
	f.expectCalls("create")

	// Deleted: the finalizer holds the Service until the balancer is gone.
	if err := rest.Delete[corev1.Service](f.Ctx, f.Admin, "default", "web", nil); err != nil {
		t.Fatal(err)
	}
	f.waitForCache("web", func(s *corev1.Service) bool { return s.DeletionTimestamp != nil })
	f.cloud.Exists = true
	if err := f.sync("default/web"); err != nil {
		t.Fatal(err)
	}
	f.expectCalls("get", "delete")
	f.ExpectWrites(t, "patch services default/web", "patch services/status default/web")
	if _, err := f.get("web"); !rest.IsNotFound(err) {
		t.Errorf("service after cleanup: %v", err)
	}
	ccmtest.WaitForEvents(t, f.Env, "default", "Service", "web", "DeletingLoadBalancer Deleting load balancer", "DeletedLoadBalancer Deleted load balancer")
}

// TestSyncFailed: the cloud's error is the event SyncLoadBalancerFailed
// and a retry; the finalizer is already on.
func TestSyncFailed(t *testing.T) {
	f := newFixture(t)
	f.createService("web", nil)
	f.cloud.Err = errors.New("quota exceeded")
	if err := f.sync("default/web"); err == nil {
		t.Fatal("no error")
	}
	f.ExpectWrites(t, "patch services default/web")
	ccmtest.WaitForEvents(t, f.Env, "default", "Service", "web",
		"EnsuringLoadBalancer", "UnAvailableLoadBalancer There are no available nodes for LoadBalancer",
		"SyncLoadBalancerFailed Error syncing load balancer: failed to ensure load balancer: quota exceeded")
}

// TestTypeChangedAndClass: a Service that stops being a LoadBalancer loses
// its balancer, finalizer and status; one with a loadBalancerClass is
// another controller's.
func TestTypeChangedAndClass(t *testing.T) {
	f := newFixture(t)
	f.createService("web", nil)
	if err := f.sync("default/web"); err != nil {
		t.Fatal(err)
	}
	svc, _ := f.get("web")
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	for i := range svc.Spec.Ports {
		svc.Spec.Ports[i].NodePort = 0
	}
	if _, err := rest.Update(f.Ctx, f.Admin, svc); err != nil {
		t.Fatal(err)
	}
	f.waitForCache("web", func(s *corev1.Service) bool { return s.Spec.Type == corev1.ServiceTypeClusterIP })
	if !needsCleanup(svc) {
		t.Fatal("needsCleanup false for a ClusterIP Service with the finalizer")
	}
	f.cloud.Exists = true
	if err := f.sync("default/web"); err != nil {
		t.Fatal(err)
	}
	f.expectCalls("get", "delete")
	svc, _ = f.get("web")
	if cloudprovider.HasLBFinalizer(svc) || len(svc.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("after the type change: finalizers %v, status %+v", svc.Finalizers, svc.Status.LoadBalancer)
	}

	class := "example.com/other"
	f.createService("other", func(s *corev1.Service) { s.Spec.LoadBalancerClass = &class })
	f.cloud.Exists = false
	if err := f.sync("default/other"); err != nil {
		t.Fatal(err)
	}
	f.expectCalls("get")
	f.ExpectWrites(t)
}

// TestNodeSync: a node added or excluded changes every balancer's hosts;
// a node update that changes nothing the balancers use does not.
func TestNodeSync(t *testing.T) {
	f := newFixture(t)
	ccmtest.Node(t, f.Env, "n1", "10.240.8.11", corev1.ConditionTrue)
	controllertest.Eventually(t, "node in the cache", func() bool { return f.c.nodes.GetStore().Len() == 1 })
	f.createService("web", nil)
	if err := f.sync("default/web"); err != nil {
		t.Fatal(err)
	}
	ccmtest.Node(t, f.Env, "n2", "10.240.8.12", corev1.ConditionTrue)
	controllertest.Eventually(t, "n2 in the cache", func() bool { return f.c.nodes.GetStore().Len() == 2 })
	f.cloud.ClearCalls()
	if retry := f.c.syncNodes(f.Ctx, 1); len(retry) != 0 {
		t.Fatalf("retry %v", retry)
	}
	updates := f.cloud.GetUpdateCalls()
	if len(updates) != 1 || len(updates[0].Hosts) != 2 {
		t.Fatalf("UpdateLoadBalancer calls %+v", updates)
	}
	ccmtest.WaitForEvents(t, f.Env, "default", "Service", "web", "UpdatedLoadBalancer Updated load balancer with new hosts")

	// The same set again: no call.
	f.cloud.ClearCalls()
	f.c.syncNodes(f.Ctx, 1)
	f.expectCalls()

	// Excluded by label: the node leaves the balancer.
	n2, _ := rest.Get[corev1.Node](f.Ctx, f.Admin, "", "n2")
	old := metav1.DeepCopy(n2)
	n2.Labels = map[string]string{corev1.LabelNodeExcludeBalancers: "true"}
	if _, err := rest.Update(f.Ctx, f.Admin, n2); err != nil {
		t.Fatal(err)
	}
	if !shouldSyncUpdatedNode(old, n2) {
		t.Error("shouldSyncUpdatedNode false for the exclusion label")
	}
	controllertest.Eventually(t, "label in the cache", func() bool {
		n, _ := f.c.nodes.GetStore().Get("", "n2")
		return n.Labels[corev1.LabelNodeExcludeBalancers] == "true"
	})
	f.cloud.ClearCalls()
	f.c.syncNodes(f.Ctx, 1)
	if updates := f.cloud.GetUpdateCalls(); len(updates) != 1 || len(updates[0].Hosts) != 1 || updates[0].Hosts[0].Name != "n1" {
		t.Errorf("after excluding n2: %+v", updates)
	}
	ready := metav1.DeepCopy(old)
	ready.Status.Conditions[0].Status = corev1.ConditionFalse
	if shouldSyncUpdatedNode(old, ready) {
		t.Error("a readiness change re-syncs the balancers")
	}
}

func TestNeedsUpdate(t *testing.T) {
	base := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", UID: "u"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
		Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP}}}}
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		name string
		edit func(*corev1.Service)
		want bool
	}{
		{"nothing", func(*corev1.Service) {}, false},
		{"type", func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort }, true},
		{"node port", func(s *corev1.Service) { s.Spec.Ports[0].NodePort = 30081 }, true},
		{"source ranges", func(s *corev1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"} }, true},
		{"loadBalancerIP", func(s *corev1.Service) { s.Spec.LoadBalancerIP = "10.240.8.201" }, true},
		{"annotations", func(s *corev1.Service) { s.Annotations = map[string]string{"a": "b"} }, true},
		{"traffic policy", func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal }, true},
		{"labels", func(s *corev1.Service) { s.Labels = map[string]string{"a": "b"} }, false},
		{"selector", func(s *corev1.Service) { s.Spec.Selector = map[string]string{"a": "b"} }, false},
	} {
		cur := metav1.DeepCopy(base)
		tc.edit(cur)
		if got := needsUpdate(base, cur, log); got != tc.want {
			t.Errorf("%s: needsUpdate %v, want %v", tc.name, got, tc.want)
		}
	}
	notLB := metav1.DeepCopy(base)
	notLB.Spec.Type = corev1.ServiceTypeClusterIP
	if needsUpdate(notLB, notLB, log) {
		t.Error("needsUpdate for two ClusterIP Services")
	}
}
