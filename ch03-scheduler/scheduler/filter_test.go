package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch03-scheduler/scheduler/framework"
	"kubik/ch03-scheduler/scheduler/plugins"
)

// Upstream's TestNumFeasibleNodesToFind numbers (schedule_one_test.go).
func TestNumFeasibleNodesToFind(t *testing.T) {
	for _, tc := range []struct {
		percentage, nodes, want int32
	}{
		{0, 10, 10},      // fewer than 100 nodes: all
		{40, 10, 10},     // whatever the percentage
		{0, 99, 99},      //
		{0, 100, 100},    // 50-0 = 50% of 100 = 50, but at least 100
		{0, 1000, 420},   // 50 - 1000/125 = 42%
		{40, 1000, 400},  // a set percentage
		{10, 500, 100},   // 50, but at least 100
		{0, 5000, 500},   // 50 - 40 = 10%
		{0, 6000, 300},   // 50 - 48 = 2%, at least 5%
		{40, 6000, 2400}, //
		{0, 6250, 312},   // 0%: 5%
	} {
		if got := numFeasibleNodesToFind(tc.percentage, tc.nodes); got != tc.want {
			t.Errorf("percentage %d, %d nodes: %d, want %d", tc.percentage, tc.nodes, got, tc.want)
		}
	}
}

func testNode(name, cpu string) *framework.NodeInfo {
	return framework.NewNodeInfo(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}}})
}

