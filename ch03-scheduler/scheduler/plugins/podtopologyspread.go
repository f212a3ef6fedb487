package plugins

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/scheduler/framework"
)

// PodTopologySpread spreads a group of pods (those its labelSelector
// selects, in the pod's namespace) over topology domains: the values of a
// node label such as kubernetes.io/hostname or topology.kubernetes.io/zone.
// The skew of a domain is its number of matching pods minus the smallest
// number in any eligible domain.
//
//   - whenUnsatisfiable: DoNotSchedule is a Filter: a node is rejected if
//     putting the pod there would make its domain's skew exceed maxSkew.
//   - whenUnsatisfiable: ScheduleAnyway is a Score: the fewer matching pods
//     in a node's domains, the better.
//
// Upstream: plugins/podtopologyspread (plugin.go, common.go, filtering.go,
// scoring.go).
//
// A pod without constraints of its own gets upstream's system defaults
// for scoring (systemDefaultConstraints: hostname maxSkew 3, zone maxSkew
// 5, ScheduleAnyway), selecting the pods of its Services and controller
// (Listers.DefaultSelector); with Listers nil it is not spread at all.
type PodTopologySpread struct {
	Listers *Listers
}

const (
	// ErrReasonConstraintsNotMatch: placing the pod would exceed maxSkew.
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	// ErrReasonNodeLabelNotMatch: the node lacks a constraint's topologyKey.
	ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + " (missing required label)"

	ptsPreFilterStateKey = "PreFilterPodTopologySpread"
	ptsPreScoreStateKey  = "PreScorePodTopologySpread"
)

func (*PodTopologySpread) Name() string { return "PodTopologySpread" }

// topologySpreadConstraint is a constraint with its selector parsed and
// its defaults applied.
type topologySpreadConstraint struct {
	MaxSkew            int32
	TopologyKey        string
	Selector           selection.LabelSelector
	MinDomains         int32
	NodeAffinityPolicy corev1.NodeInclusionPolicy
	NodeTaintsPolicy   corev1.NodeInclusionPolicy
}

// spreadConstraints returns the constraints (a pod's, or the system
// defaults) with the given whenUnsatisfiable, matchLabelKeys merged from
// the pod's labels and upstream's defaults: minDomains 1,
// nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore.
func spreadConstraints(constraints []corev1.TopologySpreadConstraint, podLabels map[string]string, action corev1.UnsatisfiableConstraintAction) ([]topologySpreadConstraint, error) {
	var out []topologySpreadConstraint
	for _, c := range constraints {
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel, err := selection.FromLabelSelector(withMatchLabelKeys(c.LabelSelector, c.MatchLabelKeys, podLabels))
		if err != nil {
			return nil, err
		}
		tsc := topologySpreadConstraint{MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey, Selector: sel, MinDomains: 1,
			NodeAffinityPolicy: corev1.NodeInclusionPolicyHonor, NodeTaintsPolicy: corev1.NodeInclusionPolicyIgnore}
		if c.MinDomains != nil {
			tsc.MinDomains = *c.MinDomains
		}
		if c.NodeAffinityPolicy != nil {
			tsc.NodeAffinityPolicy = *c.NodeAffinityPolicy
		}
		if c.NodeTaintsPolicy != nil {
			tsc.NodeTaintsPolicy = *c.NodeTaintsPolicy
		}
		out = append(out, tsc)
	}
	return out, nil
}

// withMatchLabelKeys adds "key in (the pod's value)" to the selector for
// each matchLabelKeys key the pod has (upstream's mergeLabelSetWithSelector;
// a nil selector becomes just those labels). Upstream's apiserver also
// merges them at pod creation; merging twice changes nothing.
func withMatchLabelKeys(ls *metav1.LabelSelector, keys []string, podLabels map[string]string) *metav1.LabelSelector {
	var add []metav1.LabelSelectorRequirement
	for _, k := range keys {
		if v, ok := podLabels[k]; ok {
			add = append(add, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{v}})
		}
	}
	if len(add) == 0 {
		return ls
	}
	out := &metav1.LabelSelector{}
	if ls != nil {
		*out = *ls
	}
	out.MatchExpressions = append(slices.Clone(out.MatchExpressions), add...)
	return out
}

// matchNodeInclusionPolicies: with nodeAffinityPolicy Honor only nodes
// matching the pod's nodeSelector and required node affinity count; with
// nodeTaintsPolicy Honor only nodes whose NoSchedule/NoExecute taints the
// pod tolerates.
func (c *topologySpreadConstraint) matchNodeInclusionPolicies(pod *corev1.Pod, node *corev1.Node) bool {
	if c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor && !RequiredNodeAffinityMatches(pod, node) {
		return false
	}
	if c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		for i := range node.Spec.Taints {
			t := &node.Spec.Taints[i]
			if (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) && !tolerated(t, pod.Spec.Tolerations) {
				return false
			}
		}
	}
	return true
}

