package nodelifecycle

import (
	"slices"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/cloudcontroller/internal/ccmtest"
	"kubik/ch08-full-cluster/cloudprovider"
	"kubik/ch08-full-cluster/cloudprovider/fake"
	"kubik/internal/controllertest"
)

// TestMonitorNodes: a Ready node loses the shutdown taint; a not-Ready
// node whose machine is gone is deleted; one whose machine is off is
// tainted; a second pass writes nothing.
func TestMonitorNodes(t *testing.T) {
	env := ccmtest.New(t)
	cloud := &fake.Cloud{ExistsByProviderID: true, ExistsByNode: map[string]bool{"gone": false}, NodeShutdown: true}
	c, err := NewCloudNodeLifecycleController(env.CC, cloud, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	go c.recorder.Run(env.Ctx)
	env.Start(t)

	ready := ccmtest.Node(t, env, "ready", "10.240.8.11", corev1.ConditionTrue)
	ready.Spec.Taints = []corev1.Taint{*ShutdownTaint, {Key: "dedicated", Effect: corev1.TaintEffectNoSchedule}}
	if _, err := rest.Update(env.Ctx, env.Admin, ready); err != nil {
		t.Fatal(err)
	}
	ccmtest.Node(t, env, "gone", "10.240.8.12", corev1.ConditionUnknown)
	ccmtest.Node(t, env, "off", "10.240.8.13", corev1.ConditionFalse)
	controllertest.Eventually(t, "nodes in the cache", func() bool {
		n, ok := c.nodes.GetStore().Get("", "ready")
		return c.nodes.GetStore().Len() == 3 && ok && len(n.Spec.Taints) == 2
	})

	env.ClearActions()
	c.MonitorNodes(env.Ctx)
	env.ExpectWrites(t, "patch nodes ready", "delete nodes gone", "patch nodes off")
	taints := func(name string) []string {
		n, err := rest.Get[corev1.Node](env.Ctx, env.Admin, "", name)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, t := range n.Spec.Taints {
			out = append(out, t.Key+":"+string(t.Effect))
		}
		return out
	}
	if got := taints("ready"); !slices.Equal(got, []string{"dedicated:NoSchedule"}) {
		t.Errorf("ready's taints %v", got)
	}
	// (The apiserver gave each new Node node.kubernetes.io/not-ready too.)
	if got := taints("off"); !slices.Contains(got, cloudprovider.TaintNodeShutdown+":NoSchedule") {
		t.Errorf("off's taints %v", got)
	}
	if _, err := rest.Get[corev1.Node](env.Ctx, env.Admin, "", "gone"); !rest.IsNotFound(err) {
		t.Errorf("gone: %v", err)
	}
	ccmtest.WaitForEvents(t, env, "default", "Node", "gone", "DeletingNode Deleting node gone because it does not exist in the cloud provider")

	controllertest.Eventually(t, "the changes in the cache", func() bool {
		n, _ := c.nodes.GetStore().Get("", "ready")
		return c.nodes.GetStore().Len() == 2 && len(n.Spec.Taints) == 1
	})
	env.ClearActions()
	c.MonitorNodes(env.Ctx)
	env.ExpectWrites(t)
}

func TestNoInstances(t *testing.T) {
	env := ccmtest.New(t)
	if _, err := NewCloudNodeLifecycleController(env.CC, &fake.Cloud{DisableInstances: true}, time.Second); err == nil ||
		err.Error() != "cloud provider does not support instances" {
		t.Errorf("without instances: %v", err)
	}
}
