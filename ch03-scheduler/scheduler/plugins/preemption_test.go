package plugins

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// Tests of DefaultPreemption, after upstream's default_preemption_test.go:
// victim selection, node picking, budgets, eligibility, the messages.

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// prioPod: a pod with a name, a priority, a CPU request, and a start time
// (minutes after t0; negative: not started).
func prioPod(name string, prio int32, cpu string, startMin int) *corev1.Pod {
	p := pod(cpu, "")
	p.Name, p.UID = name, "uid-"+name
	p.Spec.Priority = &prio
	p.Spec.SchedulerName = "default-scheduler"
	if startMin >= 0 {
		st := metav1.NewTime(t0.Add(time.Duration(startMin) * time.Minute))
		p.Status.StartTime = &st
	}
	return p
}

func onNode(p *corev1.Pod, nodeName string) *corev1.Pod { p.Spec.NodeName = nodeName; return p }

func names(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// fakeNominator: pods nominated to nodes.
type fakeNominator map[string][]*corev1.Pod

func (f fakeNominator) NominatedPodsForNode(n string) []*corev1.Pod { return f[n] }

// preemptionFramework: the filters that matter here, DefaultPreemption
// with a PreemptPod that only records the victims.
func preemptionFramework(t *testing.T, nominated fakeNominator) (*framework.Framework, *DefaultPreemption, *[]string) {
	t.Helper()
	pl := &DefaultPreemption{}
	var evicted []string
	pl.PreemptPod = func(_ context.Context, c *Candidate, _, victim *corev1.Pod) error {
		evicted = append(evicted, c.Name+"/"+victim.Name)
		return nil
	}
	fw, err := framework.New([]framework.Plugin{PrioritySort{}, NodeUnschedulable{}, TaintToleration{}, NodePorts{},
		NodeResourcesFit{}, pl, DefaultBinder{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fw.SetHandle(framework.Handle{PodNominator: nominated})
	pl.SetFramework(fw)
	return fw, pl, &evicted
}

func TestSelectVictimsOnNode(t *testing.T) {
	pdb := func(sel map[string]string, allowed int32) *policyv1.PodDisruptionBudget {
		one := intstr.FromInt(1)
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pdb"},
			Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: sel}},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed}}
	}
	labelled := func(p *corev1.Pod) *corev1.Pod { p.Labels = map[string]string{"app": "db"}; return p }
	for _, tc := range []struct {
		name          string
		pods          []*corev1.Pod
		preemptor     *corev1.Pod
		pdbs          []*policyv1.PodDisruptionBudget
		want          []string // victims, most important first
		wantViolating int
		wantMsg       string // failure
	}{{
		name:      "no lower-priority pods",
		pods:      []*corev1.Pod{prioPod("a", 1000, "4", 0)},
		preemptor: prioPod("p", 1000, "1", -1),
		wantMsg:   "No preemption victims found for incoming pod",
	}, {
		name:      "does not fit even without the lower-priority pods",
		pods:      []*corev1.Pod{prioPod("hi", 2000, "3", 0), prioPod("lo", 10, "1", 0)},
		preemptor: prioPod("p", 1000, "2", -1),
		wantMsg:   "Insufficient cpu",
	}, {
		name:      "the higher-priority victim is reprieved first",
		pods:      []*corev1.Pod{prioPod("lo1", 100, "1", 1), prioPod("mid", 500, "2", 5), prioPod("lo2", 100, "1", 2)},
		preemptor: prioPod("p", 1000, "2", -1),
		want:      []string{"lo1", "lo2"},
	}, {
		name: "equal priority: the one started first is reprieved",
		// Room for one of the two after the preemptor: the earlier keeps it.
		pods:      []*corev1.Pod{prioPod("late", 100, "2", 30), prioPod("early", 100, "2", 10)},
		preemptor: prioPod("p", 1000, "2", -1),
		want:      []string{"late"},
	}, {
		name:      "only as many victims as needed",
		pods:      []*corev1.Pod{prioPod("a", 100, "1", 1), prioPod("b", 100, "1", 2), prioPod("c", 100, "1", 3), prioPod("d", 100, "1", 4)},
		preemptor: prioPod("p", 1000, "2", -1),
		want:      []string{"c", "d"},
	}, {
		name:      "budget-violating victims are reprieved first",
		pods:      []*corev1.Pod{labelled(prioPod("db", 100, "2", 5)), prioPod("web", 200, "2", 1)},
		preemptor: prioPod("p", 1000, "2", -1),
		pdbs:      []*policyv1.PodDisruptionBudget{pdb(map[string]string{"app": "db"}, 0)},
		want:      []string{"web"},
	}, {
		name:          "a budget violated when nothing else helps",
		pods:          []*corev1.Pod{labelled(prioPod("db1", 100, "2", 1)), labelled(prioPod("db2", 100, "2", 2))},
		preemptor:     prioPod("p", 1000, "4", -1),
		pdbs:          []*policyv1.PodDisruptionBudget{pdb(map[string]string{"app": "db"}, 1)},
		want:          []string{"db1", "db2"},
		wantViolating: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			_, pl, _ := preemptionFramework(t, nil)
			var pods []*corev1.Pod
			for _, p := range tc.pods {
				pods = append(pods, onNode(p, "n1"))
			}
			ni := framework.NewNodeInfo(node("n1", nil, "4", "8Gi"), pods...)
			state := framework.NewCycleState()
			pl.fw.RunPreFilterPlugins(context.Background(), state, tc.preemptor, nil)
			victims, violating, st := pl.SelectVictimsOnNode(context.Background(), state, tc.preemptor, ni, tc.pdbs)
			if tc.wantMsg != "" {
				if st.IsSuccess() || st.Message() != tc.wantMsg {
					t.Fatalf("status %v %q, want %q", st.Code(), st.Message(), tc.wantMsg)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("status %v %q", st.Code(), st.Message())
			}
			if got := names(victims); !slices.Equal(got, tc.want) || violating != tc.wantViolating {
				t.Errorf("victims %v (%d violating), want %v (%d)", got, violating, tc.want, tc.wantViolating)
			}
		})
	}
}

