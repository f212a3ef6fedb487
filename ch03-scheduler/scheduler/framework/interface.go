// Package framework is the scheduling framework: the extension points a
// scheduling cycle runs through, in this order, and the plugin interfaces
// that hook into them (upstream's names):
//
//	QueueSort   which pending pod goes first
//	PreFilter   compute something once per pod, or reject it outright
//	Filter      can this node run the pod? (all nodes, in parallel upstream)
//	PostFilter  nothing fits: could preemption help?
//	PreScore    compute something once for the feasible nodes
//	Score       rank each feasible node 0..100
//	NormalizeScore  rescale one plugin's scores to 0..100
//	Reserve     the pod is assumed on the node (undo: Unreserve)
//	Bind        write the decision: POST pods/<name>/binding
//
// Upstream: k8s.io/kubernetes/pkg/scheduler/framework (interface.go, types.go,
// runtime/framework.go), k8s.io/kube-scheduler/framework.
package framework

import (
	"context"
	"errors"
	"strings"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
)

// MaxNodeScore is the highest score a Score plugin gives (after NormalizeScore).
const MaxNodeScore int64 = 100

// Code is a plugin's verdict.
type Code int

const (
	Success Code = iota
	// Error: something went wrong (not the pod's fault); the pod is retried.
	Error
	// Unschedulable: the node cannot run the pod now; preemption may help.
	Unschedulable
	// UnschedulableAndUnresolvable: the node cannot run the pod and removing
	// pods from it would not change that (a taint, a selector).
	UnschedulableAndUnresolvable
	// Skip: the plugin has nothing to say for this pod (from PreFilter or
	// PreScore: its Filter or Score is then not called).
	Skip
)

var codeNames = []string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Skip"}

func (c Code) String() string { return codeNames[c] }

// Status is a plugin's answer; nil means Success.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus returns a status with reasons (the texts users see, e.g.
// "Insufficient cpu").
func NewStatus(code Code, reasons ...string) *Status { return &Status{code: code, reasons: reasons} }

// AsStatus wraps an error.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}
func (s *Status) IsSuccess() bool { return s.Code() == Success }
func (s *Status) IsSkip() bool    { return s.Code() == Skip }

// IsRejected: the pod does not fit (as opposed to an error).
func (s *Status) IsRejected() bool {
	return s.Code() == Unschedulable || s.Code() == UnschedulableAndUnresolvable
}
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}
func (s *Status) Message() string { return strings.Join(s.Reasons(), ", ") }

// Plugin is the plugin that returned the status.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin records which plugin said it.
func (s *Status) WithPlugin(name string) *Status {
	if s != nil {
		s.plugin = name
	}
	return s
}

func (s *Status) AsError() error {
	if s.IsSuccess() || s.IsSkip() {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// CycleState is what plugins keep for one pod's scheduling cycle (PreFilter
// writes, Filter reads).
type CycleState struct {
	mu sync.RWMutex
	m  map[string]any
	// SkipFilterPlugins and SkipScorePlugins: plugins that returned Skip
	// from PreFilter or PreScore.
	SkipFilterPlugins map[string]bool
	SkipScorePlugins  map[string]bool
}

func NewCycleState() *CycleState {
	return &CycleState{m: map[string]any{}, SkipFilterPlugins: map[string]bool{}, SkipScorePlugins: map[string]bool{}}
}

func (c *CycleState) Write(key string, v any) {
	c.mu.Lock()
	c.m[key] = v
	c.mu.Unlock()
}

func (c *CycleState) Read(key string) (any, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[key]
	return v, ok
}

// StateData is a CycleState value that a PreFilterExtensions plugin
// changes (AddPod, RemovePod): Clone gives preemption's dry run its own
// copy. Values without Clone are shared (they must not change).
type StateData interface {
	Clone() StateData
}

// Clone copies the state for a "what if" evaluation: preemption removing
// pods from a node, or nominated pods added to it (upstream: CycleState.Clone).
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := &CycleState{m: make(map[string]any, len(c.m)),
		SkipFilterPlugins: c.SkipFilterPlugins, SkipScorePlugins: c.SkipScorePlugins}
	for k, v := range c.m {
		if d, ok := v.(StateData); ok {
			v = d.Clone()
		}
		out.m[k] = v
	}
	return out
}

// NodeScore is one node's score from one plugin (or in total).
type NodeScore struct {
	Name  string
	Score int64
}

// ---- the plugin interfaces, one per extension point ----

type Plugin interface{ Name() string }

// PreEnqueuePlugin decides whether a pod may enter the active queue at
// all; a pod one of them rejects waits, untried, until an update of the pod
// lets it in.
type PreEnqueuePlugin interface {
	Plugin
	PreEnqueue(ctx context.Context, pod *corev1.Pod) *Status
}

type QueueSortPlugin interface {
	Plugin
	Less(a, b *QueuedPodInfo) bool
}

type PreFilterPlugin interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo) *Status
}