func testPod(name string, prio int32, cpu string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name},
		Spec: corev1.PodSpec{Priority: &prio, Containers: []corev1.Container{{Name: "c",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}
}

// testScheduler: a scheduler with the resource filter and no apiserver.
func testScheduler(t *testing.T) *Scheduler {
	t.Helper()
	fw, err := framework.New([]framework.Plugin{plugins.PrioritySort{}, plugins.NodeResourcesFit{}, plugins.DefaultBinder{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &Scheduler{fw: fw, queue: NewSchedulingQueue(fw.QueueSortLess), log: slog.New(slog.DiscardHandler)}
	fw.SetHandle(framework.Handle{PodNominator: s.queue.nominator})
	return s
}

func testNodes(n int, cpu string) []*framework.NodeInfo {
	var nodes []*framework.NodeInfo
	for i := range n {
		nodes = append(nodes, testNode(fmt.Sprintf("node-%04d", i), cpu))
	}
	return nodes
}

// TestFindNodesThatFitPodRotates: 1000 nodes that all fit; each cycle
// stops at 420 feasible nodes and the next one starts where it stopped.
func TestFindNodesThatFitPodRotates(t *testing.T) {
	s := testScheduler(t)
	nodes := testNodes(1000, "4")
	for i, wantStart := range []int{0, 420, 840, 260} {
		pod := testPod(fmt.Sprint("p", i), 0, "1")
		feasible, d, err := s.findNodesThatFitPod(context.Background(), framework.NewCycleState(), pod, nodes)
		if err != nil {
			t.Fatal(err)
		}
		if len(feasible) != 420 || len(d.NodeToStatus) != 0 {
			t.Fatalf("cycle %d: %d feasible, %d rejected; want 420, 0", i, len(feasible), len(d.NodeToStatus))
		}
		if got := feasible[0].Name(); got != nodes[wantStart].Name() {
			t.Errorf("cycle %d started at %s, want %s", i, got, nodes[wantStart].Name())
		}
	}
}

// TestFindNodesThatFitPodNoFit: nothing fits: every node is looked at and
// counted in the FitError.
func TestFindNodesThatFitPodNoFit(t *testing.T) {
	s := testScheduler(t)
	s.nextStartNodeIndex = 123
	nodes := testNodes(1000, "4")
	pod := testPod("big", 0, "8")
	_, err := s.schedulePod(context.Background(), framework.NewCycleState(), pod, nodes)
	if err == nil || err.Error() != "0/1000 nodes are available: 1000 Insufficient cpu." {
		t.Errorf("err %v", err)
	}
	if s.nextStartNodeIndex != 123 {
		t.Errorf("nextStartNodeIndex %d, want 123 (all 1000 looked at)", s.nextStartNodeIndex)
	}
	// Fewer than 100 nodes: all are scored.
	feasible, _, _ := s.findNodesThatFitPod(context.Background(), framework.NewCycleState(), testPod("small", 0, "1"), testNodes(60, "4"))
	if len(feasible) != 60 {
		t.Errorf("60 nodes: %d feasible", len(feasible))
	}
}

// TestNominatedNodeFirst: a pod nominated to a node that fits now gets that
// node alone, without looking at the others.
func TestNominatedNodeFirst(t *testing.T) {
	s := testScheduler(t)
	nodes := testNodes(200, "4")
	pod := testPod("p", 1000, "1")
	pod.Status.NominatedNodeName = "node-0150"
	feasible, _, err := s.findNodesThatFitPod(context.Background(), framework.NewCycleState(), pod, nodes)
	if err != nil || len(feasible) != 1 || feasible[0].Name() != "node-0150" {
		t.Fatalf("feasible %d nodes, err %v", len(feasible), err)
	}
	if s.nextStartNodeIndex != 0 {
		t.Errorf("the round-robin moved: %d", s.nextStartNodeIndex)
	}
}

// TestNominatedPodsKeepTheirRoom: a pod nominated to node-0001 (its victims
// are terminating) keeps the room there from pods of lower priority, not
// from pods of higher priority.
func TestNominatedPodsKeepTheirRoom(t *testing.T) {
	s := testScheduler(t)
	nodes := []*framework.NodeInfo{testNode("node-0000", "1"), testNode("node-0001", "4")}
	preemptor := testPod("preemptor", 1000, "3")
	preemptor.Status.NominatedNodeName = "node-0001"
	s.queue.Add(preemptor)

	low := testPod("low", 100, "2")
	_, err := s.schedulePod(context.Background(), framework.NewCycleState(), low, nodes)
	if err == nil || err.Error() != "0/2 nodes are available: 2 Insufficient cpu." {
		t.Errorf("low-priority pod: %v", err)
	}
	high := testPod("high", 2000, "2")
	host, err := s.schedulePod(context.Background(), framework.NewCycleState(), high, nodes)
	if err != nil || host != "node-0001" {
		t.Errorf("high-priority pod: %q %v", host, err)
	}
	// Once the preemptor is assumed (bound), the nomination is gone.
	s.queue.DeleteNominatedPodIfExists(preemptor)
	host, err = s.schedulePod(context.Background(), framework.NewCycleState(), low, nodes)
	if err != nil || host != "node-0001" {
		t.Errorf("low-priority pod after the nomination is gone: %q %v", host, err)
	}
}

// BenchmarkSchedulePod: one cycle's filtering and scoring on 5000 nodes
// (numFeasibleNodesToFind: 500 of them scored), with nothing nominated
// and with one nominated pod; and with every node scored
// (percentageOfNodesToScore 100), the cost before the adaptive percentage.
func BenchmarkSchedulePod(b *testing.B) {
	for _, tc := range []struct {
		nominated  bool
		percentage int32
	}{{false, 0}, {true, 0}, {false, 100}} {
		b.Run(fmt.Sprintf("nominated=%v,percentage=%d", tc.nominated, tc.percentage), func(b *testing.B) {
			nominated := tc.nominated
			s := testScheduler(&testing.T{})
			s.percentageOfNodesToScore = tc.percentage
			nodes := testNodes(5000, "4")
			if nominated {
				p := testPod("nominated", 1000, "1")
				p.Status.NominatedNodeName = "node-0042"
				s.queue.Add(p)
			}
			pod := testPod("p", 0, "1")
			for b.Loop() {
				if _, err := s.schedulePod(context.Background(), framework.NewCycleState(), pod, nodes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
