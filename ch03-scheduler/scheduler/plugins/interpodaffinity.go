package plugins

import (
	"context"
	"fmt"
	"maps"
	"math"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// InterPodAffinity places pods relative to other pods: "in the same
// topology domain as pods like X" (podAffinity) or "not in the same domain
// as pods like X" (podAntiAffinity), where a domain is a value of the
// term's topologyKey node label (kubernetes.io/hostname: one node;
// topology.kubernetes.io/zone: a zone).
//
//   - Filter, for required terms: the incoming pod's affinity and
//     anti-affinity, and the required anti-affinity of the pods already
//     running (a pod that wants no neighbours like the incoming one keeps
//     it away: the symmetric case).
//   - Score, for preferred terms (weights): the incoming pod's, and those
//     of the running pods towards it; running pods' required affinity
//     terms count with HardPodAffinityWeight.
//
// Upstream: plugins/interpodaffinity (plugin.go, filtering.go, scoring.go).
type InterPodAffinity struct {
	// HardPodAffinityWeight: the score weight of a running pod's required
	// affinity term the incoming pod matches (upstream's
	// hardPodAffinityWeight argument, default 1; 0 leaves them out).
	HardPodAffinityWeight int32
	// NamespaceLabels returns a namespace's labels, for terms with a
	// namespaceSelector. This scheduler has no namespace informer: nil
	// means every namespace has no labels, so that namespaceSelector {}
	// still selects every namespace but a selector asking for labels
	// selects none (upstream does the same for a namespace it cannot find).
	NamespaceLabels func(name string) map[string]string
}

const (
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
	ErrReasonAffinityRulesNotMatch             = "node(s) didn't match pod affinity rules"
	ErrReasonAntiAffinityRulesNotMatch         = "node(s) didn't match pod anti-affinity rules"

	ipaPreFilterStateKey = "PreFilterInterPodAffinity"
	ipaPreScoreStateKey  = "PreScoreInterPodAffinity"
	// ipaNoPodsWithAffinityKey: PreFilter saw no pod with affinity on any
	// node (upstream's snapshot keeps that list ready; ours is a slice of
	// nodes, so PreFilter's pass over them notes it for PreScore).
	ipaNoPodsWithAffinityKey = "InterPodAffinityNoPodsWithAffinity"
)

func (*InterPodAffinity) Name() string { return "InterPodAffinity" }

// nsLabels looks namespaces' labels up, each once per cycle.
type nsLabels struct {
	lookup func(string) map[string]string
	mu     sync.Mutex
	seen   map[string]map[string]string
}

func (pl *InterPodAffinity) newNSLabels() *nsLabels {
	return &nsLabels{lookup: pl.NamespaceLabels, seen: map[string]map[string]string{}}
}

func (l *nsLabels) get(ns string) map[string]string {
	if l.lookup == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.seen[ns]
	if !ok {
		v = l.lookup(ns)
		l.seen[ns] = v
	}
	return v
}

// matchesIncoming: an existing pod matches a term of the incoming pod. A
// namespaceSelector with requirements is matched against the labels of the
// existing pod's namespace (upstream first turns it into the list of
// namespaces it selects: the same answer). nil and {} need no lookup.
func (l *nsLabels) matchesIncoming(t *framework.AffinityTerm, existing *corev1.Pod) bool {
	if len(t.NamespaceSelector.Requirements()) > 0 {
		return t.Matches(existing, l.get(existing.Namespace))
	}
	return t.Matches(existing, nil)
}

// topologyPair is one domain: a topology key and one of its values.
type topologyPair struct{ key, value string }

// topologyToMatchedTermCount counts, per domain, matching pods or terms.
type topologyToMatchedTermCount map[topologyPair]int64

func (m topologyToMatchedTermCount) update(node *corev1.Node, tk string, value int64) {
	if tv, ok := node.Labels[tk]; ok {
		pair := topologyPair{key: tk, value: tv}
		m[pair] += value
		if m[pair] == 0 { // value may be negative (RemovePod)
			delete(m, pair)
		}
	}
}

// ipaPreFilterState: per domain, (1) running pods whose required
// anti-affinity terms match the incoming pod, (2) running pods matching
// all of the incoming pod's affinity terms, (3) running pods matching its
// anti-affinity terms.
type ipaPreFilterState struct {
	existingAntiAffinityCounts topologyToMatchedTermCount
	affinityCounts             topologyToMatchedTermCount
	antiAffinityCounts         topologyToMatchedTermCount
	podInfo                    *framework.PodInfo
	namespaceLabels            map[string]string // of the incoming pod's namespace
	ns                         *nsLabels
}

func (s *ipaPreFilterState) Clone() framework.StateData {
	c := *s
	c.existingAntiAffinityCounts = maps.Clone(s.existingAntiAffinityCounts)
	c.affinityCounts = maps.Clone(s.affinityCounts)
	c.antiAffinityCounts = maps.Clone(s.antiAffinityCounts)
	return &c
}

// PreFilter counts what Filter needs, over every node. A pod without
// required (anti-)affinity terms that no running pod's required
// anti-affinity matches: Skip. For a pod without terms in a cluster
// without pods with affinity this is one length check per node.
func (pl *InterPodAffinity) PreFilter(_ context.Context, state *framework.CycleState, pod *corev1.Pod, nodes []*framework.NodeInfo) *framework.Status {
	var pi *framework.PodInfo
	if pod.Spec.Affinity != nil && (pod.Spec.Affinity.PodAffinity != nil || pod.Spec.Affinity.PodAntiAffinity != nil) {
		var err error
		if pi, err = framework.NewPodInfo(pod); err != nil {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("parsing pod: %+v", err))
		}
	} else {
		pi = &framework.PodInfo{Pod: pod}
	}
	hasTerms := len(pi.RequiredAffinityTerms) > 0 || len(pi.RequiredAntiAffinityTerms) > 0
	var s *ipaPreFilterState
	anyPodsWithAffinity := false
	for _, n := range nodes {
		// Pods with required anti-affinity are among those with affinity.
		if len(n.PodsWithAffinity) == 0 && !hasTerms {
			continue
		}
		anyPodsWithAffinity = anyPodsWithAffinity || len(n.PodsWithAffinity) > 0
		if s == nil {
			s = &ipaPreFilterState{podInfo: pi, existingAntiAffinityCounts: topologyToMatchedTermCount{},
				affinityCounts: topologyToMatchedTermCount{}, antiAffinityCounts: topologyToMatchedTermCount{}, ns: pl.newNSLabels()}
			s.namespaceLabels = s.ns.get(pod.Namespace)
		}
		// Running pods whose required anti-affinity rejects the incoming pod.
		for _, existing := range n.PodsWithRequiredAntiAffinity {
			for i := range existing.RequiredAntiAffinityTerms {
				t := &existing.RequiredAntiAffinityTerms[i]
				if t.Matches(pod, s.namespaceLabels) {
					s.existingAntiAffinityCounts.update(n.Node, t.TopologyKey, 1)
				}
			}
		}
		if !hasTerms {
			continue
		}
		// Running pods the incoming pod's terms select.
		for _, existing := range n.Pods {
			s.updateWithIncomingTerms(existing, n.Node, 1)
		}
	}
	if !anyPodsWithAffinity {
		state.Write(ipaNoPodsWithAffinityKey, true) // PreScore may skip at once
	}
	if s == nil || (len(s.existingAntiAffinityCounts) == 0 && !hasTerms) {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(ipaPreFilterStateKey, s)
	return nil
}

// updateWithIncomingTerms counts existing (on node) for the incoming pod's
// affinity terms (if it matches all of them) and anti-affinity terms.
func (s *ipaPreFilterState) updateWithIncomingTerms(existing *corev1.Pod, node *corev1.Node, value int64) {
	terms := s.podInfo.RequiredAffinityTerms
	if s.matchesAll(terms, existing) {
		for i := range terms {
			s.affinityCounts.update(node, terms[i].TopologyKey, value)
		}
	}
	for i := range s.podInfo.RequiredAntiAffinityTerms {
		t := &s.podInfo.RequiredAntiAffinityTerms[i]
		if s.ns.matchesIncoming(t, existing) {
			s.antiAffinityCounts.update(node, t.TopologyKey, value)
		}
	}
}

// matchesAll: p matches every term (and there is at least one).
func (s *ipaPreFilterState) matchesAll(terms []framework.AffinityTerm, p *corev1.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !s.ns.matchesIncoming(&terms[i], p) {
			return false
		}
	}
	return true
}

