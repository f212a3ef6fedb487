package plugins

import (
	"context"
	"math"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// NodeResourcesFit: Filter keeps the nodes with room for the pod's requests
// (allocatable minus what the pods there request); Score is the default
// LeastAllocated strategy: the emptier the node, the higher. Upstream:
// plugins/noderesources/fit.go, least_allocated.go.
type NodeResourcesFit struct{}

func (NodeResourcesFit) Name() string { return "NodeResourcesFit" }

const preFilterStateKey = "PreFilterNodeResourcesFit"

// PreFilter computes the pod's requests once.
func (NodeResourcesFit) PreFilter(_ context.Context, state *framework.CycleState, pod *corev1.Pod, _ []*framework.NodeInfo) *framework.Status {
	state.Write(preFilterStateKey, framework.NewResource(framework.PodRequests(pod)))
	return nil
}

func podRequest(state *framework.CycleState, pod *corev1.Pod) framework.Resource {
	if v, ok := state.Read(preFilterStateKey); ok {
		return v.(framework.Resource)
	}
	return framework.NewResource(framework.PodRequests(pod))
}

// Filter: the pod's requests must fit in what the node has left. When the
// pod asks for more than the node's whole allocatable, evicting pods cannot
// help: UnschedulableAndUnresolvable, so preemption skips the node.
func (NodeResourcesFit) Filter(_ context.Context, state *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	req := podRequest(state, pod)
	if reasons := InsufficientResources(req, n); len(reasons) > 0 {
		code := framework.Unschedulable
		if exceedsAllocatable(req, n) {
			code = framework.UnschedulableAndUnresolvable
		}
		return framework.NewStatus(code, reasons...)
	}
	return nil
}

// exceedsAllocatable: some request is larger than the node's allocatable
// (upstream: InsufficientResource.Unresolvable).
func exceedsAllocatable(req framework.Resource, n *framework.NodeInfo) bool {
	if req.MilliCPU > n.Allocatable.MilliCPU || req.Memory > n.Allocatable.Memory ||
		req.EphemeralStorage > n.Allocatable.EphemeralStorage {
		return true
	}
	for name, q := range req.ScalarResources {
		if q > n.Allocatable.ScalarResources[name] {
			return true
		}
	}
	return false
}

// InsufficientResources lists upstream's reasons, in its order: "Too many
// pods", "Insufficient cpu", "Insufficient memory", "Insufficient
// ephemeral-storage", "Insufficient <extended resource>".
func InsufficientResources(req framework.Resource, n *framework.NodeInfo) []string {
	var reasons []string
	if int64(len(n.Pods))+1 > n.Allocatable.AllowedPodNumber {
		reasons = append(reasons, "Too many pods")
	}
	free := func(alloc, used int64) int64 { return alloc - used }
	if req.MilliCPU > 0 && req.MilliCPU > free(n.Allocatable.MilliCPU, n.Requested.MilliCPU) {
		reasons = append(reasons, "Insufficient cpu")
	}
	if req.Memory > 0 && req.Memory > free(n.Allocatable.Memory, n.Requested.Memory) {
		reasons = append(reasons, "Insufficient memory")
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > free(n.Allocatable.EphemeralStorage, n.Requested.EphemeralStorage) {
		reasons = append(reasons, "Insufficient ephemeral-storage")
	}
	for name, q := range req.ScalarResources {
		if q > 0 && q > free(n.Allocatable.ScalarResources[name], n.Requested.ScalarResources[name]) {
			reasons = append(reasons, "Insufficient "+string(name))
		}
	}
	return reasons
}

// nonZeroRequests is what PreScore computes once per cycle for Score,
// which runs on every feasible node (upstream: preScoreState.podRequests).
type nonZeroRequests struct{ milliCPU, memory int64 }

const preScoreFitKey = "PreScoreNodeResourcesFit"

// PreScore computes the pod's requests, with the defaults for containers
// that ask for nothing, once for all the nodes to score.
func (NodeResourcesFit) PreScore(_ context.Context, state *framework.CycleState, pod *corev1.Pod, _ []*framework.NodeInfo) *framework.Status {
	cpu, mem := framework.NonZeroRequests(pod)
	state.Write(preScoreFitKey, nonZeroRequests{cpu, mem})
	return nil
}

// Score (LeastAllocated): per resource (cpu, memory; weight 1 each)
// (allocatable - requested) * 100 / allocatable, with the pod counted and
// the defaults for containers that request nothing; then the weighted mean.
func (NodeResourcesFit) Score(_ context.Context, state *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	var cpu, mem int64
	if v, ok := state.Read(preScoreFitKey); ok {
		r := v.(nonZeroRequests)
		cpu, mem = r.milliCPU, r.memory
	} else {
		cpu, mem = framework.NonZeroRequests(pod)
	}
	least := func(requested, alloc int64) int64 {
		if alloc == 0 || requested > alloc {
			return 0
		}
		return (alloc - requested) * framework.MaxNodeScore / alloc
	}
	s := least(n.NonZeroRequested.MilliCPU+cpu, n.Allocatable.MilliCPU) + least(n.NonZeroRequested.Memory+mem, n.Allocatable.Memory)
	return s / 2, nil
}

// NodeResourcesBalancedAllocation prefers nodes where the pod leaves CPU
// and memory used in the same proportion: score = (1 - std) * 100 over the
// fractions requested/allocatable. Pods that request nothing are skipped.
// Upstream: plugins/noderesources/balanced_allocation.go.
type NodeResourcesBalancedAllocation struct{}

func (NodeResourcesBalancedAllocation) Name() string { return "NodeResourcesBalancedAllocation" }

const preScoreBalancedKey = "PreScoreNodeResourcesBalancedAllocation"

// PreScore computes the pod's requests once for all the nodes to score.
func (NodeResourcesBalancedAllocation) PreScore(_ context.Context, state *framework.CycleState, pod *corev1.Pod, _ []*framework.NodeInfo) *framework.Status {
	r := framework.NewResource(framework.PodRequests(pod))
	if r.MilliCPU == 0 && r.Memory == 0 {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(preScoreBalancedKey, r)
	return nil
}

func (NodeResourcesBalancedAllocation) Score(_ context.Context, state *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	var r framework.Resource
	if v, ok := state.Read(preScoreBalancedKey); ok {
		r = v.(framework.Resource)
	} else {
		r = framework.NewResource(framework.PodRequests(pod))
	}
	fraction := func(requested, alloc int64) float64 {
		if alloc == 0 {
			return 0
		}
		return math.Min(float64(requested)/float64(alloc), 1)
	}
	fc := fraction(n.Requested.MilliCPU+r.MilliCPU, n.Allocatable.MilliCPU)
	fm := fraction(n.Requested.Memory+r.Memory, n.Allocatable.Memory)
	std := math.Abs(fc-fm) / 2 // the standard deviation of two values
	return int64((1 - std) * float64(framework.MaxNodeScore)), nil
}