func TestPickOneNodeForPreemption(t *testing.T) {
	c := func(name string, pdbViolations int64, victims ...*corev1.Pod) *Candidate {
		return &Candidate{Name: name, Victims: victims, NumPDBViolations: pdbViolations}
	}
	p := func(prio int32, startMin int) *corev1.Pod { return prioPod(fmt.Sprint(prio), prio, "1", startMin) }
	for _, tc := range []struct {
		name       string
		candidates []*Candidate
		want       string
	}{
		{"a single candidate", []*Candidate{c("n1", 0, p(100, 0))}, "n1"},
		{"fewest budget violations", []*Candidate{c("n1", 1, p(0, 0)), c("n2", 0, p(500, 0))}, "n2"},
		{"lowest highest-priority victim", []*Candidate{c("n1", 0, p(200, 0)), c("n2", 0, p(100, 0), p(100, 0)), c("n3", 0, p(150, 0))}, "n2"},
		{"smallest sum of priorities", []*Candidate{c("n1", 0, p(100, 0), p(100, 0)), c("n2", 0, p(100, 0), p(50, 0))}, "n2"},
		{"negative priorities: fewer victims", []*Candidate{c("n1", 0, p(-10, 0), p(-10, 0)), c("n2", 0, p(-10, 0))}, "n2"},
		{"fewest victims", []*Candidate{c("n1", 0, p(100, 0), p(100, 0), p(100, 0)), c("n2", 0, p(100, 0), p(100, 0))}, "n2"},
		{"latest start of the highest-priority victims", []*Candidate{
			c("n1", 0, p(100, 10), p(50, 90)), c("n2", 0, p(100, 20), p(50, 0)), c("n3", 0, p(100, 5), p(50, 99))}, "n2"},
		{"ties: the first", []*Candidate{c("n1", 0, p(100, 1)), c("n2", 0, p(100, 1))}, "n1"},
	} {
		if got := SelectCandidate(tc.candidates); got.Name != tc.want {
			t.Errorf("%s: picked %s, want %s", tc.name, got.Name, tc.want)
		}
	}
}