// Filter checks, in upstream's order: the pod's affinity (every term's
// domain on this node must hold a matching pod; UnschedulableAndUnresolvable
// as removing pods cannot help), its anti-affinity, then the running pods'
// anti-affinity (both Unschedulable: preemption may help).
func (pl *InterPodAffinity) Filter(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	s, err := ipaPreFilter(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !s.satisfyPodAffinity(n.Node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
	}
	if !s.satisfyPodAntiAffinity(n.Node) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch)
	}
	if !s.satisfyExistingPodsAntiAffinity(n.Node) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch)
	}
	return nil
}

func (s *ipaPreFilterState) satisfyPodAffinity(node *corev1.Node) bool {
	podsExist := true
	for _, t := range s.podInfo.RequiredAffinityTerms {
		tv, ok := node.Labels[t.TopologyKey]
		if !ok {
			return false // every topology label must exist on the node
		}
		if s.affinityCounts[topologyPair{t.TopologyKey, tv}] <= 0 {
			podsExist = false
		}
	}
	if podsExist {
		return true
	}
	// The first pod of a group with affinity to itself: no pod anywhere
	// matches the terms, but the pod does, so it may go to any node with
	// the topology labels (otherwise such a group could never start).
	return len(s.affinityCounts) == 0 && s.matchesAll(s.podInfo.RequiredAffinityTerms, s.podInfo.Pod)
}

