package framework

import (
	"context"
	"fmt"

	"kubik/ch01-apiserver/api/corev1"
)

// Framework runs a profile's plugins at each extension point, in the
// order they were given. Upstream: frameworkruntime.frameworkImpl.
type Framework struct {
	queueSort  QueueSortPlugin
	preFilter  []PreFilterPlugin
	filter     []FilterPlugin
	postFilter []PostFilterPlugin
	preScore   []PreScorePlugin
	score      []ScorePlugin
	weights    map[string]int64
	reserve    []ReservePlugin
	bind       []BindPlugin
}

// New puts each plugin at every extension point it implements (upstream's
// "multiPoint" configuration). weights are the Score weights by plugin name
// (default 1).
func New(plugins []Plugin, weights map[string]int64) (*Framework, error) {
	f := &Framework{weights: map[string]int64{}}
	for _, p := range plugins {
		if q, ok := p.(QueueSortPlugin); ok {
			if f.queueSort != nil {
				return nil, fmt.Errorf("only one QueueSort plugin may be enabled, got %s and %s", f.queueSort.Name(), p.Name())
			}
			f.queueSort = q
		}
		if q, ok := p.(PreFilterPlugin); ok {
			f.preFilter = append(f.preFilter, q)
		}
		if q, ok := p.(FilterPlugin); ok {
			f.filter = append(f.filter, q)
		}
		if q, ok := p.(PostFilterPlugin); ok {
			f.postFilter = append(f.postFilter, q)
		}
		if q, ok := p.(PreScorePlugin); ok {
			f.preScore = append(f.preScore, q)
		}
		if q, ok := p.(ScorePlugin); ok {
			f.score = append(f.score, q)
			w := weights[p.Name()]
			if w == 0 {
				w = 1
			}
			f.weights[p.Name()] = w
		}
		if q, ok := p.(ReservePlugin); ok {
			f.reserve = append(f.reserve, q)
		}
		if q, ok := p.(BindPlugin); ok {
			f.bind = append(f.bind, q)
		}
	}
	if f.queueSort == nil || len(f.bind) == 0 {
		return nil, fmt.Errorf("a profile needs a QueueSort and a Bind plugin")
	}
	return f, nil
}

// QueueSortLess orders the active queue.
func (f *Framework) QueueSortLess(a, b *QueuedPodInfo) bool { return f.queueSort.Less(a, b) }

// RunPreFilterPlugins stops at the first plugin that rejects the pod; a
// plugin that returns Skip has its Filter skipped for this pod.
func (f *Framework) RunPreFilterPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo) *Status {
	for _, p := range f.preFilter {
		s := p.PreFilter(ctx, state, pod, nodes)
		switch {
		case s.IsSkip():
			state.SkipFilterPlugins[p.Name()] = true
		case !s.IsSuccess():
			if s.Code() == Error {
				return NewStatus(Error, fmt.Sprintf("running PreFilter plugin %q: %s", p.Name(), s.Message())).WithPlugin(p.Name())
			}
			return s.WithPlugin(p.Name())
		}
	}
	return nil
}

// RunFilterPlugins asks each Filter plugin about one node; the first that
// says no decides.
func (f *Framework) RunFilterPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, node *NodeInfo) *Status {
	for _, p := range f.filter {
		if state.SkipFilterPlugins[p.Name()] {
			continue
		}
		if s := p.Filter(ctx, state, pod, node); !s.IsSuccess() {
			if s.Code() == Error {
				return NewStatus(Error, fmt.Sprintf("running %q filter plugin: %s", p.Name(), s.Message())).WithPlugin(p.Name())
			}
			return s.WithPlugin(p.Name())
		}
	}
	return nil
}

// RunPostFilterPlugins runs until one succeeds (it made room for the
// pod); otherwise the last message tells what was tried.
func (f *Framework) RunPostFilterPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, allNodes []*NodeInfo, statuses NodeToStatus) *Status {
	var last *Status = NewStatus(Unschedulable)
	for _, p := range f.postFilter {
		s := p.PostFilter(ctx, state, pod, allNodes, statuses)
		if s.IsSuccess() {
			return s
		}
		last = s.WithPlugin(p.Name())
	}
	return last
}

// RunScorePlugins: PreScore, then each Score plugin on every feasible node,
// NormalizeScore, and the weighted sum per node.
func (f *Framework) RunScorePlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo) ([]NodeScore, *Status) {
	for _, p := range f.preScore {
		s := p.PreScore(ctx, state, pod, nodes)
		switch {
		case s.IsSkip():
			state.SkipScorePlugins[p.Name()] = true
		case !s.IsSuccess():
			return nil, NewStatus(Error, fmt.Sprintf("running PreScore plugin %q: %s", p.Name(), s.Message()))
		}
	}
	total := make([]NodeScore, len(nodes))
	for i, n := range nodes {
		total[i].Name = n.Name()
	}
	for _, p := range f.score {
		if state.SkipScorePlugins[p.Name()] {
			continue
		}
		scores := make([]NodeScore, len(nodes))
		for i, n := range nodes {
			s, st := p.Score(ctx, state, pod, n)
			if !st.IsSuccess() {
				return nil, NewStatus(Error, fmt.Sprintf("running Score plugin %q: %s", p.Name(), st.Message()))
			}
			scores[i] = NodeScore{Name: n.Name(), Score: s}
		}
		if norm, ok := p.(ScoreNormalizer); ok {
			if st := norm.NormalizeScore(ctx, state, pod, scores); !st.IsSuccess() {
				return nil, NewStatus(Error, fmt.Sprintf("running Normalize on Score plugin %q: %s", p.Name(), st.Message()))
			}
		}
		for i, s := range scores {
			if s.Score > MaxNodeScore || s.Score < 0 {
				return nil, NewStatus(Error, fmt.Sprintf("plugin %q returns an invalid score %v, it should in the range of [0, %v] after normalizing", p.Name(), s.Score, MaxNodeScore))
			}
			total[i].Score += s.Score * f.weights[p.Name()]
		}
	}
	return total, nil
}

// RunReservePluginsReserve reserves in order; on failure the caller runs
// RunReservePluginsUnreserve.
func (f *Framework) RunReservePluginsReserve(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status {
	for _, p := range f.reserve {
		if s := p.Reserve(ctx, state, pod, nodeName); !s.IsSuccess() {
			return NewStatus(Error, fmt.Sprintf("running Reserve plugin %q: %s", p.Name(), s.Message())).WithPlugin(p.Name())
		}
	}
	return nil
}

// RunReservePluginsUnreserve undoes Reserve, in reverse order.
func (f *Framework) RunReservePluginsUnreserve(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) {
	for i := len(f.reserve) - 1; i >= 0; i-- {
		f.reserve[i].Unreserve(ctx, state, pod, nodeName)
	}
}

// RunBindPlugins: the first bind plugin that does not Skip binds.
func (f *Framework) RunBindPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status {
	for _, p := range f.bind {
		s := p.Bind(ctx, state, pod, nodeName)
		if s.IsSkip() {
			continue
		}
		if !s.IsSuccess() {
			return NewStatus(Error, fmt.Sprintf("running Bind plugin %q: %s", p.Name(), s.Message())).WithPlugin(p.Name())
		}
		return nil
	}
	return NewStatus(Error, "no bind plugin bound the pod")
}
