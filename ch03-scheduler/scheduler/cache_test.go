package scheduler

import (
	"testing"

	"kubik/ch03-scheduler/scheduler/framework"
)

// TestSnapshotIncremental: a snapshot copies only the nodes that changed
// since the last one, and an earlier snapshot never changes.
func TestSnapshotIncremental(t *testing.T) {
	c := NewCache()
	for _, name := range []string{"b", "a", "c"} {
		c.AddOrUpdateNode(testNode(name, "4").Node)
	}
	p := testPod("p", 0, "1")
	p.Spec.NodeName = "d" // its node is not known yet
	c.AddOrUpdatePod(p)
	s1 := c.Snapshot()
	if got := snapNames(s1); got != "a b c" {
		t.Fatalf("snapshot 1: %s", got)
	}

	q := testPod("q", 0, "2")
	q.Spec.NodeName = "b"
	c.AssumePod(q)
	s2 := c.Snapshot()
	if s2[0] != s1[0] || s2[2] != s1[2] {
		t.Error("unchanged nodes were copied again")
	}
	if s2[1] == s1[1] || len(s2[1].Pods) != 1 || s2[1].Requested.MilliCPU != 2000 || len(s1[1].Pods) != 0 {
		t.Errorf("node b: snapshot 2 has %d pods (%dm), snapshot 1 %d", len(s2[1].Pods), s2[1].Requested.MilliCPU, len(s1[1].Pods))
	}

	c.AddOrUpdateNode(testNode("d", "4").Node) // its pod was already there
	c.RemoveNode(testNode("a", "4").Node)
	c.ForgetPod(q)
	s3 := c.Snapshot()
	if got := snapNames(s3); got != "b c d" {
		t.Fatalf("snapshot 3: %s", got)
	}
	if len(s3[0].Pods) != 0 || len(s3[2].Pods) != 1 || len(s2[1].Pods) != 1 {
		t.Errorf("b %d pods, d %d pods; snapshot 2's b %d", len(s3[0].Pods), len(s3[2].Pods), len(s2[1].Pods))
	}
	if s4 := c.Snapshot(); snapNames(s4) != "b c d" || s4[1] != s3[1] {
		t.Errorf("nothing changed, yet: %s", snapNames(s4))
	}
}

func snapNames(nodes []*framework.NodeInfo) string {
	out := ""
	for i, n := range nodes {
		if i > 0 {
			out += " "
		}
		out += n.Name()
	}
	return out
}
