package nodelifecycle

import (
	"slices"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/controllertest"
)

func taintSet(n *corev1.Node) []string {
	var out []string
	for _, t := range n.Spec.Taints {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	slices.Sort(out)
	return out
}

func TestReconcileTaints(t *testing.T) {
	cond := func(ty corev1.NodeConditionType, s corev1.ConditionStatus) corev1.NodeCondition {
		return corev1.NodeCondition{Type: ty, Status: s}
	}
	for _, tc := range []struct {
		name   string
		node   corev1.Node
		taints []string
	}{
		{"ready node loses the admission taint, keeps a user's",
			corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}, {Key: "dedicated", Effect: corev1.TaintEffectNoSchedule}}},
				Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{cond(corev1.NodeReady, corev1.ConditionTrue)}}},
			[]string{"dedicated:NoSchedule"}},
		{"no conditions posted yet: the admission taint goes too, as upstream",
			corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}}},
			nil},
		{"not ready",
			corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{cond(corev1.NodeReady, corev1.ConditionFalse)}}},
			[]string{"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/not-ready:NoSchedule"}},
		{"unreachable replaces not-ready",
			corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}}},
				Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{cond(corev1.NodeReady, corev1.ConditionUnknown)}}},
			[]string{"node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"}},
		{"pressure and cordon",
			corev1.Node{Spec: corev1.NodeSpec{Unschedulable: true}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
				cond(corev1.NodeReady, corev1.ConditionTrue), cond(corev1.NodeMemoryPressure, corev1.ConditionTrue), cond(corev1.NodeDiskPressure, corev1.ConditionFalse)}}},
			[]string{"node.kubernetes.io/memory-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"}},
	} {
		taints, _ := reconcileTaints(&tc.node, metav1.Now())
		got := taintSet(&corev1.Node{Spec: corev1.NodeSpec{Taints: taints}})
		if !slices.Equal(got, tc.taints) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.taints)
		}
	}
}

func TestNodeGoesSilent(t *testing.T) {
	env := controllertest.New(t)
	clock := workqueue.NewFakeClock(time.Now())
	c, _ := NewNodeLifecycleController(env.CC, Options{NodeMonitorGracePeriod: 40 * time.Second, Clock: clock})
	go c.recorder.Run(env.Ctx)
	env.Start(t)

	// A node as a kubelet registers it: Ready, with a Lease.
	n, err := rest.Create(env.Ctx, env.Admin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.NewTime(clock.Now())
	n.Status.Conditions = []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: now},
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: now, LastTransitionTime: now},
	}
	if _, err := rest.UpdateStatus(env.Ctx, env.Admin, n); err != nil {
		t.Fatal(err)
	}
	holder, renew := "n1", metav1.NowMicro()
	if _, err := rest.Create(env.Ctx, env.Admin, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "n1", Namespace: corev1.NamespaceNodeLease},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, RenewTime: &renew}}); err != nil {
		t.Fatal(err)
	}
	p := env.ServicePod(t, "web", "web", "n1", "10.244.1.2", 80, true)
	controllertest.Eventually(t, "caches", func() bool {
		node, ok := c.nodes.GetStore().Get("", "n1")
		_, lease := c.leases.GetStore().Get(corev1.NamespaceNodeLease, "n1")
		pod, pok := c.pods.GetStore().Get("default", p.Name)
		return ok && len(node.Status.Conditions) == 2 && lease && pok && pod.Status.PodIP != ""
	})
	get := func() *corev1.Node {
		n, err := rest.Get[corev1.Node](env.Ctx, env.Admin, "", "n1")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Ready: the admission taint goes.
	if err := c.monitorNodeHealth(env.Ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.syncNodeTaints(env.Ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	if got := taintSet(get()); len(got) != 0 {
		t.Fatalf("ready node taints: %v", got)
	}

	// Within the grace period nothing happens; after it, Unknown.
	clock.Step(30 * time.Second)
	if err := c.monitorNodeHealth(env.Ctx); err != nil {
		t.Fatal(err)
	}
	if cond := getCondition(&get().Status, corev1.NodeReady); cond.Status != corev1.ConditionTrue {
		t.Fatalf("within the grace period: %+v", cond)
	}
	clock.Step(11 * time.Second)
	if err := c.monitorNodeHealth(env.Ctx); err != nil {
		t.Fatal(err)
	}
	node := get()
	for _, ty := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		cond := getCondition(&node.Status, ty)
		if cond == nil || cond.Status != corev1.ConditionUnknown {
			t.Errorf("%s: %+v", ty, cond)
		}
	}
	if r := getCondition(&node.Status, corev1.NodeReady); r.Reason != "NodeStatusUnknown" || r.Message != "Kubelet stopped posting node status." {
		t.Errorf("Ready: %+v", r)
	}
	if d := getCondition(&node.Status, corev1.NodeDiskPressure); d.Reason != "NodeStatusNeverUpdated" || d.Message != "Kubelet never posted node status." {
		t.Errorf("DiskPressure (never posted): %+v", d)
	}
	controllertest.Eventually(t, "pod marked not Ready (MarkPodsNotReady)", func() bool {
		pod, _ := rest.Get[corev1.Pod](env.Ctx, env.Admin, "default", p.Name)
		for _, cond := range pod.Status.Conditions {
			if cond.Type == corev1.PodReady {
				return cond.Status == corev1.ConditionFalse
			}
		}
		return false
	})
	controllertest.Eventually(t, "node Unknown in cache", func() bool {
		n, _ := c.nodes.GetStore().Get("", "n1")
		return getCondition(&n.Status, corev1.NodeReady).Status == corev1.ConditionUnknown
	})
	if err := c.syncNodeTaints(env.Ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	node = get()
	if got, want := taintSet(node), []string{"node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"}; !slices.Equal(got, want) {
		t.Errorf("taints %v, want %v", got, want)
	}
	for _, tt := range node.Spec.Taints {
		if tt.TimeAdded == nil {
			t.Errorf("taint %s without timeAdded", tt.ToString())
		}
	}

	// The lease is renewed again: alive (the kubelet will post Ready itself).
	l, _ := rest.Get[coordinationv1.Lease](env.Ctx, env.Admin, corev1.NamespaceNodeLease, "n1")
	later := metav1.MicroTime{Time: l.Spec.RenewTime.Add(time.Minute)}
	l.Spec.RenewTime = &later
	if _, err := rest.Update(env.Ctx, env.Admin, l); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "lease in cache", func() bool {
		x, _ := c.leases.GetStore().Get(corev1.NamespaceNodeLease, "n1")
		return x.Spec.RenewTime.Equal(later.Time)
	})
	c.monitorNodeHealth(env.Ctx)
	c.mu.Lock()
	probe := c.nodeHealthMap["n1"].probeTimestamp
	c.mu.Unlock()
	if !probe.Equal(clock.Now()) {
		t.Errorf("probeTimestamp %v, want now %v", probe, clock.Now())
	}
}