// nodeLabelsMatchSpreadConstraints: the node has every topologyKey.
func nodeLabelsMatchSpreadConstraints(labels map[string]string, constraints []topologySpreadConstraint) bool {
	for _, c := range constraints {
		if _, ok := labels[c.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// countPodsMatchSelector counts the pods of namespace ns that sel selects,
// leaving out terminating pods.
func countPodsMatchSelector(pods []*corev1.Pod, sel selection.LabelSelector, ns string) int {
	n := 0
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Namespace == ns && sel.Matches(p.Labels) {
			n++
		}
	}
	return n
}

// ---- Filter: DoNotSchedule ----

// criticalPaths keeps the two domains with the fewest matching pods: [0]
// always has the minimum. Two are enough for preemption's "what if", which
// changes one node at a time (upstream's comment explains it).
type criticalPaths [2]struct {
	TopologyValue string
	MatchNum      int
}

func newCriticalPaths() *criticalPaths {
	return &criticalPaths{{MatchNum: math.MaxInt32}, {MatchNum: math.MaxInt32}}
}

func (p *criticalPaths) update(tpVal string, num int) {
	i := -1
	if tpVal == p[0].TopologyValue {
		i = 0
	} else if tpVal == p[1].TopologyValue {
		i = 1
	}
	if i >= 0 {
		p[i].MatchNum = num
		if p[0].MatchNum > p[1].MatchNum {
			p[0], p[1] = p[1], p[0]
		}
		return
	}
	if num < p[0].MatchNum {
		p[1] = p[0]
		p[0].TopologyValue, p[0].MatchNum = tpVal, num
	} else if num < p[1].MatchNum {
		p[1].TopologyValue, p[1].MatchNum = tpVal, num
	}
}

// ptsPreFilterState: per constraint, the number of matching pods in each
// eligible domain, and the domains with the fewest.
type ptsPreFilterState struct {
	Constraints       []topologySpreadConstraint
	CriticalPaths     []*criticalPaths
	TpValueToMatchNum []map[string]int
}

// Clone: preemption's dry run changes counts on its own copy.
func (s *ptsPreFilterState) Clone() framework.StateData {
	c := &ptsPreFilterState{Constraints: s.Constraints,
		CriticalPaths: make([]*criticalPaths, len(s.CriticalPaths)), TpValueToMatchNum: make([]map[string]int, len(s.TpValueToMatchNum))}
	for i, p := range s.CriticalPaths {
		cp := *p
		c.CriticalPaths[i] = &cp
	}
	for i, m := range s.TpValueToMatchNum {
		c.TpValueToMatchNum[i] = maps.Clone(m)
	}
	return c
}

// minMatchNum is the global minimum of a constraint: 0 when there are
// fewer eligible domains than minDomains.
func (s *ptsPreFilterState) minMatchNum(i int, minDomains int32) int {
	if len(s.TpValueToMatchNum[i]) < int(minDomains) {
		return 0
	}
	return s.CriticalPaths[i][0].MatchNum
}

// PreFilter counts, over every node, the pods each DoNotSchedule
// constraint selects, per domain. A node counts only if it has every
// topologyKey and passes the constraint's inclusion policies. Pods without
// DoNotSchedule constraints: Skip.
func (pl *PodTopologySpread) PreFilter(_ context.Context, state *framework.CycleState, pod *corev1.Pod, nodes []*framework.NodeInfo) *framework.Status {
	if len(pod.Spec.TopologySpreadConstraints) == 0 {
		return framework.NewStatus(framework.Skip) // the system defaults are soft: PreScore only
	}
	constraints, err := spreadConstraints(pod.Spec.TopologySpreadConstraints, pod.Labels, corev1.DoNotSchedule)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("get constraints from pod: %w", err))
	}
	if len(constraints) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	s := &ptsPreFilterState{Constraints: constraints,
		CriticalPaths: make([]*criticalPaths, len(constraints)), TpValueToMatchNum: make([]map[string]int, len(constraints))}
	for i := range constraints {
		s.TpValueToMatchNum[i] = map[string]int{}
	}
	for _, n := range nodes {
		if n.Node == nil || !nodeLabelsMatchSpreadConstraints(n.Node.Labels, constraints) {
			continue
		}
		for i := range constraints {
			c := &constraints[i]
			if !c.matchNodeInclusionPolicies(pod, n.Node) {
				continue
			}
			// A domain with no matching pod is still a domain (count 0).
			s.TpValueToMatchNum[i][n.Node.Labels[c.TopologyKey]] += countPodsMatchSelector(n.Pods, c.Selector, pod.Namespace)
		}
	}
	for i := range constraints {
		s.CriticalPaths[i] = newCriticalPaths()
		for v, num := range s.TpValueToMatchNum[i] {
			s.CriticalPaths[i].update(v, num)
		}
	}
	state.Write(ptsPreFilterStateKey, s)
	return nil
}