func TestCalculateNumCandidates(t *testing.T) {
	for _, tc := range []struct{ nodes, want int32 }{{3, 3}, {100, 100}, {999, 100}, {1000, 100}, {5000, 500}} {
		if got := calculateNumCandidates(tc.nodes); got != tc.want {
			t.Errorf("%d nodes: %d candidates, want %d", tc.nodes, got, tc.want)
		}
	}
}

func TestFilterPodsWithPDBViolation(t *testing.T) {
	lab := func(name string, app string) *corev1.Pod {
		p := prioPod(name, 0, "1", 0)
		p.Labels = map[string]string{"app": app}
		return p
	}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "default"},
		Spec:   policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1, DisruptedPods: map[string]metav1.Time{"db0": {}}}}
	other := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "other"}, Spec: pdb.Spec}
	empty := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{}}}
	v, nv := filterPodsWithPDBViolation([]*corev1.Pod{lab("db0", "db"), lab("db1", "db"), lab("web", "web"), lab("db2", "db")},
		[]*policyv1.PodDisruptionBudget{pdb, other, empty})
	// db0 is already being disrupted (not counted), db1 uses the one
	// allowed disruption, db2 exceeds it; the empty selector matches nothing.
	if !slices.Equal(names(v), []string{"db2"}) || !slices.Equal(names(nv), []string{"db0", "db1", "web"}) {
		t.Errorf("violating %v, non-violating %v", names(v), names(nv))
	}
}

