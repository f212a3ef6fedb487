package plugins

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// Builders in the spirit of upstream's st.MakePod()/st.MakeNode().

// tnode is a node with labels given as "k=v" ("k" alone: empty value).
func tnode(name string, labels ...string) *corev1.Node {
	return node(name, kv(labels), "4", "8Gi")
}

func kv(pairs []string) map[string]string {
	m := map[string]string{}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return m
}

// tpod is a pod in namespace "default" bound to nodeName ("" for the
// pod being scheduled), with labels "k=v".
func tpod(name, nodeName string, labels ...string) *corev1.Pod {
	p := pod("", "")
	p.Name, p.UID, p.Labels = name, "uid-"+name, kv(labels)
	p.Spec.NodeName = nodeName
	return p
}

// exists is upstream's fooSelector/barSelector: "the label key exists".
func exists(key string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOpExists}}}
}

func spread(p *corev1.Pod, maxSkew int32, key string, action corev1.UnsatisfiableConstraintAction, sel *metav1.LabelSelector) *corev1.Pod {
	p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints,
		corev1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: action, LabelSelector: sel})
	return p
}

// nodeInfos places the pods on their nodes (pods on other nodes are left
// out).
func nodeInfos(nodes []*corev1.Node, pods []*corev1.Pod) []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, n := range nodes {
		ni := framework.NewNodeInfo(n)
		for _, p := range pods {
			if p.Spec.NodeName == n.Name {
				ni.AddPod(p)
			}
		}
		out = append(out, ni)
	}
	return out
}

// filterAll runs PreFilter over every node, then Filter on each; the
// result is "name:ok" or "name:<code>:<reason>" per node.
func filterAll(t *testing.T, pl interface {
	framework.PreFilterPlugin
	framework.FilterPlugin
}, p *corev1.Pod, nis []*framework.NodeInfo) string {
	t.Helper()
	state := framework.NewCycleState()
	if s := pl.PreFilter(context.Background(), state, p, nis); !s.IsSuccess() {
		if s.IsSkip() {
			return "skip"
		}
		return "prefilter:" + s.Code().String() + ":" + s.Message()
	}
	var out []string
	for _, n := range nis {
		s := pl.Filter(context.Background(), state, p, n)
		if s.IsSuccess() {
			out = append(out, n.Name()+":ok")
		} else {
			out = append(out, fmt.Sprintf("%s:%v:%s", n.Name(), s.Code(), s.Message()))
		}
	}
	return strings.Join(out, " ")
}

// scoreAll runs PreFilter on every node, then PreScore, Score and
// NormalizeScore on the candidates; "name=score ...", or "skip".
func scoreAll(t *testing.T, pl interface {
	framework.PreScorePlugin
	framework.ScorePlugin
	framework.ScoreNormalizer
}, p *corev1.Pod, candidates, all []*framework.NodeInfo) string {
	t.Helper()
	state := framework.NewCycleState()
	framework.SetAllNodes(state, all) // as the scheduler does at the start of a cycle
	if pf, ok := pl.(framework.PreFilterPlugin); ok {
		pf.PreFilter(context.Background(), state, p, all)
	}
	if s := pl.PreScore(context.Background(), state, p, candidates); !s.IsSuccess() {
		if s.IsSkip() {
			return "skip"
		}
		t.Fatalf("PreScore: %v", s.AsError())
	}
	scores := make([]framework.NodeScore, len(candidates))
	for i, n := range candidates {
		sc, s := pl.Score(context.Background(), state, p, n)
		if !s.IsSuccess() {
			t.Fatalf("Score %s: %v", n.Name(), s.AsError())
		}
		scores[i] = framework.NodeScore{Name: n.Name(), Score: sc}
	}
	if s := pl.NormalizeScore(context.Background(), state, p, scores); !s.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", s.AsError())
	}
	var out []string
	for _, s := range scores {
		out = append(out, fmt.Sprintf("%s=%d", s.Name, s.Score))
	}
	return strings.Join(out, " ")
}

// repeat makes n pods named prefix1..prefixN on nodeName.
func repeat(n int, prefix, nodeName string, labels ...string) []*corev1.Pod {
	var out []*corev1.Pod
	for i := 1; i <= n; i++ {
		out = append(out, tpod(fmt.Sprintf("%s%d", prefix, i), nodeName, labels...))
	}
	return out
}