// Filter: for every constraint, matching pods in the node's domain, plus
// 1 if the pod itself matches, minus the global minimum, must not exceed
// maxSkew.
func (pl *PodTopologySpread) Filter(_ context.Context, state *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	s, err := ptsPreFilter(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	for i := range s.Constraints {
		c := &s.Constraints[i]
		tpVal, ok := n.Node.Labels[c.TopologyKey]
		if !ok {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch)
		}
		selfMatch := 0
		if c.Selector.Matches(pod.Labels) {
			selfMatch = 1
		}
		if skew := s.TpValueToMatchNum[i][tpVal] + selfMatch - s.minMatchNum(i, c.MinDomains); skew > int(c.MaxSkew) {
			return framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch)
		}
	}
	return nil
}

func ptsPreFilter(state *framework.CycleState) (*ptsPreFilterState, error) {
	v, ok := state.Read(ptsPreFilterStateKey)
	if !ok {
		return nil, fmt.Errorf("reading %q from cycleState: not found", ptsPreFilterStateKey)
	}
	return v.(*ptsPreFilterState), nil
}

// PreFilterExtensions: preemption's dry run adds and removes pods.
func (pl *PodTopologySpread) PreFilterExtensions() framework.PreFilterExtensions { return pl }

func (pl *PodTopologySpread) AddPod(_ context.Context, state *framework.CycleState, podToSchedule, podToAdd *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	return pl.updateWithPod(state, podToAdd, podToSchedule, n.Node, 1)
}

func (pl *PodTopologySpread) RemovePod(_ context.Context, state *framework.CycleState, podToSchedule, podToRemove *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	return pl.updateWithPod(state, podToRemove, podToSchedule, n.Node, -1)
}

func (pl *PodTopologySpread) updateWithPod(state *framework.CycleState, updated, preemptor *corev1.Pod, node *corev1.Node, delta int) *framework.Status {
	s, err := ptsPreFilter(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if updated.Namespace != preemptor.Namespace || node == nil || !nodeLabelsMatchSpreadConstraints(node.Labels, s.Constraints) {
		return nil
	}
	for i := range s.Constraints {
		c := &s.Constraints[i]
		if !c.Selector.Matches(updated.Labels) || !c.matchNodeInclusionPolicies(preemptor, node) {
			continue
		}
		v := node.Labels[c.TopologyKey]
		s.TpValueToMatchNum[i][v] += delta
		s.CriticalPaths[i].update(v, s.TpValueToMatchNum[i][v])
	}
	return nil
}

// ---- Score: ScheduleAnyway ----

// ptsPreScoreState: per constraint, the matching pods per domain (except
// for hostname, counted in Score on the node itself) and the weight of
// the constraint: log(number of domains + 2), so that a topology with few
// domains (zones) is not drowned by one with many (hostnames).
type ptsPreScoreState struct {
	Constraints               []topologySpreadConstraint
	IgnoredNodes              map[string]bool // lacking a topologyKey: score 0
	TopologyValueToPodCounts  []map[string]*int64
	TopologyNormalizingWeight []float64
}

// PreScore counts, over every node, the pods each ScheduleAnyway
// constraint selects in the domains of the feasible nodes. Pods without
// such constraints (their own or the system defaults): Skip.
func (pl *PodTopologySpread) PreScore(_ context.Context, state *framework.CycleState, pod *corev1.Pod, filtered []*framework.NodeInfo) *framework.Status {
	allNodes := framework.AllNodes(state, filtered)
	if len(allNodes) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	constraints, err := pl.softConstraints(pod)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("calculating preScoreState: %w", err))
	}
	if len(constraints) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	// Nodes must have every topology key only under the pod's own rules:
	// with the system defaults a node without a zone label is still
	// spread over by hostname.
	requireAllTopologies := len(pod.Spec.TopologySpreadConstraints) > 0 || pl.Listers == nil
	s := &ptsPreScoreState{Constraints: constraints, IgnoredNodes: map[string]bool{},
		TopologyValueToPodCounts: make([]map[string]*int64, len(constraints)), TopologyNormalizingWeight: make([]float64, len(constraints))}
	topoSize := make([]int, len(constraints))
	for i := range constraints {
		s.TopologyValueToPodCounts[i] = map[string]*int64{}
	}
	for _, n := range filtered {
		if requireAllTopologies && !nodeLabelsMatchSpreadConstraints(n.Node.Labels, constraints) {
			s.IgnoredNodes[n.Name()] = true
			continue
		}
		for i, c := range constraints {
			if c.TopologyKey == corev1.LabelHostname {
				continue // per-node counts are taken in Score
			}
			// Under the system defaults a node without a zone label
			// counts as a zone of its own, "".
			v := n.Node.Labels[c.TopologyKey]
			if s.TopologyValueToPodCounts[i][v] == nil {
				s.TopologyValueToPodCounts[i][v] = new(int64)
				topoSize[i]++
			}
		}
	}
	for i, c := range constraints {
		size := topoSize[i]
		if c.TopologyKey == corev1.LabelHostname {
			size = len(filtered) - len(s.IgnoredNodes)
		}
		s.TopologyNormalizingWeight[i] = math.Log(float64(size + 2))
	}
	for _, n := range allNodes {
		if n.Node == nil || (requireAllTopologies && !nodeLabelsMatchSpreadConstraints(n.Node.Labels, constraints)) {
			continue
		}
		for i := range constraints {
			c := &constraints[i]
			if !c.matchNodeInclusionPolicies(pod, n.Node) {
				continue
			}
			// Only the domains of feasible nodes are counted.
			if cnt := s.TopologyValueToPodCounts[i][n.Node.Labels[c.TopologyKey]]; cnt != nil {
				*cnt += int64(countPodsMatchSelector(n.Pods, c.Selector, pod.Namespace))
			}
		}
	}
	state.Write(ptsPreScoreStateKey, s)
	return nil
}

