package framework

import (
	"context"
	"fmt"
	"log/slog"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Framework runs a profile's plugins at each extension point, in the
// order they were given. Upstream: frameworkruntime.frameworkImpl.
type Framework struct {
	preEnqueue []PreEnqueuePlugin
	queueSort  QueueSortPlugin
	preFilter  []PreFilterPlugin
	filter     []FilterPlugin
	postFilter []PostFilterPlugin
	preScore   []PreScorePlugin
	score      []ScorePlugin
	weights    map[string]int64
	reserve    []ReservePlugin
	bind       []BindPlugin

	// The Handle: what plugins may use besides their arguments.
	handle Handle
}

// Handle is the scheduler's services that plugins may use (upstream:
// framework.Handle): the apiserver client, the event recorder and the pod
// nominator. Each may be nil (unit tests): a plugin then does no API call.
type Handle struct {
	ClientSet     *rest.Client
	EventRecorder EventRecorder
	PodNominator  PodNominator
	Logger        *slog.Logger
}

// SetHandle gives the framework the scheduler's services.
func (f *Framework) SetHandle(h Handle) { f.handle = h }

func (f *Framework) ClientSet() *rest.Client      { return f.handle.ClientSet }
func (f *Framework) EventRecorder() EventRecorder { return f.handle.EventRecorder }

// Logger is the scheduler's logger (one that discards without a Handle).
func (f *Framework) Logger() *slog.Logger {
	if f.handle.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return f.handle.Logger
}

// NominatedPodsForNode: the pods nominated to nodeName (none without a
// nominator).
func (f *Framework) NominatedPodsForNode(nodeName string) []*corev1.Pod {
	if f.handle.PodNominator == nil {
		return nil
	}
	return f.handle.PodNominator.NominatedPodsForNode(nodeName)
}

// New puts each plugin at every extension point it implements (upstream's
// "multiPoint" configuration). weights are the Score weights by plugin name
// (default 1).
func New(plugins []Plugin, weights map[string]int64) (*Framework, error) {
	f := &Framework{weights: map[string]int64{}}
	for _, p := range plugins {
		if q, ok := p.(PreEnqueuePlugin); ok {
			f.preEnqueue = append(f.preEnqueue, q)
		}
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

// RunPreEnqueuePlugins: nil if the pod may enter the active queue, else
// the first plugin's rejection.
func (f *Framework) RunPreEnqueuePlugins(ctx context.Context, pod *corev1.Pod) *Status {
	for _, p := range f.preEnqueue {
		if s := p.PreEnqueue(ctx, pod); !s.IsSuccess() {
			return s.WithPlugin(p.Name())
		}
	}
	return nil
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
// pod) or says UnschedulableAndUnresolvable; otherwise the reasons of all
// are joined, and the last result that nominates something is kept.
func (f *Framework) RunPostFilterPlugins(ctx context.Context, state *CycleState, pod *corev1.Pod, allNodes []*NodeInfo, statuses NodeToStatus) (*PostFilterResult, *Status) {
	var result *PostFilterResult
	var reasons []string
	rejector := ""
	for _, p := range f.postFilter {
		r, s := p.PostFilter(ctx, state, pod, allNodes, statuses)
		switch {
		case s.IsSuccess():
			return r, s
		case s.Code() == UnschedulableAndUnresolvable:
			return r, s.WithPlugin(p.Name())
		case !s.IsRejected():
			return nil, AsStatus(s.AsError()).WithPlugin(p.Name())
		case r != nil && r.Mode() != ModeNoop:
			result = r
		}
		reasons = append(reasons, s.Reasons()...)
		if rejector == "" {
			rejector = p.Name()
		}
	}
	return result, NewStatus(Unschedulable, reasons...).WithPlugin(rejector)
}

// RunFilterPluginsWithNominatedPods runs the Filter plugins on node as if
// the pods nominated there with equal or higher priority were already
// running: they preempted pods to get that room, and pod must not take it.
// When such pods exist and the pod fits with them, the filters run a
// second time without them: a filter like inter-pod affinity may pass only
// thanks to a nominated pod that might never come. Without nominated pods
// this is RunFilterPlugins, at no extra cost.
func (f *Framework) RunFilterPluginsWithNominatedPods(ctx context.Context, state *CycleState, pod *corev1.Pod, node *NodeInfo) *Status {
	var status *Status
	podsAdded := false
	for i := 0; i < 2; i++ {
		stateToUse, nodeToUse := state, node
		if i == 0 {
			var err error
			podsAdded, stateToUse, nodeToUse, err = f.addGENominatedPods(ctx, pod, state, node)
			if err != nil {
				return AsStatus(err)
			}
		} else if !podsAdded || !status.IsSuccess() {
			break
		}
		status = f.RunFilterPlugins(ctx, stateToUse, pod, nodeToUse)
		if !status.IsSuccess() && !status.IsRejected() {
			return status
		}
	}
	return status
}

// addGENominatedPods adds to a copy of node (and of state) the pods
// nominated to it whose priority is greater than or equal to pod's.
func (f *Framework) addGENominatedPods(ctx context.Context, pod *corev1.Pod, state *CycleState, node *NodeInfo) (bool, *CycleState, *NodeInfo, error) {
	if node.Node == nil {
		return false, state, node, nil
	}
	nominated := f.NominatedPodsForNode(node.Name())
	if len(nominated) == 0 {
		return false, state, node, nil
	}
	nodeOut, stateOut := node.Clone(), state.Clone()
	podsAdded := false
	for _, np := range nominated {
		if PodPriority(np) >= PodPriority(pod) && np.UID != pod.UID {
			nodeOut.AddPod(np)
			if s := f.RunPreFilterExtensionAddPod(ctx, stateOut, pod, np, nodeOut); !s.IsSuccess() {
				return false, state, node, s.AsError()
			}
			podsAdded = true
		}
	}
	return podsAdded, stateOut, nodeOut, nil
}

// RunPreFilterExtensionAddPod tells the PreFilter plugins with extensions
// that podToAdd was added to node (in state, a copy).
func (f *Framework) RunPreFilterExtensionAddPod(ctx context.Context, state *CycleState, podToSchedule, podToAdd *corev1.Pod, node *NodeInfo) *Status {
	for _, p := range f.preFilter {
		ext := preFilterExtensions(p)
		if ext == nil || state.SkipFilterPlugins[p.Name()] {
			continue
		}
		if s := ext.AddPod(ctx, state, podToSchedule, podToAdd, node); !s.IsSuccess() {
			return NewStatus(Error, fmt.Sprintf("running AddPod on PreFilter plugin %q: %s", p.Name(), s.Message())).WithPlugin(p.Name())
		}
	}
	return nil
}

// RunPreFilterExtensionRemovePod tells the PreFilter plugins with
// extensions that podToRemove was removed from node.
func (f *Framework) RunPreFilterExtensionRemovePod(ctx context.Context, state *CycleState, podToSchedule, podToRemove *corev1.Pod, node *NodeInfo) *Status {
	for _, p := range f.preFilter {
		ext := preFilterExtensions(p)
		if ext == nil || state.SkipFilterPlugins[p.Name()] {
			continue
		}
		if s := ext.RemovePod(ctx, state, podToSchedule, podToRemove, node); !s.IsSuccess() {
			return NewStatus(Error, fmt.Sprintf("running RemovePod on PreFilter plugin %q: %s", p.Name(), s.Message())).WithPlugin(p.Name())
		}
	}
	return nil
}

func preFilterExtensions(p PreFilterPlugin) PreFilterExtensions {
	if e, ok := p.(PreFilterExtensionsProvider); ok {
		return e.PreFilterExtensions()
	}
	return nil
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
		weight := f.weights[p.Name()]
		for i, s := range scores {
			if s.Score > MaxNodeScore || s.Score < 0 {
				return nil, NewStatus(Error, fmt.Sprintf("plugin %q returns an invalid score %v, it should in the range of [0, %v] after normalizing", p.Name(), s.Score, MaxNodeScore))
			}
			total[i].Score += s.Score * weight
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