func (s *ipaPreFilterState) satisfyPodAntiAffinity(node *corev1.Node) bool {
	if len(s.antiAffinityCounts) == 0 {
		return true
	}
	for _, t := range s.podInfo.RequiredAntiAffinityTerms {
		if tv, ok := node.Labels[t.TopologyKey]; ok && s.antiAffinityCounts[topologyPair{t.TopologyKey, tv}] > 0 {
			return false
		}
	}
	return true
}

func (s *ipaPreFilterState) satisfyExistingPodsAntiAffinity(node *corev1.Node) bool {
	if len(s.existingAntiAffinityCounts) == 0 {
		return true
	}
	for k, v := range node.Labels {
		if s.existingAntiAffinityCounts[topologyPair{k, v}] > 0 {
			return false
		}
	}
	return true
}

func ipaPreFilter(state *framework.CycleState) (*ipaPreFilterState, error) {
	v, ok := state.Read(ipaPreFilterStateKey)
	if !ok {
		return nil, fmt.Errorf("error reading %q from cycleState: not found", ipaPreFilterStateKey)
	}
	return v.(*ipaPreFilterState), nil
}

// PreFilterExtensions: preemption's dry run adds and removes pods.
func (pl *InterPodAffinity) PreFilterExtensions() framework.PreFilterExtensions { return pl }

func (pl *InterPodAffinity) AddPod(_ context.Context, state *framework.CycleState, podToSchedule, podToAdd *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	return updateWithPod(state, podToAdd, n.Node, 1)
}

func (pl *InterPodAffinity) RemovePod(_ context.Context, state *framework.CycleState, podToSchedule, podToRemove *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	return updateWithPod(state, podToRemove, n.Node, -1)
}

