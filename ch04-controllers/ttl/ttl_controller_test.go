package ttl

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/controllertest"
)

// Upstream's TestDesiredTTL.
func TestDesiredTTL(t *testing.T) {
	for i, tc := range []struct {
		addNode, deleteNode             bool
		nodeCount, desiredTTL, boundary int
		expectedTTL                     int
	}{
		{addNode: true, nodeCount: 0, desiredTTL: 0, boundary: 0, expectedTTL: 0},
		{addNode: true, nodeCount: 99, desiredTTL: 0, boundary: 0, expectedTTL: 0},
		{addNode: true, nodeCount: 100, desiredTTL: 0, boundary: 0, expectedTTL: 15},
		{deleteNode: true, nodeCount: 101, desiredTTL: 15, boundary: 1, expectedTTL: 15},
		{deleteNode: true, nodeCount: 91, desiredTTL: 15, boundary: 1, expectedTTL: 15},
		{addNode: true, nodeCount: 91, desiredTTL: 15, boundary: 1, expectedTTL: 15},
		{deleteNode: true, nodeCount: 90, desiredTTL: 15, boundary: 1, expectedTTL: 0},
		{deleteNode: true, nodeCount: 1800, desiredTTL: 300, boundary: 4, expectedTTL: 60},
		{deleteNode: true, nodeCount: 10000, desiredTTL: 300, boundary: 4, expectedTTL: 300},
	} {
		c := &Controller{nodeCount: tc.nodeCount, desiredTTLSeconds: tc.desiredTTL, boundaryStep: tc.boundary,
			queue: workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]())}
		if tc.addNode {
			c.addNode(&corev1.Node{})
		}
		if tc.deleteNode {
			c.deleteNode(&corev1.Node{})
		}
		if got := c.getDesiredTTLSeconds(); got != tc.expectedTTL {
			t.Errorf("case %d: ttl %d, want %d", i, got, tc.expectedTTL)
		}
	}
}

// Upstream's TestPatchNode: a node is patched unless its annotation
// already holds the desired TTL.
func TestUpdateNodeIfNeeded(t *testing.T) {
	env := controllertest.New(t)
	c, err := NewTTLController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	for i, tc := range []struct {
		name       string
		annotation string // "" for none
		desiredTTL int
		patched    bool
	}{
		{"none", "", 0, true},
		{"none-15", "", 15, true},
		{"15-30", "15", 30, true},
		{"15-15", "15", 15, false},
		{"not-a-number", "foo", 15, true},
	} {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: tc.name}}
		if tc.annotation != "" {
			n.Annotations = map[string]string{corev1.ObjectTTLAnnotationKey: tc.annotation}
		}
		created, err := rest.Create(env.Ctx, env.Admin, n)
		if err != nil {
			t.Fatal(err)
		}
		controllertest.Eventually(t, "node cached", func() bool {
			x, ok := c.nodes.GetStore().Get("", tc.name)
			return ok && x.ResourceVersion == created.ResourceVersion
		})
		c.mu.Lock()
		c.desiredTTLSeconds = tc.desiredTTL
		c.mu.Unlock()
		env.ClearActions()
		if err := c.updateNodeIfNeeded(env.Ctx, tc.name); err != nil {
			t.Fatal(err)
		}
		if tc.patched {
			env.ExpectWrites(t, "patch nodes "+tc.name)
			got, _ := rest.Get[corev1.Node](env.Ctx, env.Admin, "", tc.name)
			if v := got.Annotations[corev1.ObjectTTLAnnotationKey]; v != []string{"0", "15", "30", "", "15"}[i] {
				t.Errorf("%s: annotation %q", tc.name, v)
			}
		} else {
			env.ExpectWrites(t)
		}
	}
}

// Running: a node added is annotated with the small cluster's TTL, 0.
func TestTTLControllerRun(t *testing.T) {
	env := controllertest.New(t)
	c, err := NewTTLController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	go c.Run(env.Ctx, Workers)
	if _, err := rest.Create(env.Ctx, env.Admin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "ttl annotation", func() bool {
		n, err := rest.Get[corev1.Node](env.Ctx, env.Admin, "", "n1")
		return err == nil && n.Annotations[corev1.ObjectTTLAnnotationKey] == "0"
	})
}