// TestPostFilter: the whole evaluation, with upstream's messages.
func TestPostFilter(t *testing.T) {
	defer func(orig func(int32) int32) { getOffsetRand = orig }(getOffsetRand)
	getOffsetRand = func(int32) int32 { return 0 }
	never := corev1.PreemptNever
	gpu := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	terminating := func(p *corev1.Pod) *corev1.Pod {
		now := metav1.Now()
		p.DeletionTimestamp = &now
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler}}
		return p
	}
	nominatedTo := func(p *corev1.Pod, n string) *corev1.Pod { p.Status.NominatedNodeName = n; return p }
	withPolicy := func(p *corev1.Pod) *corev1.Pod { p.Spec.PreemptionPolicy = &never; return p }
	for _, tc := range []struct {
		name      string
		nodes     map[string][]*corev1.Pod // node -> pods; "tainted" is tainted
		nominated fakeNominator
		preemptor *corev1.Pod
		wantCode  framework.Code
		wantMsg   string
		wantNNN   *string // nil: no result
		wantEvict []string
	}{{
		name:      "preemptionPolicy Never",
		nodes:     map[string][]*corev1.Pod{"n1": {prioPod("lo", 100, "4", 0)}},
		preemptor: withPolicy(prioPod("p", 1000, "2", -1)),
		wantCode:  framework.Unschedulable, wantMsg: "preemption: not eligible due to preemptionPolicy=Never.",
	}, {
		name:      "no victims anywhere",
		nodes:     map[string][]*corev1.Pod{"n1": {prioPod("a", 2000, "4", 0)}, "n2": {prioPod("b", 2000, "4", 0)}},
		preemptor: prioPod("p", 1000, "2", -1),
		wantCode:  framework.Unschedulable, wantNNN: ptr(""),
		wantMsg: "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
	}, {
		name:      "a taint is not helped by preemption",
		nodes:     map[string][]*corev1.Pod{"tainted": {prioPod("lo", 100, "1", 0)}, "n2": {prioPod("b", 2000, "4", 0)}},
		preemptor: prioPod("p", 1000, "2", -1),
		wantCode:  framework.Unschedulable, wantNNN: ptr(""),
		wantMsg: "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
	}, {
		name: "evicts on the node with the cheapest victims",
		nodes: map[string][]*corev1.Pod{
			"n1": {prioPod("n1-mid", 500, "4", 0)},
			"n2": {prioPod("n2-lo1", 100, "2", 0), prioPod("n2-lo2", 100, "2", 1)},
		},
		preemptor: prioPod("p", 1000, "2", -1),
		wantCode:  framework.Success, wantNNN: ptr("n2"), wantEvict: []string{"n2/n2-lo2"},
	}, {
		name: "victims already terminating are not deleted again",
		nodes: map[string][]*corev1.Pod{
			"n1": {terminating(prioPod("old", 100, "2", 0)), prioPod("lo", 100, "2", 5)},
		},
		preemptor: prioPod("p", 1000, "4", -1),
		wantCode:  framework.Success, wantNNN: ptr("n1"), wantEvict: []string{"n1/lo"},
	}, {
		name: "waits for its victims on the nominated node",
		nodes: map[string][]*corev1.Pod{
			"n1": {terminating(prioPod("victim", 100, "4", 0))},
			"n2": {prioPod("lo", 100, "4", 0)},
		},
		preemptor: nominatedTo(prioPod("p", 1000, "2", -1), "n1"),
		wantCode:  framework.Unschedulable, wantMsg: "preemption: not eligible due to a terminating pod on the nominated node.",
	}, {
		name: "a nominated pod of equal priority keeps its room",
		nodes: map[string][]*corev1.Pod{
			"n1": {prioPod("lo", 100, "1", 0)},
		},
		nominated: fakeNominator{"n1": {prioPod("other", 1000, "3", -1)}},
		preemptor: prioPod("p", 1000, "2", -1),
		wantCode:  framework.Unschedulable, wantNNN: ptr(""),
		wantMsg: "preemption: 0/1 nodes are available: 1 Insufficient cpu.",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fw, pl, evicted := preemptionFramework(t, tc.nominated)
			var nodes []*framework.NodeInfo
			for _, name := range slices.Sorted(maps.Keys(tc.nodes)) {
				var taints []corev1.Taint
				if name == "tainted" {
					taints = []corev1.Taint{gpu}
				}
				var pods []*corev1.Pod
				for _, p := range tc.nodes[name] {
					pods = append(pods, onNode(p, name))
				}
				nodes = append(nodes, framework.NewNodeInfo(node(name, nil, "4", "8Gi", taints...), pods...))
			}
			ctx := context.Background()
			state := framework.NewCycleState()
			fw.RunPreFilterPlugins(ctx, state, tc.preemptor, nodes)
			statuses := framework.NodeToStatus{}
			for _, n := range nodes {
				if st := fw.RunFilterPluginsWithNominatedPods(ctx, state, tc.preemptor, n); !st.IsSuccess() {
					statuses[n.Name()] = st
				}
			}
			if len(statuses) != len(nodes) {
				t.Fatalf("the preemptor fits somewhere: %v", statuses)
			}
			res, st := fw.RunPostFilterPlugins(ctx, state, tc.preemptor, nodes, statuses)
			pl.waitForEvictions()
			if st.Code() != tc.wantCode || st.Message() != tc.wantMsg {
				t.Errorf("status %v %q, want %v %q", st.Code(), st.Message(), tc.wantCode, tc.wantMsg)
			}
			switch {
			case tc.wantNNN == nil && res != nil:
				t.Errorf("result nominates %q, want none", res.NominatedNodeName)
			case tc.wantNNN != nil && (res == nil || res.Mode() != framework.ModeOverride || res.NominatedNodeName != *tc.wantNNN):
				t.Errorf("result %+v, want nominated %q", res, *tc.wantNNN)
			}
			if !slices.Equal(*evicted, tc.wantEvict) {
				t.Errorf("evicted %v, want %v", *evicted, tc.wantEvict)
			}
		})
	}
}

func TestLowerPriorityNominatedPods(t *testing.T) {
	fw, _, _ := preemptionFramework(t, fakeNominator{"n1": {prioPod("lo", 10, "1", -1), prioPod("eq", 100, "1", -1)}})
	if got := names(getLowerPriorityNominatedPods(fw, prioPod("p", 100, "1", -1), "n1")); !slices.Equal(got, []string{"lo"}) {
		t.Errorf("lower-priority nominated pods: %v", got)
	}
}

