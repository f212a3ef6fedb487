package plugins

import (
	"context"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// in is upstream's "key In (values)" selector.
func in(key string, values ...string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}}}
}

func term(sel *metav1.LabelSelector, topologyKey string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{LabelSelector: sel, TopologyKey: topologyKey}
}

// required sets required affinity and anti-affinity terms on p.
func required(p *corev1.Pod, affinity, anti []corev1.PodAffinityTerm) *corev1.Pod {
	p.Spec.Affinity = &corev1.Affinity{}
	if affinity != nil {
		p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: affinity}
	}
	if anti != nil {
		p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: anti}
	}
	return p
}

func inNS(p *corev1.Pod, ns string) *corev1.Pod { p.Namespace = ns; return p }

const (
	affinityNotMatch     = "UnschedulableAndUnresolvable:node(s) didn't match pod affinity rules"
	antiAffinityNotMatch = "Unschedulable:node(s) didn't match pod anti-affinity rules"
	existingAntiNotMatch = "Unschedulable:node(s) didn't satisfy existing pods anti-affinity rules"
)

// Cases after upstream's filtering_test.go (TestRequiredAffinitySingleNode,
// TestRequiredAffinityMultipleNodes).
func TestInterPodAffinityFilter(t *testing.T) {
	node1 := []*corev1.Node{tnode("node1", "region=r1", "zone=z11", "kubernetes.io/hostname=node1")}
	security := func(v ...string) *metav1.LabelSelector { return in("service", v...) }
	teams := map[string]map[string]string{"subteam1.team1": {"team": "team1"}, "subteam2.team2": {"team": "team2"}}
	for _, tc := range []struct {
		name   string
		pod    *corev1.Pod
		nodes  []*corev1.Node
		pods   []*corev1.Pod
		nsFunc func(string) map[string]string
		want   string
	}{
		{"a pod without required pod affinity fits a node with no pods: Skip", tpod("p", ""), node1, nil, nil, "skip"},
		{"a pod without affinity, running pods without anti-affinity: Skip", tpod("p", ""), node1,
			[]*corev1.Pod{tpod("e", "node1", "service=securityscan")}, nil, "skip"},
		{"satisfies required PodAffinity (In) with the existing pod",
			required(tpod("p", ""), []corev1.PodAffinityTerm{term(security("securityscan", "value2"), "region")}, nil), node1,
			[]*corev1.Pod{tpod("e", "node1", "service=securityscan")}, nil, "node1:ok"},
		{"satisfies required PodAffinity (NotIn, Exists)",
			required(tpod("p", ""), []corev1.PodAffinityTerm{term(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "service", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"securityscan3", "value3"}},
				{Key: "service", Operator: metav1.LabelSelectorOpExists}}}, "region")}, nil), node1,
			[]*corev1.Pod{tpod("e", "node1", "service=securityscan")}, nil, "node1:ok"},
		{"does not satisfy PodAffinity: the matching pod is in another namespace",
			required(tpod("p", ""), []corev1.PodAffinityTerm{term(security("securityscan"), "region")}, nil), node1,
			[]*corev1.Pod{inNS(tpod("e", "node1", "service=securityscan"), "ns")}, nil, "node1:" + affinityNotMatch},
		{"does not satisfy PodAffinity: no pod matches the labelSelector",
			required(tpod("p", ""), []corev1.PodAffinityTerm{term(security("antivirusscan"), "region")}, nil), node1,
			[]*corev1.Pod{tpod("e", "node1", "service=securityscan")}, nil, "node1:" + affinityNotMatch},
		{"a nil labelSelector selects no pod",
			required(tpod("p", "", "service=securityscan"), []corev1.PodAffinityTerm{term(nil, "region")}, nil), node1,
			[]*corev1.Pod{tpod("e", "node1", "service=securityscan")}, nil, "node1:" + affinityNotMatch},
		{"satisfies PodAntiAffinity: the existing pod does not match",
			required(tpod("p", ""), nil, []corev1.PodAffinityTerm{term(security("antivirusscan"), "zone")}), node1,
			[]*corev1.Pod{tpod("e", "node1", "service=securityscan")}, nil, "node1:ok"},
		{"satisfies PodAffinity but not PodAntiAffinity",
			required(tpod("p", ""), []corev1.PodAffinityTerm{term(security("securityscan"), "region")},
				[]corev1.PodAffinityTerm{term(security("securityscan"), "zone")}), node1,
			[]*corev1.Pod{tpod("e", "node1", "service=securityscan")}, nil, "node1:" + antiAffinityNotMatch},
		{"satisfies its own PodAffinity and PodAntiAffinity but not the existing pod's anti-affinity (symmetry)",
			required(tpod("p", "", "service=securityscan"), []corev1.PodAffinityTerm{term(security("securityscan"), "region")},
				[]corev1.PodAffinityTerm{term(security("antivirusscan"), "zone")}), node1,
			[]*corev1.Pod{required(tpod("e", "node1", "service=securityscan"), nil, []corev1.PodAffinityTerm{term(security("securityscan"), "zone")})},
			nil, "node1:" + existingAntiNotMatch},
		{"an existing pod's anti-affinity for another namespace does not apply",
			tpod("p", "", "service=securityscan"), node1,
			[]*corev1.Pod{inNS(required(tpod("e", "node1"), nil, []corev1.PodAffinityTerm{term(security("securityscan"), "zone")}), "other")},
			nil, "skip"}, // nothing counted: Filter is skipped, every node fits
		{"an existing pod's anti-affinity with a topologyKey the node lacks does not apply",
			tpod("p", "", "service=securityscan"), node1,
			[]*corev1.Pod{required(tpod("e", "node1"), nil, []corev1.PodAffinityTerm{term(security("securityscan"), "rack")})},
			nil, "skip"},
		{"the first pod of a group with affinity to itself may land anywhere",
			required(tpod("p", "", "app=db"), []corev1.PodAffinityTerm{term(in("app", "db"), "region")}, nil),
			[]*corev1.Node{node1[0], tnode("node2", "region=r2")}, nil, nil, "node1:ok node2:ok"},
		{"... but not where the topology label is missing",
			required(tpod("p", "", "app=db"), []corev1.PodAffinityTerm{term(in("app", "db"), "region")}, nil),
			[]*corev1.Node{node1[0], tnode("node2", "zone=z2")}, nil, nil, "node1:ok node2:" + affinityNotMatch},
		{"a pod whose affinity matches only itself does not get the exception when another pod matches",
			required(tpod("p", "", "app=db"), []corev1.PodAffinityTerm{term(in("app", "db"), "region")}, nil),
			[]*corev1.Node{node1[0], tnode("node2", "region=r2")},
			[]*corev1.Pod{tpod("e", "node2", "app=db")}, nil, "node1:" + affinityNotMatch + " node2:ok"},
		{"a pod whose affinity does not match itself gets no exception",
			required(tpod("p", "", "app=web"), []corev1.PodAffinityTerm{term(in("app", "db"), "region")}, nil),
			[]*corev1.Node{node1[0], tnode("node2", "region=r2")}, nil, nil, "node1:" + affinityNotMatch + " node2:" + affinityNotMatch},
		{"anti-affinity on hostname: only the node with the matching pod is rejected",
			required(tpod("p", "", "app=web"), nil, []corev1.PodAffinityTerm{term(in("app", "web"), corev1.LabelHostname)}),
			[]*corev1.Node{tnode("node-a", "kubernetes.io/hostname=node-a"), tnode("node-b", "kubernetes.io/hostname=node-b")},
			[]*corev1.Pod{tpod("e", "node-a", "app=web")}, nil, "node-a:" + antiAffinityNotMatch + " node-b:ok"},
		{"anti-affinity on zone rejects every node of the zone",
			required(tpod("p", "", "app=web"), nil, []corev1.PodAffinityTerm{term(in("app", "web"), "zone")}),
			[]*corev1.Node{tnode("node-a", "zone=z1"), tnode("node-b", "zone=z1"), tnode("node-c", "zone=z2")},
			[]*corev1.Pod{tpod("e", "node-a", "app=web")}, nil, "node-a:" + antiAffinityNotMatch + " node-b:" + antiAffinityNotMatch + " node-c:ok"},
		{"affinity in another zone: only that zone",
			required(tpod("p", ""), []corev1.PodAffinityTerm{term(in("app", "db"), "zone")}, nil),
			[]*corev1.Node{tnode("node-a", "zone=z1"), tnode("node-b", "zone=z2"), tnode("node-c", "zone=z2")},
			[]*corev1.Pod{tpod("e", "node-c", "app=db")}, nil, "node-a:" + affinityNotMatch + " node-b:ok node-c:ok"},
		{"terms are ANDed: a domain needs a pod matching all of them",
			required(tpod("p", ""), []corev1.PodAffinityTerm{term(in("app", "db"), "zone"), term(in("tier", "cache"), "zone")}, nil),
			[]*corev1.Node{tnode("node-a", "zone=z1"), tnode("node-b", "zone=z2")},
			[]*corev1.Pod{tpod("e1", "node-a", "app=db"), tpod("e2", "node-a", "tier=cache"), tpod("e3", "node-b", "app=db", "tier=cache")},
			nil, "node-a:" + affinityNotMatch + " node-b:ok"},
		{"namespaceSelector selects the namespace by its labels",
			inNS(required(tpod("p", ""), []corev1.PodAffinityTerm{{LabelSelector: in("app", "db"), TopologyKey: "region",
				NamespaceSelector: in("team", "team1")}}, nil), "subteam2.team2"), node1,
			[]*corev1.Pod{inNS(tpod("e", "node1", "app=db"), "subteam1.team1")},
			func(ns string) map[string]string { return teams[ns] }, "node1:ok"},
		{"namespaceSelector without namespace labels (no lookup) selects nothing",
			inNS(required(tpod("p", ""), []corev1.PodAffinityTerm{{LabelSelector: in("app", "db"), TopologyKey: "region",
				NamespaceSelector: in("team", "team1")}}, nil), "subteam2.team2"), node1,
			[]*corev1.Pod{inNS(tpod("e", "node1", "app=db"), "subteam1.team1")}, nil, "node1:" + affinityNotMatch},
		{"an empty namespaceSelector selects every namespace",
			required(tpod("p", ""), []corev1.PodAffinityTerm{{LabelSelector: in("app", "db"), TopologyKey: "region",
				NamespaceSelector: &metav1.LabelSelector{}}}, nil), node1,
			[]*corev1.Pod{inNS(tpod("e", "node1", "app=db"), "elsewhere")}, nil, "node1:ok"},
		{"namespaces lists the namespaces",
			required(tpod("p", ""), []corev1.PodAffinityTerm{{LabelSelector: in("app", "db"), TopologyKey: "region",
				Namespaces: []string{"a", "b"}}}, nil), node1,
			[]*corev1.Pod{inNS(tpod("e", "node1", "app=db"), "b")}, nil, "node1:ok"},
		{"an existing pod's anti-affinity namespaceSelector matches the incoming pod's namespace labels",
			inNS(tpod("p", "", "app=web"), "subteam1.team1"), node1,
			[]*corev1.Pod{inNS(required(tpod("e", "node1"), nil, []corev1.PodAffinityTerm{{LabelSelector: in("app", "web"), TopologyKey: "region",
				NamespaceSelector: in("team", "team1")}}), "subteam2.team2")},
			func(ns string) map[string]string { return teams[ns] }, "node1:" + existingAntiNotMatch},
		{"matchLabelKeys: anti-affinity only against pods of the same revision",
			func() *corev1.Pod {
				tm := term(in("app", "web"), corev1.LabelHostname)
				tm.MatchLabelKeys = []string{"rev"}
				return required(tpod("p", "", "app=web", "rev=2"), nil, []corev1.PodAffinityTerm{tm})
			}(),
			[]*corev1.Node{tnode("node-a", "kubernetes.io/hostname=node-a"), tnode("node-b", "kubernetes.io/hostname=node-b")},
			[]*corev1.Pod{tpod("e1", "node-a", "app=web", "rev=1"), tpod("e2", "node-b", "app=web", "rev=2")},
			nil, "node-a:ok node-b:" + antiAffinityNotMatch},
		{"mismatchLabelKeys: anti-affinity against other tenants' pods",
			func() *corev1.Pod {
				tm := term(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tenant", Operator: metav1.LabelSelectorOpExists}}}, corev1.LabelHostname)
				tm.MismatchLabelKeys = []string{"tenant"}
				return required(tpod("p", "", "tenant=a"), nil, []corev1.PodAffinityTerm{tm})
			}(),
			[]*corev1.Node{tnode("node-a", "kubernetes.io/hostname=node-a"), tnode("node-b", "kubernetes.io/hostname=node-b")},
			[]*corev1.Pod{tpod("e1", "node-a", "tenant=a"), tpod("e2", "node-b", "tenant=b")},
			nil, "node-a:ok node-b:" + antiAffinityNotMatch},
		{"an invalid selector makes the pod unschedulable",
			required(tpod("p", ""), []corev1.PodAffinityTerm{term(in("app", "{{.bad-value.}}"), "region")}, nil), node1, nil, nil,
			"prefilter:UnschedulableAndUnresolvable:parsing pod: requiredAffinityTerms: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := filterAll(t, &InterPodAffinity{HardPodAffinityWeight: 1, NamespaceLabels: tc.nsFunc}, tc.pod, nodeInfos(tc.nodes, tc.pods))
			// A PreFilter error is compared by its beginning (the
			// selector's own message follows).
			if ok := got == tc.want || (strings.HasPrefix(tc.want, "prefilter:") && strings.HasPrefix(got, tc.want)); !ok {
				t.Errorf("got\n  %s\nwant\n  %s", got, tc.want)
			}
		})
	}
}

