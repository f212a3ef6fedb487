package plugins

import (
	"context"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch03-scheduler/scheduler/framework"
)

func node(name string, labels map[string]string, cpu, mem string, taints ...corev1.Taint) *corev1.Node {
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		corev1.ResourcePods: resource.MustParse("110")}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.NodeSpec{Taints: taints}, Status: corev1.NodeStatus{Allocatable: alloc}}
}

func pod(cpu, mem string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u"}}
	c := corev1.Container{Name: "c"}
	if cpu != "" || mem != "" {
		c.Resources.Requests = corev1.ResourceList{}
		if cpu != "" {
			c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			c.Resources.Requests[corev1.ResourceMemory] = resource.MustParse(mem)
		}
	}
	p.Spec.Containers = []corev1.Container{c}
	return p
}

func filter(t *testing.T, pl framework.FilterPlugin, p *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	t.Helper()
	state := framework.NewCycleState()
	if pf, ok := pl.(framework.PreFilterPlugin); ok {
		if s := pf.PreFilter(context.Background(), state, p, nil); !s.IsSuccess() {
			return s
		}
	}
	return pl.Filter(context.Background(), state, p, n)
}

func TestTaintTolerationFilter(t *testing.T) {
	gpu := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	exec := corev1.Taint{Key: "maint", Effect: corev1.TaintEffectNoExecute}
	prefer := corev1.Taint{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}
	for _, tc := range []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		want        string // "" fits
	}{
		{"no taints", nil, nil, ""},
		{"NoSchedule untolerated", []corev1.Taint{gpu}, nil, ErrReasonNotMatch},
		{"NoExecute untolerated", []corev1.Taint{exec}, nil, ErrReasonNotMatch},
		{"PreferNoSchedule does not filter", []corev1.Taint{prefer}, nil, ""},
		{"Equal toleration", []corev1.Taint{gpu}, []corev1.Toleration{{Key: "dedicated", Operator: "Equal", Value: "gpu", Effect: "NoSchedule"}}, ""},
		{"wrong value", []corev1.Taint{gpu}, []corev1.Toleration{{Key: "dedicated", Value: "cpu"}}, ErrReasonNotMatch},
		{"Exists, any effect", []corev1.Taint{gpu, exec}, []corev1.Toleration{{Operator: "Exists"}}, ""},
		{"wrong effect", []corev1.Taint{gpu}, []corev1.Toleration{{Key: "dedicated", Operator: "Exists", Effect: "NoExecute"}}, ErrReasonNotMatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pod("", "")
			p.Spec.Tolerations = tc.tolerations
			s := filter(t, TaintToleration{}, p, framework.NewNodeInfo(node("n", nil, "1", "1Gi", tc.taints...)))
			if got := s.Message(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if tc.want != "" && s.Code() != framework.UnschedulableAndUnresolvable {
				t.Errorf("code %v, want UnschedulableAndUnresolvable", s.Code())
			}
		})
	}
}

func TestTaintTolerationScore(t *testing.T) {
	prefer := func(k string) corev1.Taint { return corev1.Taint{Key: k, Effect: corev1.TaintEffectPreferNoSchedule} }
	nodes := []*framework.NodeInfo{
		framework.NewNodeInfo(node("clean", nil, "1", "1Gi")),
		framework.NewNodeInfo(node("one", nil, "1", "1Gi", prefer("a"))),
		framework.NewNodeInfo(node("two", nil, "1", "1Gi", prefer("a"), prefer("b"))),
	}
	p := pod("", "")
	p.Spec.Tolerations = []corev1.Toleration{{Key: "b", Operator: "Exists", Effect: corev1.TaintEffectPreferNoSchedule}}
	var scores []framework.NodeScore
	for _, n := range nodes {
		s, _ := TaintToleration{}.Score(context.Background(), framework.NewCycleState(), p, n)
		scores = append(scores, framework.NodeScore{Name: n.Name(), Score: s})
	}
	TaintToleration{}.NormalizeScore(context.Background(), nil, p, scores)
	want := []int64{100, 0, 0} // "two" has one untolerated (a), like "one"
	for i, s := range scores {
		if s.Score != want[i] {
			t.Errorf("%s: score %d, want %d", s.Name, s.Score, want[i])
		}
	}
}