func concat(lists ...[]*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

const (
	notMatch     = "Unschedulable:node(s) didn't match pod topology spread constraints"
	missingLabel = "UnschedulableAndUnresolvable:node(s) didn't match pod topology spread constraints (missing required label)"
)

// Cases after upstream's filtering_test.go (TestSingleConstraint,
// TestMultipleConstraints).
func TestPodTopologySpreadFilter(t *testing.T) {
	zoned := []*corev1.Node{
		tnode("node-a", "zone=zone1", "node=node-a"), tnode("node-b", "zone=zone1", "node=node-b"),
		tnode("node-x", "zone=zone2", "node=node-x"), tnode("node-y", "zone=zone2", "node=node-y"),
	}
	dns := func(maxSkew int32, key string) *corev1.Pod {
		return spread(tpod("p", "", "foo"), maxSkew, key, corev1.DoNotSchedule, exists("foo"))
	}
	honor, ignore := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	for _, tc := range []struct {
		name  string
		pod   *corev1.Pod
		nodes []*corev1.Node
		pods  []*corev1.Pod
		want  string
	}{
		{"no existing pods", dns(1, "zone"), zoned, nil,
			"node-a:ok node-b:ok node-x:ok node-y:ok"},
		{"no existing pods, incoming pod doesn't match itself", spread(tpod("p", "", "bar"), 1, "zone", corev1.DoNotSchedule, exists("foo")), zoned, nil,
			"node-a:ok node-b:ok node-x:ok node-y:ok"},
		{"existing pods in a different namespace do not count", dns(1, "zone"), zoned,
			func() []*corev1.Pod {
				ps := concat(repeat(2, "a", "node-a", "foo"), repeat(1, "x", "node-x", "foo"))
				ps[0].Namespace, ps[1].Namespace = "ns1", "ns2"
				return ps
			}(),
			"node-a:ok node-b:ok node-x:" + notMatch + " node-y:" + notMatch},
		{"pods spread across zones as 3/3, all nodes fit", dns(1, "zone"), zoned,
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"), repeat(1, "x", "node-x", "foo"), repeat(2, "y", "node-y", "foo")),
			"node-a:ok node-b:ok node-x:ok node-y:ok"},
		{"pods spread across zones as 1/2 due to absence of label 'zone' on node-b", dns(1, "zone"),
			[]*corev1.Node{tnode("node-a", "zone=zone1", "node=node-a"), tnode("node-b", "zon=zone1", "node=node-b"),
				tnode("node-x", "zone=zone2", "node=node-x"), tnode("node-y", "zone=zone2", "node=node-y")},
			concat(repeat(1, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"), repeat(1, "x", "node-x", "foo"), repeat(1, "y", "node-y", "foo")),
			"node-a:ok node-b:" + missingLabel + " node-x:" + notMatch + " node-y:" + notMatch},
		{"pod cannot be scheduled as all nodes don't have label 'rack'", dns(1, "rack"), zoned[:2], nil,
			"node-a:" + missingLabel + " node-b:" + missingLabel},
		{"pods spread across nodes as 2/1/0/3, only node-x fits", dns(1, "node"), zoned,
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"), repeat(3, "y", "node-y", "foo")),
			"node-a:" + notMatch + " node-b:" + notMatch + " node-x:ok node-y:" + notMatch},
		{"pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit", dns(2, "node"), zoned,
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"), repeat(3, "y", "node-y", "foo")),
			"node-a:" + notMatch + " node-b:ok node-x:ok node-y:" + notMatch},
		{"pods spread across nodes as 2/1/0/3, but pod doesn't match itself", spread(tpod("p", "", "bar"), 1, "node", corev1.DoNotSchedule, exists("foo")), zoned,
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"), repeat(3, "y", "node-y", "foo")),
			"node-a:" + notMatch + " node-b:ok node-x:ok node-y:" + notMatch},
		{"terminating pods are not counted", dns(1, "node"), zoned[:2],
			func() []*corev1.Pod {
				ps := repeat(2, "a", "node-a", "foo")
				ts := metav1.Now()
				ps[0].DeletionTimestamp, ps[1].DeletionTimestamp = &ts, &ts
				return ps
			}(),
			"node-a:ok node-b:ok"},
		// minDomains: with fewer domains than minDomains the global minimum is 0.
		{"pods spread across zone as 2/1, maxSkew 2, domains < minDomains: only zone2 fits",
			func() *corev1.Pod {
				p := dns(2, "zone")
				p.Spec.TopologySpreadConstraints[0].MinDomains = ptrTo[int32](3)
				return p
			}(), zoned,
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "x", "node-x", "foo")),
			"node-a:" + notMatch + " node-b:" + notMatch + " node-x:ok node-y:ok"},
		{"the same without minDomains: every node fits", dns(2, "zone"), zoned,
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "x", "node-x", "foo")),
			"node-a:ok node-b:ok node-x:ok node-y:ok"},
		{"domains >= minDomains: the global minimum is the real one",
			func() *corev1.Pod {
				p := dns(1, "zone")
				p.Spec.TopologySpreadConstraints[0].MinDomains = ptrTo[int32](2)
				return p
			}(), zoned,
			concat(repeat(1, "a", "node-a", "foo"), repeat(1, "x", "node-x", "foo")),
			"node-a:ok node-b:ok node-x:ok node-y:ok"},
		// nodeAffinityPolicy: the node outside the pod's nodeSelector makes
		// a third, empty zone only when ignored.
		{"NodeAffinityPolicy honored with nodeSelector",
			func() *corev1.Pod { p := dns(1, "zone"); p.Spec.NodeSelector = map[string]string{"foo": ""}; return p }(),
			[]*corev1.Node{tnode("node-a", "zone=zone1", "foo"), tnode("node-b", "zone=zone2", "foo"), tnode("node-x", "zone=zone3")},
			concat(repeat(1, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo")),
			"node-a:ok node-b:ok node-x:ok"},
		{"NodeAffinityPolicy ignored with nodeSelector",
			func() *corev1.Pod {
				p := dns(1, "zone")
				p.Spec.NodeSelector = map[string]string{"foo": ""}
				p.Spec.TopologySpreadConstraints[0].NodeAffinityPolicy = &ignore
				return p
			}(),
			[]*corev1.Node{tnode("node-a", "zone=zone1", "foo"), tnode("node-b", "zone=zone2", "foo"), tnode("node-x", "zone=zone3")},
			concat(repeat(1, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo")),
			"node-a:" + notMatch + " node-b:" + notMatch + " node-x:ok"},
		{"NodeTaintsPolicy honored: the tainted node's zone does not count",
			func() *corev1.Pod {
				p := dns(1, "zone")
				p.Spec.TopologySpreadConstraints[0].NodeTaintsPolicy = &honor
				return p
			}(),
			[]*corev1.Node{tnode("node-a", "zone=zone1"), tnode("node-b", "zone=zone2"),
				func() *corev1.Node {
					n := tnode("node-x", "zone=zone3")
					n.Spec.Taints = []corev1.Taint{{Key: "foo", Value: "bar", Effect: corev1.TaintEffectNoSchedule}}
					return n
				}()},
			concat(repeat(1, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo")),
			"node-a:ok node-b:ok node-x:ok"},
		{"NodeTaintsPolicy ignored (the default): the tainted node's zone counts",
			dns(1, "zone"),
			[]*corev1.Node{tnode("node-a", "zone=zone1"), tnode("node-b", "zone=zone2"),
				func() *corev1.Node {
					n := tnode("node-x", "zone=zone3")
					n.Spec.Taints = []corev1.Taint{{Key: "foo", Value: "bar", Effect: corev1.TaintEffectNoSchedule}}
					return n
				}()},
			concat(repeat(1, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo")),
			"node-a:" + notMatch + " node-b:" + notMatch + " node-x:ok"},
		// matchLabelKeys: only pods of the same revision count.
		{"matchLabelKeys narrows the selector to the pod's own value",
			func() *corev1.Pod {
				p := spread(tpod("p", "", "foo", "rev=2"), 1, "node", corev1.DoNotSchedule, exists("foo"))
				p.Spec.TopologySpreadConstraints[0].MatchLabelKeys = []string{"rev"}
				return p
			}(), zoned[:2],
			concat(repeat(2, "a", "node-a", "foo", "rev=1")),
			"node-a:ok node-b:ok"},
		{"without matchLabelKeys every revision counts",
			spread(tpod("p", "", "foo", "rev=2"), 1, "node", corev1.DoNotSchedule, exists("foo")), zoned[:2],
			concat(repeat(2, "a", "node-a", "foo", "rev=1")),
			"node-a:" + notMatch + " node-b:ok"},
		// Two constraints: zone and node. Upstream's "two Constraints on
		// zone and node, spreads = [3/3, 2/1/0/3]".
		{"two constraints on zone and node, spreads = [3/3, 2/1/0/3]",
			spread(dns(1, "zone"), 1, "node", corev1.DoNotSchedule, exists("foo")), zoned,
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"), repeat(3, "y", "node-y", "foo")),
			"node-a:" + notMatch + " node-b:" + notMatch + " node-x:ok node-y:" + notMatch},
		{"two constraints on zone and node, spreads = [3/4, 2/1/0/4]",
			spread(dns(1, "zone"), 1, "node", corev1.DoNotSchedule, exists("foo")), zoned,
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"), repeat(4, "y", "node-y", "foo")),
			"node-a:" + notMatch + " node-b:" + notMatch + " node-x:" + notMatch + " node-y:" + notMatch},
		{"ScheduleAnyway only: no filtering", spread(tpod("p", "", "foo"), 1, "zone", corev1.ScheduleAnyway, exists("foo")), zoned, nil, "skip"},
		{"no constraints: no filtering", tpod("p", "", "foo"), zoned, nil, "skip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := filterAll(t, &PodTopologySpread{}, tc.pod, nodeInfos(tc.nodes, tc.pods)); got != tc.want {
				t.Errorf("got\n  %s\nwant\n  %s", got, tc.want)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestPodTopologySpreadPreemptionExtensions: removing a pod (preemption's
// dry run) lowers the count of its domain, on a clone of the state.
func TestPodTopologySpreadPreemptionExtensions(t *testing.T) {
	pl := &PodTopologySpread{}
	nodes := []*corev1.Node{tnode("node-a", "node=node-a"), tnode("node-b", "node=node-b")}
	pods := repeat(2, "a", "node-a", "foo")
	nis := nodeInfos(nodes, pods)
	p := spread(tpod("p", "", "foo"), 1, "node", corev1.DoNotSchedule, exists("foo"))
	state := framework.NewCycleState()
	if s := pl.PreFilter(context.Background(), state, p, nis); !s.IsSuccess() {
		t.Fatal(s.AsError())
	}
	if s := pl.Filter(context.Background(), state, p, nis[0]); s.IsSuccess() {
		t.Fatalf("node-a with 2 matching pods should not fit")
	}
	trial := state.Clone()
	pl.RemovePod(context.Background(), trial, p, pods[0], nis[0])
	pl.RemovePod(context.Background(), trial, p, pods[1], nis[0])
	if s := pl.Filter(context.Background(), trial, p, nis[0]); !s.IsSuccess() {
		t.Errorf("after removing both pods node-a should fit: %s", s.Message())
	}
	if s := pl.Filter(context.Background(), state, p, nis[0]); s.IsSuccess() {
		t.Errorf("the original state changed with the clone")
	}
	pl.AddPod(context.Background(), trial, p, tpod("n", "node-b", "foo"), nis[1])
	if s := pl.Filter(context.Background(), trial, p, nis[1]); s.IsSuccess() {
		t.Errorf("after adding a pod to node-b (1 vs 0), node-b should not fit")
	}
}

// Cases and numbers from upstream's scoring_test.go
// (TestPodTopologySpreadScore).
func TestPodTopologySpreadScore(t *testing.T) {
	host := func(name string, labels ...string) *corev1.Node {
		return tnode(name, append([]string{corev1.LabelHostname + "=" + name}, labels...)...)
	}
	soft := func(p *corev1.Pod, maxSkew int32, key string, sel *metav1.LabelSelector) *corev1.Pod {
		return spread(p, maxSkew, key, corev1.ScheduleAnyway, sel)
	}
	onHost := func(maxSkew int32) *corev1.Pod {
		return soft(tpod("p", "", "foo"), maxSkew, corev1.LabelHostname, exists("foo"))
	}
	abcd := []*corev1.Node{host("node-a"), host("node-b"), host("node-c"), host("node-d")}
	p2103 := concat(repeat(2, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"), repeat(3, "d", "node-d", "foo"))
	p4321 := concat(repeat(4, "a", "node-a", "foo"), repeat(3, "b", "node-b", "foo"), repeat(2, "c", "node-c", "foo"), repeat(1, "d", "node-d", "foo"))
	p4213 := concat(repeat(4, "a", "node-a", "foo"), repeat(2, "b", "node-b", "foo"), repeat(1, "x", "node-x", "foo"), repeat(3, "y", "node-y", "foo"))
	zone := func(name, z string) *corev1.Node { return host(name, "zone="+z) }
	for _, tc := range []struct {
		name               string
		pod                *corev1.Pod
		candidates, failed []*corev1.Node
		pods               []*corev1.Pod
		want               string
	}{
		{"one constraint on node, no existing pods", onHost(1), abcd[:2], nil, nil, "node-a=100 node-b=100"},
		{"one constraint on node, only one node is candidate", onHost(1), abcd[:1], abcd[1:2],
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo")), "node-a=100"},
		{"one constraint on node, all nodes have the same number of matching pods", onHost(1), abcd[:2], nil,
			concat(repeat(1, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo")), "node-a=100 node-b=100"},
		{"one constraint on node, all 4 nodes are candidates", onHost(1), abcd, nil, p2103,
			"node-a=20 node-b=60 node-c=100 node-d=0"},
		{"one constraint on node, null selector", soft(tpod("p", "", "foo"), 1, corev1.LabelHostname, nil), abcd, nil, p2103,
			"node-a=100 node-b=100 node-c=100 node-d=100"},
		{"one constraint on node, all 4 nodes are candidates, maxSkew=2", onHost(2), abcd, nil, p2103,
			"node-a=33 node-b=66 node-c=100 node-d=16"},
		{"one constraint on node, all 4 nodes are candidates, maxSkew=3", onHost(3), abcd, nil, p4321,
			"node-a=44 node-b=66 node-c=77 node-d=100"},
		{"one constraint on node, 3 out of 4 nodes are candidates", onHost(1),
			[]*corev1.Node{host("node-a"), host("node-b"), host("node-x")}, []*corev1.Node{host("node-y")}, p4213,
			"node-a=33 node-b=83 node-x=100"},
		{"one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key", onHost(1),
			[]*corev1.Node{host("node-a"), tnode("node-b", "n=node-b"), host("node-x")}, []*corev1.Node{host("node-y")}, p4213,
			"node-a=16 node-b=0 node-x=100"},
		{"one constraint on zone, 3 out of 4 nodes are candidates", soft(tpod("p", "", "foo"), 1, "zone", exists("foo")),
			[]*corev1.Node{zone("node-a", "zone1"), zone("node-b", "zone1"), zone("node-x", "zone2")}, []*corev1.Node{zone("node-y", "zone2")}, p4213,
			"node-a=75 node-b=75 node-x=100"},
		{"two Constraints on zone and node, 2 out of 4 nodes are candidates",
			soft(soft(tpod("p", "", "foo"), 1, "zone", exists("foo")), 1, corev1.LabelHostname, exists("foo")),
			[]*corev1.Node{zone("node-a", "zone1"), zone("node-x", "zone2")}, []*corev1.Node{zone("node-b", "zone1"), zone("node-y", "zone2")},
			concat(repeat(2, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"), repeat(2, "x", "node-x", "foo"), repeat(4, "y", "node-y", "foo")),
			"node-a=100 node-x=63"},
		{"two Constraints on zone and node, with different labelSelectors",
			soft(soft(tpod("p", "", "foo", "bar"), 1, "zone", exists("foo")), 1, corev1.LabelHostname, exists("bar")),
			[]*corev1.Node{zone("node-a", "zone1"), zone("node-b", "zone1"), zone("node-x", "zone2"), zone("node-y", "zone2")}, nil,
			[]*corev1.Pod{tpod("p-a1", "node-a", "foo"), tpod("p-b1", "node-b", "foo", "bar"), tpod("p-y1", "node-y", "foo"), tpod("p-y2", "node-y", "bar")},
			"node-a=60 node-b=20 node-x=100 node-y=60"},
		{"two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
			soft(soft(tpod("p", "", "foo", "bar"), 1, "zone", exists("foo")), 1, corev1.LabelHostname, exists("bar")),
			[]*corev1.Node{zone("node-a", "zone1"), zone("node-b", "zone1"), zone("node-x", "zone2")}, []*corev1.Node{zone("node-y", "zone2")},
			[]*corev1.Pod{tpod("p-a1", "node-a", "foo"), tpod("p-b1", "node-b", "foo", "bar"), tpod("p-y1", "node-y", "foo"), tpod("p-y2", "node-y", "bar")},
			"node-a=50 node-b=25 node-x=100"},
		{"existing pods in a different namespace do not count", onHost(1), abcd[:2], nil,
			func() []*corev1.Pod {
				ps := concat(repeat(2, "a", "node-a", "foo"), repeat(2, "b", "node-b", "foo"))
				ps[0].Namespace = "ns1"
				return ps
			}(), "node-a=100 node-b=33"},
		{"terminating Pods should be excluded", onHost(1), abcd[:2], nil,
			func() []*corev1.Pod {
				ps := concat(repeat(1, "a", "node-a", "foo"), repeat(1, "b", "node-b", "foo"))
				ts := metav1.Now()
				ps[0].DeletionTimestamp = &ts
				return ps
			}(), "node-a=100 node-b=0"},
		{"DoNotSchedule only: no scoring", spread(tpod("p", "", "foo"), 1, "zone", corev1.DoNotSchedule, exists("foo")), abcd, nil, nil, "skip"},
		{"no constraints, no system defaults (no Listers)", tpod("p", "", "foo"), abcd, nil, p2103, "skip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := nodeInfos(append(append([]*corev1.Node(nil), tc.candidates...), tc.failed...), tc.pods)
			got := scoreAll(t, &PodTopologySpread{}, tc.pod, all[:len(tc.candidates)], all)
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestPodTopologySpreadSystemDefaults: a pod without constraints is spread
// by the system defaults over the pods of its Services and controller
// (upstream's scoring_test.go cases "system defaulting, nodes don't have
// zone, pods match service" and "system default constraints and a
// replicaset"), and not at all when it belongs to no set.
func TestPodTopologySpreadSystemDefaults(t *testing.T) {
	host := func(name string, labels ...string) *corev1.Node {
		return tnode(name, append([]string{corev1.LabelHostname + "=" + name}, labels...)...)
	}
	abcd := []*corev1.Node{host("node-a"), host("node-b"), host("node-c"), host("node-d")}
	p4321 := concat(repeat(4, "a", "node-a", "foo"), repeat(3, "b", "node-b", "foo"), repeat(2, "c", "node-c", "foo"), repeat(1, "d", "node-d", "foo"))
	yes := true
	owned := func(p *corev1.Pod, apiVersion, kind, name string) *corev1.Pod {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, Controller: &yes}}
		return p
	}
	fooSet := map[string]string{"foo": ""}
	listers := func(services ...*corev1.Service) *Listers {
		return &Listers{
			Services: func(ns string) []*corev1.Service { return services },
			ReplicationController: func(ns, name string) (*corev1.ReplicationController, bool) {
				return &corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Selector: fooSet}}, name == "rc1"
			},
			ReplicaSet: func(ns, name string) (*appsv1.ReplicaSet, bool) {
				return &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Selector: exists("foo")}}, name == "rs1"
			},
			StatefulSet: func(ns, name string) (*appsv1.StatefulSet, bool) { return nil, false },
		}
	}
	service := &corev1.Service{Spec: corev1.ServiceSpec{Selector: fooSet}}
	// Nodes without a zone label are one zone, "": the zone rule weighs
	// the same on every node and the hostname rule (maxSkew 3) decides,
	// as if it were the only one.
	const byHost = "node-a=44 node-b=66 node-c=77 node-d=100"
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		listers *Listers
		nodes   []*corev1.Node
		want    string
	}{
		{"pods match a service, nodes without zone", tpod("p", "", "foo"), listers(service), abcd, byHost},
		{"owned by a ReplicaSet", owned(tpod("p", "", "foo"), "apps/v1", "ReplicaSet", "rs1"), listers(), abcd, byHost},
		{"owned by a ReplicationController", owned(tpod("p", "", "foo"), "v1", "ReplicationController", "rc1"), listers(), abcd, byHost},
		{"two zones: the zone rule counts too", owned(tpod("p", "", "foo"), "apps/v1", "ReplicaSet", "rs1"), listers(),
			[]*corev1.Node{host("node-a", corev1.LabelTopologyZone+"=z1"), host("node-b", corev1.LabelTopologyZone+"=z1"),
				host("node-c", corev1.LabelTopologyZone+"=z2"), host("node-d", corev1.LabelTopologyZone+"=z2")},
			"node-a=52 node-b=60 node-c=91 node-d=100"}, // by hand: raw 23, 21, 14, 12
		{"its owner is gone: no set, no spreading", owned(tpod("p", "", "foo"), "apps/v1", "ReplicaSet", "gone"), listers(), abcd, "skip"},
		{"a service with a nil selector selects nothing", tpod("p", "", "foo"), listers(&corev1.Service{}), abcd, "skip"},
		{"a service that does not select it", tpod("p", "", "bar"), listers(service), abcd, "skip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := nodeInfos(tc.nodes, p4321)
			if got := scoreAll(t, &PodTopologySpread{Listers: tc.listers}, tc.pod, all, all); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