// TestInterPodAffinityPreemptionExtensions: removing the pod whose
// anti-affinity rejects the incoming pod, or the pod its anti-affinity
// selects, makes the node fit, on a clone of the state only.
func TestInterPodAffinityPreemptionExtensions(t *testing.T) {
	pl := &InterPodAffinity{HardPodAffinityWeight: 1}
	nodes := []*corev1.Node{tnode("node-a", "kubernetes.io/hostname=node-a")}
	existing := required(tpod("e", "node-a", "app=web"), nil, []corev1.PodAffinityTerm{term(in("app", "web"), corev1.LabelHostname)})
	nis := nodeInfos(nodes, []*corev1.Pod{existing})
	p := tpod("p", "", "app=web")
	state := framework.NewCycleState()
	if s := pl.PreFilter(context.Background(), state, p, nis); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v %s", s.Code(), s.Message())
	}
	if s := pl.Filter(context.Background(), state, p, nis[0]); s.Message() != "node(s) didn't satisfy existing pods anti-affinity rules" {
		t.Fatalf("before: %q", s.Message())
	}
	trial := state.Clone()
	pl.RemovePod(context.Background(), trial, p, existing, nis[0])
	if s := pl.Filter(context.Background(), trial, p, nis[0]); !s.IsSuccess() {
		t.Errorf("after RemovePod: %q", s.Message())
	}
	if s := pl.Filter(context.Background(), state, p, nis[0]); s.IsSuccess() {
		t.Errorf("RemovePod on the clone changed the original state")
	}
	pl.AddPod(context.Background(), trial, p, existing, nis[0])
	if s := pl.Filter(context.Background(), trial, p, nis[0]); s.IsSuccess() {
		t.Errorf("after AddPod the node should be rejected again")
	}
}