func updateWithPod(state *framework.CycleState, updated *corev1.Pod, node *corev1.Node, value int64) *framework.Status {
	s, err := ipaPreFilter(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if node == nil {
		return nil
	}
	pi, _ := framework.NewPodInfo(updated)
	for i := range pi.RequiredAntiAffinityTerms {
		t := &pi.RequiredAntiAffinityTerms[i]
		if t.Matches(s.podInfo.Pod, s.namespaceLabels) {
			s.existingAntiAffinityCounts.update(node, t.TopologyKey, value)
		}
	}
	s.updateWithIncomingTerms(updated, node, value)
	return nil
}

// ---- Score: preferred terms ----

// scoreMap: topology key -> value -> score.
type scoreMap map[string]map[string]int64

func (m scoreMap) processTerm(t *framework.AffinityTerm, weight int32, matches bool, node *corev1.Node, multiplier int32) {
	if !matches {
		return
	}
	if tv, ok := node.Labels[t.TopologyKey]; ok {
		if m[t.TopologyKey] == nil {
			m[t.TopologyKey] = map[string]int64{}
		}
		m[t.TopologyKey][tv] += int64(weight * multiplier)
	}
}

type ipaPreScoreState struct {
	topologyScore scoreMap
}

// PreScore adds up, per domain, the weights of the terms that hold
// between the incoming pod and each running pod, in both directions: the
// incoming pod's preferred affinity (+) and anti-affinity (-) terms the
// running pod matches, and the running pod's required affinity
// (+HardPodAffinityWeight), preferred affinity (+) and preferred
// anti-affinity (-) terms the incoming pod matches. Without preferred terms
// of its own only running pods with affinity are looked at; nothing to
// add up: Skip.
func (pl *InterPodAffinity) PreScore(_ context.Context, state *framework.CycleState, pod *corev1.Pod, filtered []*framework.NodeInfo) *framework.Status {
	if len(filtered) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	a := pod.Spec.Affinity
	hasConstraints := a != nil && ((a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) ||
		(a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0))
	if _, none := state.Read(ipaNoPodsWithAffinityKey); none && !hasConstraints {
		return framework.NewStatus(framework.Skip)
	}
	var pi *framework.PodInfo
	var ns *nsLabels
	var podNSLabels map[string]string
	topoScore := scoreMap{}
	for _, n := range framework.AllNodes(state, filtered) {
		if (!hasConstraints && len(n.PodsWithAffinity) == 0) || n.Node == nil || len(n.Node.Labels) == 0 {
			continue
		}
		if pi == nil {
			var err error
			if pi, err = framework.NewPodInfo(pod); err != nil {
				return framework.AsStatus(fmt.Errorf("failed to parse pod: %w", err))
			}
			ns = pl.newNSLabels()
			podNSLabels = ns.get(pod.Namespace)
		}
		if hasConstraints {
			// The incoming pod's preferred terms, against every pod.
			for _, existing := range n.Pods {
				incomingPreferredTerms(topoScore, pi, ns, existing, n.Node)
			}
		}
		// The running pods' terms towards the incoming pod. Without
		// preferred terms of its own, only these pods matter at all.
		for _, existing := range n.PodsWithAffinity {
			pl.existingPodTerms(topoScore, existing, pod, podNSLabels, n.Node)
		}
	}
	if len(topoScore) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(ipaPreScoreStateKey, &ipaPreScoreState{topologyScore: topoScore})
	return nil
}

// incomingPreferredTerms adds the incoming pod's (pi) preferred affinity
// (+weight) and anti-affinity (-weight) terms that existing, running on
// node, matches.
func incomingPreferredTerms(m scoreMap, pi *framework.PodInfo, ns *nsLabels, existing *corev1.Pod, node *corev1.Node) {
	for i := range pi.PreferredAffinityTerms {
		t := &pi.PreferredAffinityTerms[i]
		m.processTerm(&t.AffinityTerm, t.Weight, ns.matchesIncoming(&t.AffinityTerm, existing), node, 1)
	}
	for i := range pi.PreferredAntiAffinityTerms {
		t := &pi.PreferredAntiAffinityTerms[i]
		m.processTerm(&t.AffinityTerm, t.Weight, ns.matchesIncoming(&t.AffinityTerm, existing), node, -1)
	}
}

// existingPodTerms adds the terms of existing (running on node) that the
// incoming pod matches: required affinity (+HardPodAffinityWeight),
// preferred affinity (+weight), preferred anti-affinity (-weight).
func (pl *InterPodAffinity) existingPodTerms(m scoreMap, existing *framework.PodInfo, incoming *corev1.Pod, podNSLabels map[string]string, node *corev1.Node) {
	if pl.HardPodAffinityWeight > 0 {
		for i := range existing.RequiredAffinityTerms {
			t := &existing.RequiredAffinityTerms[i]
			m.processTerm(t, pl.HardPodAffinityWeight, t.Matches(incoming, podNSLabels), node, 1)
		}
	}
	for i := range existing.PreferredAffinityTerms {
		t := &existing.PreferredAffinityTerms[i]
		m.processTerm(&t.AffinityTerm, t.Weight, t.Matches(incoming, podNSLabels), node, 1)
	}
	for i := range existing.PreferredAntiAffinityTerms {
		t := &existing.PreferredAntiAffinityTerms[i]
		m.processTerm(&t.AffinityTerm, t.Weight, t.Matches(incoming, podNSLabels), node, -1)
	}
}

// Score is the sum of the scores of the node's domains.
func (pl *InterPodAffinity) Score(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	v, ok := state.Read(ipaPreScoreStateKey)
	if !ok {
		return 0, framework.AsStatus(fmt.Errorf("error reading %q from cycleState: not found", ipaPreScoreStateKey))
	}
	var score int64
	for tk, values := range v.(*ipaPreScoreState).topologyScore {
		if tv, ok := n.Node.Labels[tk]; ok {
			score += values[tv]
		}
	}
	return score, nil
}

// NormalizeScore maps [min, max] of the raw scores (which may be negative)
// to [0, 100]; all equal: 0.
func (pl *InterPodAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *corev1.Pod, scores []framework.NodeScore) *framework.Status {
	var minCount int64 = math.MaxInt64
	var maxCount int64 = math.MinInt64
	for _, s := range scores {
		minCount = min(minCount, s.Score)
		maxCount = max(maxCount, s.Score)
	}
	diff := maxCount - minCount
	for i := range scores {
		f := float64(0)
		if diff > 0 {
			f = float64(framework.MaxNodeScore) * (float64(scores[i].Score-minCount) / float64(diff))
		}
		scores[i].Score = int64(f)
	}
	return nil
}