func TestNodeAffinityFilter(t *testing.T) {
	n := node("n1", map[string]string{"disktype": "ssd", "gen": "5"}, "1", "1Gi")
	req := func(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	expr := func(k string, op corev1.NodeSelectorOperator, v ...string) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: k, Operator: op, Values: v}}}
	}
	for _, tc := range []struct {
		name     string
		selector map[string]string
		affinity *corev1.Affinity
		fits     bool
	}{
		{"nothing asked", nil, nil, true},
		{"nodeSelector matches", map[string]string{"disktype": "ssd"}, nil, true},
		{"nodeSelector differs", map[string]string{"disktype": "hdd"}, nil, false},
		{"nodeSelector label missing", map[string]string{"zone": "a"}, nil, false},
		{"In", nil, req(expr("disktype", "In", "hdd", "ssd")), true},
		{"NotIn", nil, req(expr("disktype", "NotIn", "ssd")), false},
		{"Exists", nil, req(expr("gen", "Exists")), true},
		{"DoesNotExist", nil, req(expr("gen", "DoesNotExist")), false},
		{"Gt", nil, req(expr("gen", "Gt", "4")), true},
		{"Lt", nil, req(expr("gen", "Lt", "4")), false},
		{"terms are ORed", nil, req(expr("disktype", "In", "hdd"), expr("gen", "Exists")), true},
		{"empty term matches nothing", nil, req(corev1.NodeSelectorTerm{}), false},
		{"matchFields metadata.name", nil, req(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"n1"}}}}), true},
		{"selector and affinity both apply", map[string]string{"disktype": "hdd"}, req(expr("gen", "Exists")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pod("", "")
			p.Spec.NodeSelector, p.Spec.Affinity = tc.selector, tc.affinity
			s := filter(t, NodeAffinity{}, p, framework.NewNodeInfo(n))
			if s.IsSuccess() != tc.fits {
				t.Fatalf("fits=%v (%q), want %v", s.IsSuccess(), s.Message(), tc.fits)
			}
			if !tc.fits && s.Message() != "node(s) didn't match Pod's node affinity/selector" {
				t.Errorf("message %q", s.Message())
			}
		})
	}
}

func TestNodeResourcesFit(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		running []*corev1.Pod
		want    []string
	}{
		{"fits", pod("500m", "1Gi"), nil, nil},
		{"too much cpu", pod("3", "1Gi"), nil, []string{"Insufficient cpu"}},
		{"cpu and memory", pod("3", "5Gi"), nil, []string{"Insufficient cpu", "Insufficient memory"}},
		{"counts running pods", pod("1", ""), []*corev1.Pod{pod("1500m", "")}, []string{"Insufficient cpu"}},
		{"best effort always fits", pod("", ""), []*corev1.Pod{pod("2", "4Gi")}, nil},
		{"init container larger than containers", func() *corev1.Pod {
			p := pod("100m", "")
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2500m")}}}}
			return p
		}(), nil, []string{"Insufficient cpu"}},
		{"sidecar adds to containers", func() *corev1.Pod {
			p := pod("1500m", "")
			p.Spec.InitContainers = []corev1.Container{{Name: "side", RestartPolicy: &always, Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("600m")}}}}
			return p
		}(), nil, []string{"Insufficient cpu"}},
		{"overhead counts", func() *corev1.Pod {
			p := pod("1900m", "")
			p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}
			return p
		}(), nil, []string{"Insufficient cpu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := framework.NewNodeInfo(node("n", nil, "2", "4Gi"), tc.running...)
			s := filter(t, NodeResourcesFit{}, tc.pod, n)
			if got := s.Reasons(); len(got) != len(tc.want) || (len(got) > 0 && s.Message() != framework.NewStatus(0, tc.want...).Message()) {
				t.Errorf("reasons %q, want %q", got, tc.want)
			}
			// Asking for more than the node's whole allocatable (2 cpu):
			// evicting pods cannot help, preemption must skip the node.
			want := framework.UnschedulableAndUnresolvable
			if tc.running != nil {
				want = framework.Unschedulable
			}
			if len(tc.want) > 0 && s.Code() != want {
				t.Errorf("code %v, want %v", s.Code(), want)
			}
		})
	}
	// Too many pods.
	n := node("n", nil, "2", "4Gi")
	n.Status.Allocatable[corev1.ResourcePods] = resource.MustParse("1")
	if s := filter(t, NodeResourcesFit{}, pod("", ""), framework.NewNodeInfo(n, pod("", ""))); s.Message() != "Too many pods" {
		t.Errorf("full node: %q", s.Message())
	}
}

func TestLeastAllocatedAndBalanced(t *testing.T) {
	p := pod("1", "2Gi")
	empty := framework.NewNodeInfo(node("empty", nil, "4", "8Gi"))
	busy := framework.NewNodeInfo(node("busy", nil, "4", "8Gi"), pod("2", "4Gi"))
	se, _ := NodeResourcesFit{}.Score(context.Background(), framework.NewCycleState(), p, empty)
	sb, _ := NodeResourcesFit{}.Score(context.Background(), framework.NewCycleState(), p, busy)
	// empty: cpu (4-1)/4=75, mem (8-2)/8=75 -> 75; busy: (4-3)/4=25 -> 25.
	if se != 75 || sb != 25 {
		t.Errorf("LeastAllocated: empty %d busy %d, want 75 25", se, sb)
	}
	// Balanced: cpu 1/4 = 0.25, memory 6/8 = 0.75 -> std 0.25 -> 75.
	skewed := framework.NewNodeInfo(node("skewed", nil, "4", "8Gi"), pod("", "4Gi"))
	if s, _ := (NodeResourcesBalancedAllocation{}).Score(context.Background(), framework.NewCycleState(), p, skewed); s != 75 {
		t.Errorf("BalancedAllocation: %d, want 75", s)
	}
	if s := (NodeResourcesBalancedAllocation{}).PreScore(context.Background(), nil, pod("", ""), nil); !s.IsSkip() {
		t.Errorf("BalancedAllocation skips pods without requests, got %v", s.Code())
	}
}

