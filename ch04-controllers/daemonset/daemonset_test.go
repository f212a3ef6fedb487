package daemonset

import (
	"slices"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/internal/controllertest"
)

func node(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
}

func TestNodeShouldRunDaemonPod(t *testing.T) {
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		NodeSelector: map[string]string{"disk": "ssd"}}}}}
	ssd := map[string]string{"disk": "ssd"}
	for _, tc := range []struct {
		name                      string
		node                      *corev1.Node
		shouldRun, shouldContinue bool
	}{
		{"matching labels", node("a", ssd), true, true},
		{"wrong labels", node("b", map[string]string{"disk": "hdd"}), false, false},
		{"untolerated NoSchedule: keep the pod, start none", node("c", ssd, corev1.Taint{Key: "x", Effect: corev1.TaintEffectNoSchedule}), false, true},
		{"untolerated NoExecute: no pod", node("d", ssd, corev1.Taint{Key: "x", Effect: corev1.TaintEffectNoExecute}), false, false},
		{"PreferNoSchedule ignored", node("e", ssd, corev1.Taint{Key: "x", Effect: corev1.TaintEffectPreferNoSchedule}), true, true},
		{"not-ready NoExecute tolerated by default", node("f", ssd, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}), true, true},
		{"unreachable NoExecute tolerated by default", node("g", ssd, corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}), true, true},
		{"cordoned tolerated by default", node("h", ssd, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}), true, true},
		{"not-ready NoSchedule not tolerated", node("i", ssd, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}), false, true},
		{"network-unavailable only for hostNetwork", node("j", ssd, corev1.Taint{Key: corev1.TaintNodeNetworkUnavailable, Effect: corev1.TaintEffectNoSchedule}), false, true},
	} {
		run, cont := NodeShouldRunDaemonPod(tc.node, ds)
		if run != tc.shouldRun || cont != tc.shouldContinue {
			t.Errorf("%s: shouldRun %v shouldContinueRunning %v, want %v %v", tc.name, run, cont, tc.shouldRun, tc.shouldContinue)
		}
	}
	ds.Spec.Template.Spec.HostNetwork = true
	if run, _ := NodeShouldRunDaemonPod(node("k", ssd, corev1.Taint{Key: corev1.TaintNodeNetworkUnavailable, Effect: corev1.TaintEffectNoSchedule}), ds); !run {
		t.Error("hostNetwork pods tolerate network-unavailable")
	}
}

