package route

import (
	"errors"
	"log/slog"
	"net/netip"
	"slices"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/cloudcontroller/internal/ccmtest"
	"kubik/ch08-full-cluster/cloudcontroller/nodehelpers"
	"kubik/ch08-full-cluster/cloudprovider"
	"kubik/ch08-full-cluster/cloudprovider/fake"
	"kubik/internal/controllertest"
)

type fixture struct {
	*controllertest.Env
	t     *testing.T
	cloud *fake.Cloud
	rc    *RouteController
}

func newFixture(t *testing.T) *fixture {
	env := ccmtest.New(t)
	cloud := &fake.Cloud{RouteMap: map[string]*fake.Route{}}
	routes, _ := cloud.Routes()
	rc, err := New(routes, env.CC, "kubernetes", []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	go rc.recorder.Run(env.Ctx)
	env.Start(t)
	return &fixture{Env: env, t: t, cloud: cloud, rc: rc}
}

// node registers a Node with an InternalIP and gives it podCIDR ("" none).
func (f *fixture) node(name, ip, podCIDR string) *corev1.Node {
	f.t.Helper()
	n := ccmtest.Node(f.t, f.Env, name, ip, corev1.ConditionTrue)
	if podCIDR != "" {
		n.Spec.PodCIDR, n.Spec.PodCIDRs = podCIDR, []string{podCIDR}
		var err error
		if n, err = rest.Update(f.Ctx, f.Admin, n); err != nil {
			f.t.Fatal(err)
		}
	}
	return n
}

func (f *fixture) waitForNodes(ok func(nodes []*corev1.Node) bool) {
	f.t.Helper()
	controllertest.Eventually(f.t, "nodes in the cache", func() bool { return ok(f.rc.nodes.GetStore().List()) })
}

func (f *fixture) reconcile() {
	f.t.Helper()
	f.ClearActions()
	f.cloud.ClearCalls()
	if err := f.rc.reconcileNodeRoutes(f.Ctx); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) routes() []string {
	routes, _ := f.cloud.ListRoutes(f.Ctx, "kubernetes")
	var out []string
	for _, r := range routes {
		out = append(out, r.TargetNode+" "+r.DestinationCIDR)
	}
	slices.Sort(out)
	return out
}

func (f *fixture) networkUnavailable(name string) *corev1.NodeCondition {
	n, err := rest.Get[corev1.Node](f.Ctx, f.Admin, "", name)
	if err != nil {
		f.t.Fatal(err)
	}
	return nodehelpers.GetNodeCondition(&n.Status, corev1.NodeNetworkUnavailable)
}

// TestReconcile: routes for the Nodes' pod ranges are created, those of
// gone Nodes deleted, those outside the cluster range left alone; the
// Nodes get NetworkUnavailable=False, once.
func TestReconcile(t *testing.T) {
	f := newFixture(t)
	f.node("n1", "10.240.8.11", "10.244.1.0/24")
	f.node("n2", "10.240.8.12", "10.244.2.0/24")
	f.node("n3", "10.240.8.13", "") // no pod range yet
	f.waitForNodes(func(nodes []*corev1.Node) bool {
		n := 0
		for _, x := range nodes {
			n += len(x.Spec.PodCIDRs)
		}
		return len(nodes) == 3 && n == 2
	})
	for _, r := range []cloudprovider.Route{
		{TargetNode: "gone", DestinationCIDR: "10.244.9.0/24"},
		{TargetNode: "router", DestinationCIDR: "192.168.0.0/24"}, // not the cluster's
	} {
		if err := f.cloud.CreateRoute(f.Ctx, "kubernetes", "", &r); err != nil {
			t.Fatal(err)
		}
	}

	f.reconcile()
	if got, want := f.routes(), []string{"n1 10.244.1.0/24", "n2 10.244.2.0/24", "router 192.168.0.0/24"}; !slices.Equal(got, want) {
		t.Errorf("routes %v, want %v", got, want)
	}
	f.ExpectWrites(t, "patch nodes/status n1", "patch nodes/status n2")
	for _, n := range []string{"n1", "n2"} {
		c := f.networkUnavailable(n)
		if c == nil || c.Status != corev1.ConditionFalse || c.Reason != "RouteCreated" || c.Message != "RouteController created a route" {
			t.Errorf("%s NetworkUnavailable: %+v", n, c)
		}
	}
	if c := f.networkUnavailable("n3"); c != nil {
		t.Errorf("n3 (no pod range) NetworkUnavailable: %+v", c)
	}

	// In step: nothing created, nothing written.
	f.waitForNodes(func(nodes []*corev1.Node) bool {
		for _, n := range nodes {
			if len(n.Spec.PodCIDRs) > 0 && nodehelpers.GetNodeCondition(&n.Status, corev1.NodeNetworkUnavailable) == nil {
				return false
			}
		}
		return true
	})
	f.reconcile()
	if calls := f.cloud.GetCalls(); !slices.Equal(calls, []string{"list-routes"}) {
		t.Errorf("calls %v", calls)
	}
	f.ExpectWrites(t)
}

// TestCreateFailed: a route the cloud refuses is the event
// FailedToCreateRoute and NetworkUnavailable=True on the Node.
func TestCreateFailed(t *testing.T) {
	f := newFixture(t)
	f.node("n1", "10.240.8.11", "10.244.1.0/24")
	f.waitForNodes(func(nodes []*corev1.Node) bool { return len(nodes) == 1 && len(nodes[0].Spec.PodCIDRs) == 1 })
	f.cloud.CreateRouteErr = map[string]error{"n1": errors.New("route table full")}
	f.reconcile()
	c := f.networkUnavailable("n1")
	if c == nil || c.Status != corev1.ConditionTrue || c.Reason != "NoRouteCreated" || c.Message != "RouteController failed to create a route" {
		t.Errorf("NetworkUnavailable: %+v", c)
	}
	ccmtest.WaitForEvents(t, f.Env, "default", "Node", "n1", "FailedToCreateRoute Could not create route")
}

// TestAddressChanged: with node addresses tracked, a Node whose address
// changed has its route deleted and created again.
func TestAddressChanged(t *testing.T) {
	f := newFixture(t)
	n1 := f.node("n1", "10.240.8.11", "10.244.1.0/24")
	f.waitForNodes(func(nodes []*corev1.Node) bool { return len(nodes) == 1 && len(nodes[0].Spec.PodCIDRs) == 1 })
	old := &cloudprovider.Route{TargetNode: "n1", DestinationCIDR: "10.244.1.0/24", EnableNodeAddresses: true,
		TargetNodeAddresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.240.8.99"}}}
	if err := f.cloud.CreateRoute(f.Ctx, "kubernetes", "", old); err != nil {
		t.Fatal(err)
	}
	f.reconcile()
	if calls := f.cloud.GetCalls(); !slices.Equal(calls, []string{"list-routes", "delete-route", "create-route"}) {
		t.Errorf("calls %v", calls)
	}
	routes, _ := f.cloud.ListRoutes(f.Ctx, "kubernetes")
	if len(routes) != 1 || !slices.Equal(routes[0].TargetNodeAddresses, n1.Status.Addresses) {
		t.Errorf("routes %+v", routes)
	}
}

func TestIsResponsibleForRoute(t *testing.T) {
	rc := &RouteController{clusterCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}, log: slog.New(slog.DiscardHandler)}
	for cidr, want := range map[string]bool{"10.244.3.0/24": true, "10.244.0.0/16": true, "10.0.0.0/8": false, // a wider range: neither end is inside
		"10.245.0.0/24": false, "192.168.1.0/24": false} {
		if got := rc.isResponsibleForRoute(&cloudprovider.Route{DestinationCIDR: cidr}); got != want {
			t.Errorf("%s: %v, want %v", cidr, got, want)
		}
	}
}