// PreFilterExtensions keep a PreFilter plugin's CycleState right when a
// pod is added to or removed from a node during a "what if" evaluation
// (preemption removing victims, nominated pods added). A PreFilter plugin
// whose state counts pods on nodes (inter-pod affinity, topology spread)
// implements PreFilterExtensionsProvider; one whose state depends only on
// the pod being scheduled (NodeResourcesFit) does not need to.
type PreFilterExtensions interface {
	AddPod(ctx context.Context, state *CycleState, podToSchedule, podToAdd *corev1.Pod, node *NodeInfo) *Status
	RemovePod(ctx context.Context, state *CycleState, podToSchedule, podToRemove *corev1.Pod, node *NodeInfo) *Status
}

// PreFilterExtensionsProvider is a PreFilterPlugin with extensions
// (upstream: PreFilterPlugin.PreFilterExtensions, which returns nil when
// there are none).
type PreFilterExtensionsProvider interface {
	PreFilterExtensions() PreFilterExtensions
}

type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, pod *corev1.Pod, node *NodeInfo) *Status
}

// NodeToStatus is the Filter verdict of every node that did not pass.
type NodeToStatus map[string]*Status

type PostFilterPlugin interface {
	Plugin
	// PostFilter runs when no node passed Filter. allNodes is the
	// snapshot; statuses says why each node failed. The result may
	// nominate a node for the pod (preemption made room there).
	PostFilter(ctx context.Context, state *CycleState, pod *corev1.Pod, allNodes []*NodeInfo, statuses NodeToStatus) (*PostFilterResult, *Status)
}

// NominatingMode says what to do with a pod's status.nominatedNodeName
// after a failed scheduling cycle.
type NominatingMode int

const (
	// ModeNoop keeps it as it is.
	ModeNoop NominatingMode = iota
	// ModeOverride sets it to NominatedNodeName ("" clears it).
	ModeOverride
)

// NominatingInfo: the node a pod is nominated to (preemption is freeing
// room for it there).
type NominatingInfo struct {
	NominatedNodeName string
	NominatingMode    NominatingMode
}

// Mode is ModeNoop for nil.
func (ni *NominatingInfo) Mode() NominatingMode {
	if ni == nil {
		return ModeNoop
	}
	return ni.NominatingMode
}

// PostFilterResult is what a PostFilter plugin did for the pod.
type PostFilterResult struct {
	*NominatingInfo
}

// NewPostFilterResultWithNominatedNode nominates nodeName ("" clears the
// nomination).
func NewPostFilterResultWithNominatedNode(nodeName string) *PostFilterResult {
	return &PostFilterResult{&NominatingInfo{NominatedNodeName: nodeName, NominatingMode: ModeOverride}}
}

// PodNominator knows the pods nominated to nodes: pods that preempted
// others and wait for the room to be freed (upstream: framework.PodNominator,
// implemented by the scheduling queue).
type PodNominator interface {
	// NominatedPodsForNode returns the pods nominated to nodeName.
	NominatedPodsForNode(nodeName string) []*corev1.Pod
}

// EventRecorder writes events.k8s.io Events: regarding is the pod the
// event is about, related (may be nil) a second pod involved (the
// preemptor of a victim). Upstream: client-go/tools/events.EventRecorder.
type EventRecorder interface {
	Eventf(regarding, related *corev1.Pod, eventType, reason, action, note string, args ...any)
}

type PreScorePlugin interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo) *Status
}

type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, state *CycleState, pod *corev1.Pod, node *NodeInfo) (int64, *Status)
}

// ScoreNormalizer is the NormalizeScore extension point of a ScorePlugin
// (upstream: ScoreExtensions).
type ScoreNormalizer interface {
	NormalizeScore(ctx context.Context, state *CycleState, pod *corev1.Pod, scores []NodeScore) *Status
}

type ReservePlugin interface {
	Plugin
	Reserve(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status
	Unreserve(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string)
}

type BindPlugin interface {
	Plugin
	// Bind returns Skip to let the next bind plugin do it.
	Bind(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeName string) *Status
}

// DefaultNormalizeScore scales scores so the highest becomes maxPriority
// (reverse: the lowest does), as upstream's helper of the same name.
func DefaultNormalizeScore(maxPriority int64, reverse bool, scores []NodeScore) {
	var max int64
	for _, s := range scores {
		if s.Score > max {
			max = s.Score
		}
	}
	if max == 0 {
		if reverse {
			for i := range scores {
				scores[i].Score = maxPriority
			}
		}
		return
	}
	for i := range scores {
		s := maxPriority * scores[i].Score / max
		if reverse {
			s = maxPriority - s
		}
		scores[i].Score = s
	}
}
