package node

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/cloudcontroller/internal/ccmtest"
	"kubik/ch08-full-cluster/cloudprovider"
	"kubik/ch08-full-cluster/cloudprovider/fake"
	"kubik/internal/controllertest"
)

func newController(t *testing.T, cloud *fake.Cloud) (*controllertest.Env, *CloudNodeController) {
	env := ccmtest.New(t)
	c, err := NewCloudNodeController(env.CC, cloud, time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	go c.recorder.Run(env.Ctx)
	env.Start(t)
	return env, c
}

func waitForNode(t *testing.T, c *CloudNodeController, name string, ok func(*corev1.Node) bool) {
	t.Helper()
	controllertest.Eventually(t, name+" in the cache", func() bool {
		n, found := c.nodes.GetStore().Get("", name)
		return found && ok(n)
	})
}

// TestInitialize: a Node with the uninitialized taint gets its provider
// ID, labels and addresses from the cloud, and loses the taint (the
// others stay), in one update and one status patch.
func TestInitialize(t *testing.T) {
	cloud := &fake.Cloud{ProviderID: map[string]string{"n1": "fake://n1"}, InstanceTypes: map[string]string{"n1": "netns"},
		Zone: "zone-a", Region: "region-1",
		Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.240.8.11"}, {Type: corev1.NodeExternalIP, Address: "10.240.8.211"}}}
	env, c := newController(t, cloud)
	n := ccmtest.Node(t, env, "n1", "10.240.8.11", corev1.ConditionTrue)
	n.Spec.Taints = []corev1.Taint{{Key: cloudprovider.TaintExternalCloudProvider, Value: "true", Effect: corev1.TaintEffectNoSchedule},
		{Key: "dedicated", Effect: corev1.TaintEffectNoSchedule}}
	if _, err := rest.Update(env.Ctx, env.Admin, n); err != nil {
		t.Fatal(err)
	}
	waitForNode(t, c, "n1", func(n *corev1.Node) bool { return getCloudTaint(n.Spec.Taints) != nil })

	env.ClearActions()
	if err := c.syncNode(env.Ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t, "update nodes n1", "patch nodes/status n1")
	got, _ := rest.Get[corev1.Node](env.Ctx, env.Admin, "", "n1")
	if got.Spec.ProviderID != "fake://n1" {
		t.Errorf("providerID %q", got.Spec.ProviderID)
	}
	for k, v := range map[string]string{corev1.LabelInstanceTypeStable: "netns", corev1.LabelInstanceType: "netns",
		corev1.LabelTopologyZone: "zone-a", corev1.LabelFailureDomainBetaZone: "zone-a", corev1.LabelTopologyRegion: "region-1"} {
		if got.Labels[k] != v {
			t.Errorf("label %s=%q, want %q", k, got.Labels[k], v)
		}
	}
	if len(got.Spec.Taints) != 1 || got.Spec.Taints[0].Key != "dedicated" {
		t.Errorf("taints %v", got.Spec.Taints)
	}
	want := append(slices.Clone(cloud.Addresses), corev1.NodeAddress{Type: corev1.NodeHostName, Address: "n1"})
	if !slices.Equal(got.Status.Addresses, want) {
		t.Errorf("addresses %v, want %v", got.Status.Addresses, want)
	}
	ccmtest.WaitForEvents(t, env, "default", "Node", "n1", "Synced Node synced successfully")

	// Initialized: the periodic refresh finds the addresses in step.
	waitForNode(t, c, "n1", func(n *corev1.Node) bool { return len(n.Status.Addresses) == 3 })
	env.ClearActions()
	if err := c.UpdateNodeStatus(env.Ctx); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t)
}

// TestNoProviderID: without a provider ID from the cloud or the Node, the
// Node stays tainted.
func TestNoProviderID(t *testing.T) {
	env, c := newController(t, &fake.Cloud{})
	n := ccmtest.Node(t, env, "n3", "10.240.8.13", corev1.ConditionTrue)
	n.Spec.Taints = []corev1.Taint{{Key: cloudprovider.TaintExternalCloudProvider, Effect: corev1.TaintEffectNoSchedule}}
	if _, err := rest.Update(env.Ctx, env.Admin, n); err != nil {
		t.Fatal(err)
	}
	waitForNode(t, c, "n3", func(n *corev1.Node) bool { return getCloudTaint(n.Spec.Taints) != nil })
	env.ClearActions()
	err := c.syncNode(env.Ctx, "n3")
	if err == nil || !strings.Contains(err.Error(), "cloud provider does not set node provider ID for node n3") {
		t.Errorf("error %v", err)
	}
	env.ExpectWrites(t)
}

// TestReconcileLabels: an initialized Node's beta zone label is copied to
// its GA name; its addresses follow the cloud's.
func TestReconcileLabels(t *testing.T) {
	cloud := &fake.Cloud{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.240.8.42"}}}
	env, c := newController(t, cloud)
	n := ccmtest.Node(t, env, "n2", "10.240.8.12", corev1.ConditionTrue)
	n.Labels = map[string]string{corev1.LabelFailureDomainBetaZone: "zone-b"}
	if _, err := rest.Update(env.Ctx, env.Admin, n); err != nil {
		t.Fatal(err)
	}
	waitForNode(t, c, "n2", func(n *corev1.Node) bool { return n.Labels[corev1.LabelFailureDomainBetaZone] == "zone-b" })
	env.ClearActions()
	if err := c.syncNode(env.Ctx, "n2"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t, "patch nodes n2")
	got, _ := rest.Get[corev1.Node](env.Ctx, env.Admin, "", "n2")
	if got.Labels[corev1.LabelTopologyZone] != "zone-b" {
		t.Errorf("labels %v", got.Labels)
	}

	env.ClearActions()
	if err := c.UpdateNodeStatus(env.Ctx); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t, "patch nodes/status n2")
	got, _ = rest.Get[corev1.Node](env.Ctx, env.Admin, "", "n2")
	want := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.240.8.42"}, {Type: corev1.NodeHostName, Address: "n2"}}
	if !slices.Equal(got.Status.Addresses, want) {
		t.Errorf("addresses %v, want %v", got.Status.Addresses, want)
	}
}