// softConstraints are the pod's ScheduleAnyway constraints or, when it has
// no constraints at all, the system defaults over its set's pods (none
// when it belongs to no set). Upstream: initPreScoreState and
// buildDefaultConstraints.
func (pl *PodTopologySpread) softConstraints(pod *corev1.Pod) ([]topologySpreadConstraint, error) {
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		c, err := spreadConstraints(pod.Spec.TopologySpreadConstraints, pod.Labels, corev1.ScheduleAnyway)
		if err != nil {
			return nil, fmt.Errorf("obtaining pod's soft topology spread constraints: %w", err)
		}
		return c, nil
	}
	if pl.Listers == nil {
		return nil, nil
	}
	sel, err := pl.Listers.DefaultSelector(pod)
	if err != nil || sel.Empty() {
		return nil, err
	}
	c, err := spreadConstraints(systemDefaultConstraints, pod.Labels, corev1.ScheduleAnyway)
	if err != nil {
		return nil, fmt.Errorf("setting default soft topology spread constraints: %w", err)
	}
	for i := range c {
		c[i].Selector = sel
	}
	return c, nil
}

// Score is the sum over the constraints of matching pods in the node's
// domain times the constraint's weight, plus maxSkew-1 (which waters small
// differences down). Lower is better: NormalizeScore reverses it.
func (pl *PodTopologySpread) Score(_ context.Context, state *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	s, err := ptsPreScore(state)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	if s.IgnoredNodes[n.Name()] {
		return 0, nil
	}
	var score float64
	for i := range s.Constraints {
		c := &s.Constraints[i]
		tpVal, ok := n.Node.Labels[c.TopologyKey]
		if !ok {
			continue
		}
		var cnt int64
		if c.TopologyKey == corev1.LabelHostname {
			cnt = int64(countPodsMatchSelector(n.Pods, c.Selector, pod.Namespace))
		} else {
			cnt = *s.TopologyValueToPodCounts[i][tpVal]
		}
		score += float64(cnt)*s.TopologyNormalizingWeight[i] + float64(c.MaxSkew-1)
	}
	return int64(math.Round(score)), nil
}

// NormalizeScore maps the raw scores to 0..100, the fewest matching pods
// getting 100: MaxNodeScore * (max + min - score) / max. Ignored nodes get 0.
func (pl *PodTopologySpread) NormalizeScore(_ context.Context, state *framework.CycleState, _ *corev1.Pod, scores []framework.NodeScore) *framework.Status {
	s, err := ptsPreScore(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	var minScore int64 = math.MaxInt64
	var maxScore int64
	for _, sc := range scores {
		if s.IgnoredNodes[sc.Name] {
			continue
		}
		minScore = min(minScore, sc.Score)
		maxScore = max(maxScore, sc.Score)
	}
	for i := range scores {
		switch {
		case s.IgnoredNodes[scores[i].Name]:
			scores[i].Score = 0
		case maxScore == 0:
			scores[i].Score = framework.MaxNodeScore
		default:
			scores[i].Score = framework.MaxNodeScore * (maxScore + minScore - scores[i].Score) / maxScore
		}
	}
	return nil
}

func ptsPreScore(state *framework.CycleState) (*ptsPreScoreState, error) {
	v, ok := state.Read(ptsPreScoreStateKey)
	if !ok {
		return nil, fmt.Errorf("error reading %q from cycleState: not found", ptsPreScoreStateKey)
	}
	return v.(*ptsPreScoreState), nil
}