func TestDaemonSetOnePodPerNodeAndRollingUpdate(t *testing.T) {
	env := controllertest.New(t)
	clock := workqueue.NewFakeClock(time.Now())
	c := newController(env.CC, clock)
	go c.recorder.Run(env.Ctx)
	env.Start(t)
	for _, n := range []*corev1.Node{
		node("n1", nil), node("n2", nil), node("n3", nil),
		node("tainted", nil, corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}),
	} {
		created, err := rest.Create(env.Ctx, env.Admin, n)
		if err != nil {
			t.Fatal(err)
		}
		// Admission gave it node.kubernetes.io/not-ready:NoSchedule, which
		// daemon pods do not tolerate; the node lifecycle controller would
		// remove it once the node is Ready.
		created.Spec.Taints = n.Spec.Taints
		if _, err := rest.Update(env.Ctx, env.Admin, created); err != nil {
			t.Fatal(err)
		}
	}
	labels := map[string]string{"app": "agent"}
	ds, err := rest.Create(env.Ctx, env.Admin, &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "agent:1"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	sync := func() *appsv1.DaemonSet {
		t.Helper()
		cur, _ := rest.Get[appsv1.DaemonSet](env.Ctx, env.Admin, "default", "agent")
		controllertest.Eventually(t, "caches current", func() bool {
			x, ok := c.dsets.GetStore().Get("default", "agent")
			return ok && x.ResourceVersion == cur.ResourceVersion && untainted(c) &&
				c.expectations.SatisfiedExpectations("default/agent") && historiesCached(env, c)
		})
		env.ClearActions()
		if _, err := c.syncDaemonSet(env.Ctx, "default/agent"); err != nil {
			t.Fatal(err)
		}
		cur, _ = rest.Get[appsv1.DaemonSet](env.Ctx, env.Admin, "default", "agent")
		return cur
	}
	pods := func() []corev1.Pod {
		l, _ := rest.List[corev1.Pod](env.Ctx, env.Admin, "default", rest.ListOptions{LabelSelector: "app=agent"})
		var out []corev1.Pod
		for _, p := range l.Items {
			if p.DeletionTimestamp == nil {
				out = append(out, p)
			}
		}
		return out
	}
	got := sync()
	// The first revision, one pod per untainted node, one status update.
	env.ExpectWrites(t, "create controllerrevisions default/agent-"+controller.ComputeHash(&ds.Spec.Template, nil), "create pods default", "create pods default", "create pods default", statusUpdate)
	ps := pods()
	var targets []string
	for _, p := range ps {
		targets = append(targets, GetTargetNodeName(&p))
		if p.Spec.NodeName != "" || p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == "" ||
			!slices.ContainsFunc(p.Spec.Tolerations, func(t corev1.Toleration) bool { return t.Key == corev1.TaintNodeUnreachable }) {
			t.Errorf("pod %s: nodeName %q labels %v tolerations %v", p.Name, p.Spec.NodeName, p.Labels, p.Spec.Tolerations)
		}
	}
	slices.Sort(targets)
	if !slices.Equal(targets, []string{"n1", "n2", "n3"}) {
		t.Fatalf("pods for nodes %v, want n1 n2 n3 (not the tainted one)", targets)
	}
	if s := got.Status; s.DesiredNumberScheduled != 3 || s.ObservedGeneration != got.Generation {
		t.Errorf("status after the first sync: %+v", s)
	}
	// Bound and ready, as the scheduler and a kubelet would make them.
	now := metav1.NewTime(clock.Now())
	for _, p := range ps {
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		if _, err := rest.UpdateStatus(env.Ctx, env.Admin, &p); err != nil {
			t.Fatal(err)
		}
	}
	controllertest.Eventually(t, "ready pods in cache", func() bool {
		n := 0
		for _, p := range c.pods.GetStore().List() {
			if controller.IsPodReady(p) {
				n++
			}
		}
		return n == 3
	})
	got = sync()
	env.ExpectWrites(t, statusUpdate) // the pods ready: only the status changes
	if s := got.Status; s.DesiredNumberScheduled != 3 || s.CurrentNumberScheduled != 3 || s.NumberReady != 3 ||
		s.NumberAvailable != 3 || s.UpdatedNumberScheduled != 3 || s.NumberMisscheduled != 0 || s.NumberUnavailable != 0 {
		t.Fatalf("status: %+v", s)
	}
	got = sync()
	env.ExpectWrites(t) // nothing changed: nothing written

	// A new template: one node at a time (maxUnavailable 1).
	ds = got
	ds.Spec.Template.Spec.Containers[0].Image = "agent:2"
	if ds, err = rest.Update(env.Ctx, env.Admin, ds); err != nil {
		t.Fatal(err)
	}
	got = sync()
	left := pods()
	if n := len(left); n != 2 {
		t.Fatalf("rolling update: %d pods left, want 2 (one old pod deleted)", n)
	}
	deleted := slices.IndexFunc(ps, func(p corev1.Pod) bool {
		return !slices.ContainsFunc(left, func(l corev1.Pod) bool { return l.Name == p.Name })
	})
	// The second revision; no new pod until the old one is gone.
	env.ExpectWrites(t, "create controllerrevisions default/agent-"+controller.ComputeHash(&ds.Spec.Template, nil), "delete pods default/"+ps[deleted].Name, statusUpdate)
	if got.Status.UpdatedNumberScheduled != 0 {
		t.Errorf("updated: %d", got.Status.UpdatedNumberScheduled)
	}
}

// statusUpdate is the write of the DaemonSet's status.
const statusUpdate = "update daemonsets/status default/agent"

// untainted: the cache shows the four nodes without the admission taint.
func untainted(c *DaemonSetsController) bool {
	nodes := c.nodes.GetStore().List()
	for _, n := range nodes {
		if slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady }) {
			return false
		}
	}
	return len(nodes) == 4
}