// Cases and numbers from upstream's scoring_test.go (TestPreferredAffinity).
func TestInterPodAffinityScore(t *testing.T) {
	s1, s2 := "security=S1", "security=S2"
	china, india, az1, az2 := "region=China", "region=India", "az=az1", "az=az2"
	sec := func(v string) *metav1.LabelSelector { return in("security", v) }
	weighted := func(w int32, sel *metav1.LabelSelector, key string) corev1.WeightedPodAffinityTerm {
		return corev1.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: term(sel, key)}
	}
	preferred := func(p *corev1.Pod, affinity, anti []corev1.WeightedPodAffinityTerm) *corev1.Pod {
		p.Spec.Affinity = &corev1.Affinity{}
		if affinity != nil {
			p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: affinity}
		}
		if anti != nil {
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: anti}
		}
		return p
	}
	stayWithS1InRegion := []corev1.WeightedPodAffinityTerm{weighted(5, sec("S1"), "region")}
	stayWithS2InRegion := []corev1.WeightedPodAffinityTerm{weighted(6, sec("S2"), "region")}
	affinity3 := []corev1.WeightedPodAffinityTerm{
		weighted(8, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "security", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"S1"}},
			{Key: "security", Operator: metav1.LabelSelectorOpIn, Values: []string{"S2"}}}}, "region"),
		weighted(2, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "security", Operator: metav1.LabelSelectorOpExists},
			{Key: "wrongkey", Operator: metav1.LabelSelectorOpDoesNotExist}}}, "region"),
	}
	hardAffinity := []corev1.PodAffinityTerm{
		term(in("security", "S1", "value2"), "region"),
		term(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "security", Operator: metav1.LabelSelectorOpExists},
			{Key: "wrongkey", Operator: metav1.LabelSelectorOpDoesNotExist}}}, "region"),
	}
	awayFromS1InAz := []corev1.WeightedPodAffinityTerm{weighted(5, sec("S1"), "az")}
	awayFromS2InAz := []corev1.WeightedPodAffinityTerm{weighted(5, sec("S2"), "az")}
	stayS1AwayS2 := func(p *corev1.Pod) *corev1.Pod {
		return preferred(p, []corev1.WeightedPodAffinityTerm{weighted(8, sec("S1"), "region")}, []corev1.WeightedPodAffinityTerm{weighted(5, sec("S2"), "az")})
	}
	nsSelectorTerm := weighted(5, sec("S1"), "region")
	nsSelectorTerm.PodAffinityTerm.Namespaces = []string{"subteam2.team2"}
	nsSelectorTerm.PodAffinityTerm.NamespaceSelector = in("team", "team1")
	teams := func(ns string) map[string]string {
		return map[string]map[string]string{"subteam1.team1": {"team": "team1"}, "subteam2.team1": {"team": "team1"},
			"subteam1.team2": {"team": "team2"}, "subteam2.team2": {"team": "team2"}}[ns]
	}
	n := func(name string, labels ...string) *corev1.Node { return tnode(name, labels...) }
	for _, tc := range []struct {
		name  string
		pod   *corev1.Pod
		pods  []*corev1.Pod
		nodes []*corev1.Node
		want  string
	}{
		{"all nodes are same priority as Affinity is nil", tpod("p", "", s1), nil,
			[]*corev1.Node{n("node1", china), n("node2", india), n("node3", az1)}, "skip"},
		{"Affinity: pod that matches topology key & pods in nodes will get high score",
			preferred(tpod("p", "", s1), stayWithS1InRegion, nil),
			[]*corev1.Pod{tpod("e1", "node1", s1), tpod("e2", "node2", s2), tpod("e3", "node3", s1)},
			[]*corev1.Node{n("node1", china), n("node2", india), n("node3", az1)}, "node1=100 node2=0 node3=0"},
		{"All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
			preferred(tpod("p", ""), stayWithS1InRegion, nil),
			[]*corev1.Pod{tpod("e1", "node1", s1)},
			[]*corev1.Node{n("node1", china), n("node2", china, az1), n("node3", india)}, "node1=100 node2=100 node3=0"},
		{"Affinity: nodes in one region has more matching pods comparing to other region",
			preferred(tpod("p", "", s1), stayWithS2InRegion, nil),
			[]*corev1.Pod{tpod("e1", "node1", s2), tpod("e2", "node1", s2), tpod("e3", "node2", s2), tpod("e4", "node3", s2), tpod("e5", "node4", s2), tpod("e6", "node5", s2)},
			[]*corev1.Node{n("node1", china), n("node2", india), n("node3", china), n("node4", china), n("node5", india)},
			"node1=100 node2=0 node3=100 node4=100 node5=0"},
		{"Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures",
			preferred(tpod("p", "", s1), affinity3, nil),
			[]*corev1.Pod{tpod("e1", "node1", s1), tpod("e2", "node2", s2), tpod("e3", "node3", s1)},
			[]*corev1.Node{n("node1", china), n("node2", india), n("node3", az1)}, "node1=20 node2=100 node3=0"},
		{"Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
			tpod("p", "", s2),
			[]*corev1.Pod{preferred(tpod("e1", "node1", s1), stayWithS1InRegion, nil), preferred(tpod("e2", "node2", s2), stayWithS2InRegion, nil)},
			[]*corev1.Node{n("node1", china), n("node2", india), n("node3", az1)}, "node1=0 node2=100 node3=0"},
		{"Affinity symmetry with namespace selector",
			inNS(tpod("p", "", s1), "subteam1.team1"),
			[]*corev1.Pod{preferred(tpod("e1", "node1", s1), []corev1.WeightedPodAffinityTerm{nsSelectorTerm}, nil), preferred(tpod("e2", "node2", s2), stayWithS2InRegion, nil)},
			[]*corev1.Node{n("node1", china), n("node2", india), n("node3", az1)}, "node1=100 node2=0 node3=0"},
		{"AntiAffinity symmetry with namespace selector",
			inNS(tpod("p", "", s1), "subteam1.team1"),
			[]*corev1.Pod{preferred(tpod("e1", "node1", s1), nil, []corev1.WeightedPodAffinityTerm{nsSelectorTerm}), preferred(tpod("e2", "node2", s2), stayWithS2InRegion, nil)},
			[]*corev1.Node{n("node1", china), n("node2", india), n("node3", az1)}, "node1=0 node2=100 node3=100"},
		{"Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
			tpod("p", "", s1),
			[]*corev1.Pod{required(tpod("e1", "node1", s1), hardAffinity, nil), required(tpod("e2", "node2", s2), hardAffinity, nil)},
			[]*corev1.Node{n("node1", china), n("node2", india), n("node3", az1)}, "node1=100 node2=100 node3=0"},
		{"Anti Affinity: pod that does not match existing pods in node will get high score",
			preferred(tpod("p", "", s1), nil, awayFromS1InAz),
			[]*corev1.Pod{tpod("e1", "node1", s1), tpod("e2", "node2", s2)},
			[]*corev1.Node{n("node1", az1), n("node2", china)}, "node1=0 node2=100"},
		{"Anti Affinity: one node has more matching pods comparing to other node",
			preferred(tpod("p", "", s1), nil, awayFromS1InAz),
			[]*corev1.Pod{tpod("e1", "node1", s1), tpod("e2", "node1", s1), tpod("e3", "node2", s2)},
			[]*corev1.Node{n("node1", az1), n("node2", india)}, "node1=0 node2=100"},
		{"Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
			tpod("p", "", s2),
			[]*corev1.Pod{preferred(tpod("e1", "node1", s1), nil, awayFromS2InAz), preferred(tpod("e2", "node2", s2), nil, awayFromS1InAz)},
			[]*corev1.Node{n("node1", az1), n("node2", az2)}, "node1=0 node2=100"},
		{"Affinity and Anti Affinity: considering both, the pod to schedule and existing pods have the same labels",
			stayS1AwayS2(tpod("p", "", s1)),
			[]*corev1.Pod{tpod("e1", "node1", s1), tpod("e2", "node1", s1), tpod("e3", "node2", s1), tpod("e4", "node3", s1), tpod("e5", "node3", s1), tpod("e6", "node4", s1), tpod("e7", "node5", s1)},
			[]*corev1.Node{n("node1", china, az1), n("node2", india), n("node3", china), n("node4", china), n("node5", india)},
			"node1=100 node2=0 node3=100 node4=100 node5=0"},
		{"Affinity and Anti Affinity and symmetry",
			stayS1AwayS2(tpod("p", "", s1)),
			[]*corev1.Pod{tpod("e1", "node1", s1), tpod("e2", "node2", s2), stayS1AwayS2(tpod("e3", "node3")), preferred(tpod("e4", "node4"), nil, awayFromS1InAz)},
			[]*corev1.Node{n("node1", china), n("node2", az1), n("node3", india), n("node4", az2)}, "node1=100 node2=0 node3=100 node4=0"},
		{"Avoid panic when partial nodes in a topology don't have pods with affinity",
			tpod("p", "", s1),
			[]*corev1.Pod{tpod("e1", "node1", s1), stayS1AwayS2(tpod("e2", "node2"))},
			[]*corev1.Node{n("node1", china), n("node2", china)}, "node1=0 node2=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nis := nodeInfos(tc.nodes, tc.pods)
			got := scoreAll(t, &InterPodAffinity{HardPodAffinityWeight: 1, NamespaceLabels: teams}, tc.pod, nis, nis)
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestNodeInfoPodsWithAffinity: NodeInfo keeps the pods with affinity and
// with required anti-affinity through AddPod, RemovePod and Clone.
func TestNodeInfoPodsWithAffinity(t *testing.T) {
	anti := required(tpod("anti", "n"), nil, []corev1.PodAffinityTerm{term(in("app", "web"), corev1.LabelHostname)})
	aff := required(tpod("aff", "n"), []corev1.PodAffinityTerm{term(in("app", "web"), corev1.LabelHostname)}, nil)
	plain := tpod("plain", "n")
	ni := framework.NewNodeInfo(tnode("n"), anti, aff, plain)
	if len(ni.PodsWithAffinity) != 2 || len(ni.PodsWithRequiredAntiAffinity) != 1 || ni.PodsWithRequiredAntiAffinity[0].Pod != anti {
		t.Fatalf("after AddPod: %d with affinity, %d with required anti-affinity", len(ni.PodsWithAffinity), len(ni.PodsWithRequiredAntiAffinity))
	}
	c := ni.Clone()
	ni.RemovePod(anti)
	if len(ni.PodsWithAffinity) != 1 || len(ni.PodsWithRequiredAntiAffinity) != 0 {
		t.Errorf("after RemovePod: %d with affinity, %d with required anti-affinity", len(ni.PodsWithAffinity), len(ni.PodsWithRequiredAntiAffinity))
	}
	if len(c.PodsWithAffinity) != 2 || len(c.PodsWithRequiredAntiAffinity) != 1 {
		t.Errorf("the clone changed with the original")
	}
	if tn := framework.NewNodeInfo(tnode("n")).Clone(); tn.PodsWithAffinity != nil || tn.ImageSizes != nil {
		t.Errorf("a node without such pods or images should carry nothing")
	}
}