// TestRunFilterPluginsWithNominatedPods: the room kept for nominated pods
// of equal or higher priority, not for lower ones nor for the pod itself.
func TestRunFilterPluginsWithNominatedPods(t *testing.T) {
	nominated := prioPod("nominated", 500, "3", -1)
	fw, _, _ := preemptionFramework(t, fakeNominator{"n1": {nominated}})
	n := framework.NewNodeInfo(node("n1", nil, "4", "8Gi"))
	for _, tc := range []struct {
		pod  *corev1.Pod
		fits bool
	}{{prioPod("lower", 100, "2", -1), false}, {prioPod("equal", 500, "2", -1), false},
		{prioPod("higher", 1000, "2", -1), true}, {nominated, true}, {prioPod("small", 100, "1", -1), true}} {
		state := framework.NewCycleState()
		fw.RunPreFilterPlugins(context.Background(), state, tc.pod, nil)
		st := fw.RunFilterPluginsWithNominatedPods(context.Background(), state, tc.pod, n)
		if st.IsSuccess() != tc.fits || (!tc.fits && !strings.Contains(st.Message(), "Insufficient cpu")) {
			t.Errorf("%s: fits=%v %q", tc.pod.Name, st.IsSuccess(), st.Message())
		}
	}
	if len(n.Pods) != 0 || n.Requested.MilliCPU != 0 {
		t.Errorf("the node itself was changed: %d pods, %dm", len(n.Pods), n.Requested.MilliCPU)
	}
}

func ptr[T any](v T) *T { return &v }

// The evictions run in a goroutine (upstream's SchedulerAsyncPreemption):
// PostFilter returns at once, and until the last victim's deletion is
// asked for, PreEnqueue keeps the preemptor out of the active queue; a
// failed eviction activates it.
func TestAsyncPreemption(t *testing.T) {
	defer func(orig func(int32) int32) { getOffsetRand = orig }(getOffsetRand)
	getOffsetRand = func(int32) int32 { return 0 }
	fw, pl, _ := preemptionFramework(t, nil)
	release := make(chan struct{})
	asked := make(chan string, 2)
	pl.PreemptPod = func(_ context.Context, _ *Candidate, _, victim *corev1.Pod) error {
		asked <- victim.Name
		<-release
		if victim.Name == "lo2" {
			return errors.New("the apiserver said no")
		}
		return nil
	}
	var activated []string
	pl.Activate = func(p *corev1.Pod) { activated = append(activated, p.Name) }

	preemptor := prioPod("p", 1000, "4", -1)
	nodes := []*framework.NodeInfo{framework.NewNodeInfo(node("n1", nil, "4", "8Gi"),
		onNode(prioPod("lo1", 100, "2", 0), "n1"), onNode(prioPod("lo2", 100, "2", 1), "n1"))}
	ctx := context.Background()
	state := framework.NewCycleState()
	fw.RunPreFilterPlugins(ctx, state, preemptor, nodes)
	statuses := framework.NodeToStatus{"n1": fw.RunFilterPlugins(ctx, state, preemptor, nodes[0])}
	res, st := fw.RunPostFilterPlugins(ctx, state, preemptor, nodes, statuses)
	if !st.IsSuccess() || res == nil || res.NominatedNodeName != "n1" {
		t.Fatalf("PostFilter: %v %q %+v", st.Code(), st.Message(), res)
	}
	// The first victim's eviction has started and hangs: the preemptor waits.
	if v := <-asked; v != "lo1" {
		t.Fatalf("first victim %s", v)
	}
	if s := fw.RunPreEnqueuePlugins(ctx, preemptor); s.Code() != framework.UnschedulableAndUnresolvable ||
		s.Message() != "waiting for the preemption for this pod to be finished" {
		t.Errorf("PreEnqueue while preempting: %v %q", s.Code(), s.Message())
	}
	release <- struct{}{}
	// The last victim's eviction is being asked for: the pod may come back.
	if v := <-asked; v != "lo2" {
		t.Fatalf("last victim %s", v)
	}
	if s := fw.RunPreEnqueuePlugins(ctx, preemptor); !s.IsSuccess() {
		t.Errorf("PreEnqueue during the last eviction: %v %q", s.Code(), s.Message())
	}
	close(release)
	pl.waitForEvictions()
	if !slices.Equal(activated, []string{"p"}) {
		t.Errorf("activated after a failed eviction: %v", activated)
	}
}