func TestNodeUnschedulableNodeNameNodePorts(t *testing.T) {
	cordoned := node("n1", nil, "1", "1Gi")
	cordoned.Spec.Unschedulable = true
	p := pod("", "")
	if s := filter(t, NodeUnschedulable{}, p, framework.NewNodeInfo(cordoned)); s.Message() != "node(s) were unschedulable" || s.Code() != framework.UnschedulableAndUnresolvable {
		t.Errorf("cordoned: %v %q", s.Code(), s.Message())
	}
	p.Spec.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: "Exists", Effect: "NoSchedule"}}
	if s := filter(t, NodeUnschedulable{}, p, framework.NewNodeInfo(cordoned)); !s.IsSuccess() {
		t.Errorf("tolerating pod: %q", s.Message())
	}

	p = pod("", "")
	p.Spec.NodeName = "n2"
	if s := filter(t, NodeName{}, p, framework.NewNodeInfo(cordoned)); s.Message() != "node(s) didn't match the requested node name" {
		t.Errorf("NodeName: %q", s.Message())
	}

	withPort := func(ip string, port int32) *corev1.Pod {
		q := pod("", "")
		q.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: port, HostIP: ip}}
		return q
	}
	n := framework.NewNodeInfo(node("n", nil, "1", "1Gi"), withPort("", 8080))
	for _, tc := range []struct {
		pod  *corev1.Pod
		fits bool
	}{{withPort("", 8080), false}, {withPort("10.0.0.1", 8080), false}, {withPort("", 8081), true}, {pod("", ""), true}} {
		s := filter(t, NodePorts{}, tc.pod, n)
		if s.IsSuccess() != tc.fits || (!tc.fits && s.Message() != "node(s) didn't have free ports for the requested pod ports") {
			t.Errorf("port %v: fits=%v %q", tc.pod.Spec.Containers[0].Ports, s.IsSuccess(), s.Message())
		}
	}
}

// TestFitErrorMessage: the FailedScheduling text, upstream's format.
func TestFitErrorMessage(t *testing.T) {
	pl, weights := Default(nil)
	fw, err := framework.New(pl, weights)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pl {
		if h, ok := p.(interface{ SetFramework(*framework.Framework) }); ok {
			h.SetFramework(fw)
		}
	}
	cp := corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}
	nodes := []*framework.NodeInfo{
		framework.NewNodeInfo(node("cp", nil, "4", "8Gi", cp)),
		framework.NewNodeInfo(node("w1", nil, "4", "8Gi"), pod("2", "")),
		framework.NewNodeInfo(node("w2", nil, "4", "8Gi"), pod("2", "")),
	}
	p := pod("3", "") // fits an empty worker; the running pods have the same priority
	state := framework.NewCycleState()
	fw.RunPreFilterPlugins(context.Background(), state, p, nodes)
	d := framework.Diagnosis{NodeToStatus: framework.NodeToStatus{}}
	for _, n := range nodes {
		d.NodeToStatus[n.Name()] = fw.RunFilterPlugins(context.Background(), state, p, n)
	}
	_, st := fw.RunPostFilterPlugins(context.Background(), state, p, nodes, d.NodeToStatus)
	d.PostFilterMsg = st.Message()
	got := (&framework.FitError{Pod: p, NumAllNodes: 3, Diagnosis: d}).Error()
	// Upstream 1.35's text, as recorded from a real cluster: the taint is
	// not named, DynamicResources' PostFilter speaks first, and the
	// preemption message is itself a FitError message.
	want := "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. " +
		"no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
	if got != want {
		t.Errorf("FitError:\n got %q\nwant %q", got, want)
	}
}

func TestSchedulingGatesPreEnqueue(t *testing.T) {
	pod := &corev1.Pod{}
	if s := (SchedulingGates{}).PreEnqueue(t.Context(), pod); !s.IsSuccess() {
		t.Errorf("no gates: %v", s)
	}
	pod.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}, {Name: "example.com/team"}}
	s := (SchedulingGates{}).PreEnqueue(t.Context(), pod)
	if s.Code() != framework.UnschedulableAndUnresolvable || s.Message() != "waiting for scheduling gates: [example.com/quota example.com/team]" {
		t.Errorf("gated: %v %q", s.Code(), s.Message())
	}
}
