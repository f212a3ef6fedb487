package scheduler

import (
	"slices"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

func nominatedNames(n *nominator, node string) []string {
	var out []string
	for _, p := range n.NominatedPodsForNode(node) {
		out = append(out, p.Name)
	}
	return out
}

func TestNominator(t *testing.T) {
	exists := map[string]bool{"a": true, "b": true, "c": true}
	n := newNominator(func(p *corev1.Pod) bool { return exists[p.Name] })
	withNNN := func(name, node string) *corev1.Pod {
		p := testPod(name, 0, "1")
		p.Status.NominatedNodeName = node
		return p
	}

	// From the pod's status (ModeNoop), or given (ModeOverride).
	n.AddNominatedPod(withNNN("a", "n1"), nil)
	n.AddNominatedPod(withNNN("b", ""), &framework.NominatingInfo{NominatedNodeName: "n1", NominatingMode: framework.ModeOverride})
	n.AddNominatedPod(withNNN("c", ""), nil) // nothing to nominate
	n.AddNominatedPod(withNNN("gone", "n1"), nil)
	if got := nominatedNames(n, "n1"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("n1: %v", got)
	}
	// Added again: moved, never twice.
	n.AddNominatedPod(withNNN("a", "n2"), nil)
	if got, got2 := nominatedNames(n, "n1"), nominatedNames(n, "n2"); !slices.Equal(got, []string{"b"}) || !slices.Equal(got2, []string{"a"}) {
		t.Fatalf("after moving a: n1 %v, n2 %v", got, got2)
	}

	// An update before our status patch arrived keeps our nomination...
	b := withNNN("b", "")
	b.Labels = map[string]string{"new": "version"}
	n.UpdateNominatedPod(withNNN("b", ""), b)
	if got := n.NominatedPodsForNode("n1"); len(got) != 1 || got[0] != b {
		t.Fatalf("b after an update: %v", got)
	}
	// ... the status patch arriving confirms it, and clearing it drops it.
	n.UpdateNominatedPod(b, withNNN("b", "n1"))
	if got := nominatedNames(n, "n1"); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("b confirmed: %v", got)
	}
	n.UpdateNominatedPod(withNNN("b", "n1"), withNNN("b", ""))
	if got := nominatedNames(n, "n1"); len(got) != 0 {
		t.Fatalf("b cleared: %v", got)
	}
	// ModeOverride with "" clears.
	n.AddNominatedPod(withNNN("a", "n2"), &framework.NominatingInfo{NominatingMode: framework.ModeOverride})
	if n.count.Load() != 0 || len(n.nominatedPods) != 0 {
		t.Fatalf("left: %v", n.nominatedPodToNode)
	}

	n.AddNominatedPod(withNNN("c", "n3"), nil)
	if n.nominatedNodeFor(withNNN("c", "")) != "n3" {
		t.Fatal("c not nominated to n3")
	}
	n.DeleteNominatedPodIfExists(withNNN("c", ""))
	if n.count.Load() != 0 || nominatedNames(n, "n3") != nil {
		t.Fatal("c not deleted")
	}
}

// TestQueueKeepsNominator: the queue's informer handlers keep the
// nominator in step (a pod with status.nominatedNodeName learned on Add,
// forgotten on Delete).
func TestQueueKeepsNominator(t *testing.T) {
	q := NewSchedulingQueue(func(a, b *framework.QueuedPodInfo) bool { return false })
	p := testPod("p", 0, "1")
	p.Status.NominatedNodeName = "n1"
	q.Add(p)
	if got := nominatedNames(q.nominator, "n1"); !slices.Equal(got, []string{"p"}) {
		t.Fatalf("after Add: %v", got)
	}
	q.Delete(p)
	if got := nominatedNames(q.nominator, "n1"); len(got) != 0 {
		t.Fatalf("after Delete: %v", got)
	}
}
