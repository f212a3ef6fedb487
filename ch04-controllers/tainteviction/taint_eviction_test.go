package tainteviction

import (
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/controllertest"
)

func ptr[T any](v T) *T { return &v }

func TestGetMinTolerationTime(t *testing.T) {
	unreachable := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}
	forever := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	fiveMin := forever
	fiveMin.TolerationSeconds = ptr(int64(300))
	if ok, _ := getMatchingTolerations([]corev1.Taint{unreachable}, nil); ok {
		t.Error("no tolerations tolerate nothing")
	}
	ok, used := getMatchingTolerations([]corev1.Taint{unreachable}, []corev1.Toleration{forever, fiveMin})
	if !ok || getMinTolerationTime(used) != 5*time.Minute {
		t.Errorf("%v %v", ok, getMinTolerationTime(used))
	}
	if _, used := getMatchingTolerations([]corev1.Taint{unreachable}, []corev1.Toleration{forever}); getMinTolerationTime(used) >= 0 {
		t.Error("forever")
	}
}

func TestTaintEviction(t *testing.T) {
	env := controllertest.New(t)
	clock := workqueue.NewFakeClock(time.Now())
	c := newController(env.CC, clock)
	go c.recorder.Run(env.Ctx)
	env.Start(t)
	node, err := rest.Create(env.Ctx, env.Admin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	if err != nil {
		t.Fatal(err)
	}
	node.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: ptr(metav1.Now())}}
	if _, err := rest.Update(env.Ctx, env.Admin, node); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, tol []corev1.Toleration) {
		if _, err := rest.Create(env.Ctx, env.Admin, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: "n1", Tolerations: tol, Containers: []corev1.Container{{Name: "c", Image: "x"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	tol := func(secs *int64) []corev1.Toleration {
		return []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs},
			{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs}}
	}
	mk("defaulted", nil) // the apiserver adds 300s tolerations
	mk("short", tol(ptr(int64(2))))
	mk("daemon", tol(nil))
	controllertest.Eventually(t, "cache", func() bool {
		// The NoExecute taint, not the not-ready one admission put on the
		// new Node: the cache may not have seen the update yet.
		n, _ := c.nodes.GetStore().Get("", "n1")
		return n != nil && len(noExecuteTaints(n)) > 0 && len(c.pods.GetStore().List()) == 3
	})
	c.handleNode("n1")
	c.mu.Lock()
	got := map[string]time.Duration{}
	for k, e := range c.scheduled {
		got[k] = e.fireAt.Sub(clock.Now())
	}
	c.mu.Unlock()
	if len(got) != 2 || got["default/defaulted"] != 300*time.Second || got["default/short"] != 2*time.Second {
		t.Fatalf("scheduled evictions: %v", got)
	}
	clock.Step(2 * time.Second)
	if err := c.evict(env.Ctx, "default/short"); err != nil {
		t.Fatal(err)
	}
	if err := c.evict(env.Ctx, "default/defaulted"); err != nil { // not due: rescheduled
		t.Fatal(err)
	}
	short, _ := rest.Get[corev1.Pod](env.Ctx, env.Admin, "default", "short")
	if short.DeletionTimestamp == nil {
		t.Error("short: not deleted")
	}
	found := false
	for _, cond := range short.Status.Conditions {
		found = found || (cond.Type == corev1.DisruptionTarget && cond.Reason == "DeletionByTaintManager")
	}
	if !found {
		t.Errorf("short: conditions %+v", short.Status.Conditions)
	}
	for _, name := range []string{"defaulted", "daemon"} {
		if p, _ := rest.Get[corev1.Pod](env.Ctx, env.Admin, "default", name); p.DeletionTimestamp != nil {
			t.Errorf("%s deleted", name)
		}
	}
	// The taint goes: the pending eviction is cancelled.
	node, _ = rest.Get[corev1.Node](env.Ctx, env.Admin, "", "n1")
	node.Spec.Taints = nil
	if _, err := rest.Update(env.Ctx, env.Admin, node); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "untainted in cache", func() bool { n, _ := c.nodes.GetStore().Get("", "n1"); return len(n.Spec.Taints) == 0 })
	c.handleNode("n1")
	c.mu.Lock()
	left := len(c.scheduled)
	c.mu.Unlock()
	if left != 0 {
		t.Errorf("%d evictions still scheduled", left)
	}
}
