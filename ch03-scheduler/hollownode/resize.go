package hollownode

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/scheduler/framework"
)

// In-place pod resize (KEP-1287), as the kubelet's allocation manager does
// it (pkg/kubelet/allocation: handlePodResourcesResize, canResizePod) with
// a runtime that applies new resources at once:
//
//   - the resources the node "allocated" to a container are the ones it
//     last reported in status.containerStatuses[].resources (the kubelet
//     keeps them in a checkpoint file; a hollow node keeps no state of its
//     own, so the pod's status is its checkpoint);
//   - when spec.containers[].resources differ from them (a client patched
//     pods/<name>/resize), the node checks the whole pod's requests: more
//     than the node's allocatable is Infeasible, more than what the other
//     pods leave free is Deferred (both as a PodResizePending condition
//     with upstream's message); otherwise the new resources are in status
//     at once, and no resize condition is left (upstream goes through
//     PodResizeInProgress, which lasts as long as the runtime takes: here,
//     no time at all);
//   - a Deferred resize is tried again when a pod of the node finishes, is
//     deleted or shrinks, as the kubelet retries pending resizes.
//
// resizePolicy RestartContainer is not simulated: every resize is applied
// without a restart. containerStatuses[].allocatedResources is not
// reported: upstream's kubelet writes it only under the
// InPlacePodVerticalScalingAllocatedStatus feature gate, off by default.

// resizableContainers are the containers whose resources may change: the
// regular ones and the restartable init containers (sidecars), as
// allocation.IsResizableContainer.
func resizableContainers(spec *corev1.PodSpec) []corev1.Container {
	var out []corev1.Container
	for _, c := range spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			out = append(out, c)
		}
	}
	return append(out, spec.Containers...)
}

// containerResources is what a container's status reports as its
// resources: its allocated requests and limits (the runtime applied them
// exactly); `resources: {}` when it has none.
func containerResources(c corev1.Container) *corev1.ResourceRequirements {
	return &corev1.ResourceRequirements{Limits: maps.Clone(c.Resources.Limits), Requests: maps.Clone(c.Resources.Requests)}
}

// allocatedPod is the pod with each resizable container's resources as
// the node allocated them (its status' resources; the spec's when the
// status reports none, as for a pod started before resources were
// reported).
func allocatedPod(p *corev1.Pod) *corev1.Pod {
	status := map[string]*corev1.ResourceRequirements{}
	for _, cs := range slices.Concat(p.Status.InitContainerStatuses, p.Status.ContainerStatuses) {
		if cs.Resources != nil {
			status[cs.Name] = cs.Resources
		}
	}
	a := *p
	a.Spec.Containers = slices.Clone(p.Spec.Containers)
	a.Spec.InitContainers = slices.Clone(p.Spec.InitContainers)
	for _, list := range [][]corev1.Container{a.Spec.Containers, a.Spec.InitContainers} {
		for i := range list {
			if r, ok := status[list[i].Name]; ok {
				list[i].Resources = corev1.ResourceRequirements{Limits: r.Limits, Requests: r.Requests, Claims: list[i].Resources.Claims}
			}
		}
	}
	return &a
}

// resizeRequested: the spec asks for resources other than the allocated ones.
func resizeRequested(p *corev1.Pod) bool {
	alloc := allocatedPod(p)
	want, have := resizableContainers(&p.Spec), resizableContainers(&alloc.Spec)
	for i := range want {
		if !sameList(want[i].Resources.Requests, have[i].Resources.Requests) ||
			!sameList(want[i].Resources.Limits, have[i].Resources.Limits) {
			return true
		}
	}
	return false
}

func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, q := range a {
		if o, ok := b[k]; !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}

// canResizePod is the kubelet's check of a resize: the pod's new requests
// against the node's allocatable (Infeasible) and against what the other
// pods' allocations leave (Deferred). An empty reason: it fits.
func canResizePod(p *corev1.Pod, allocatable corev1.ResourceList, others []*corev1.Pod) (reason, message string) {
	req := framework.PodRequests(p)
	cpu, mem := req[corev1.ResourceCPU], req[corev1.ResourceMemory]
	allocCPU, allocMem := allocatable[corev1.ResourceCPU], allocatable[corev1.ResourceMemory]
	switch {
	case mem.Value() > allocMem.Value():
		return corev1.PodReasonInfeasible, fmt.Sprintf("Node didn't have enough capacity: memory, requested: %d, capacity: %d",
			mem.Value(), allocMem.Value())
	case cpu.MilliValue() > allocCPU.MilliValue():
		return corev1.PodReasonInfeasible, fmt.Sprintf("Node didn't have enough capacity: cpu, requested: %d, capacity: %d",
			cpu.MilliValue(), allocCPU.MilliValue())
	}
	var usedCPU, usedMem int64
	for _, o := range others {
		if o.UID == p.UID || o.Status.Phase == corev1.PodSucceeded || o.Status.Phase == corev1.PodFailed {
			continue
		}
		r := framework.PodRequests(allocatedPod(o))
		c, m := r[corev1.ResourceCPU], r[corev1.ResourceMemory]
		usedCPU += c.MilliValue()
		usedMem += m.Value()
	}
	// The kubelet's admission (the scheduler's NodeResourcesFit) checks
	// cpu, then memory, and reports the first that does not fit.
	switch {
	case usedCPU+cpu.MilliValue() > allocCPU.MilliValue():
		return corev1.PodReasonDeferred, fmt.Sprintf("Node didn't have enough resource: cpu, requested: %d, used: %d, capacity: %d",
			cpu.MilliValue(), usedCPU, allocCPU.MilliValue())
	case usedMem+mem.Value() > allocMem.Value():
		return corev1.PodReasonDeferred, fmt.Sprintf("Node didn't have enough resource: memory, requested: %d, used: %d, capacity: %d",
			mem.Value(), usedMem, allocMem.Value())
	}
	return "", ""
}

// resizedStatus is the pod's status after the node looked at its resize:
// the new resources in the containers' statuses when it fits (reason ""),
// or a PodResizePending condition saying why not.
func resizedStatus(p *corev1.Pod, reason, message string, now metav1.Time) corev1.PodStatus {
	st := p.Status
	st.ObservedGeneration = p.Generation
	var old *corev1.PodCondition
	st.Conditions = nil
	for _, c := range p.Status.Conditions {
		switch c.Type {
		case corev1.PodResizePending:
			old = &c
		case corev1.PodResizeInProgress:
		default:
			st.Conditions = append(st.Conditions, c)
		}
	}
	if reason != "" {
		// updatedPodResizeCondition: the transition time moves only when
		// the reason changes.
		c := corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: reason, Message: message,
			LastProbeTime: now, LastTransitionTime: now, ObservedGeneration: p.Generation}
		if old != nil && old.Reason == reason {
			c.LastTransitionTime = old.LastTransitionTime
		}
		st.Conditions = append([]corev1.PodCondition{c}, st.Conditions...)
		return st
	}
	want := map[string]corev1.Container{}
	for _, c := range resizableContainers(&p.Spec) {
		want[c.Name] = c
	}
	st.InitContainerStatuses = slices.Clone(p.Status.InitContainerStatuses)
	st.ContainerStatuses = slices.Clone(p.Status.ContainerStatuses)
	for _, list := range [][]corev1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses} {
		for i := range list {
			if c, ok := want[list[i].Name]; ok {
				list[i].Resources = containerResources(c)
			}
		}
	}
	return st
}

// pendingResize is the pod's PodResizePending condition, if any.
func pendingResize(p *corev1.Pod) *corev1.PodCondition {
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodResizePending {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// syncResize handles a running pod whose resources differ from the
// allocated ones, or whose resize condition is stale (the spec went back
// to what is allocated).
func (n *node) syncResize(ctx context.Context, key string, pod *corev1.Pod) error {
	requested := resizeRequested(pod)
	pending := pendingResize(pod)
	if !requested && pending == nil {
		return nil
	}
	reason, message := "", ""
	if requested {
		reason, message = canResizePod(pod, n.status().Allocatable, n.pods.GetStore().List())
		if pending != nil && pending.Reason == reason && pending.Message == message &&
			pending.ObservedGeneration == pod.Generation {
			return nil // reported already
		}
	}
	p := *pod
	p.Status = resizedStatus(pod, reason, message, metav1.Now())
	if _, err := rest.UpdateStatus(ctx, n.c, &p); err != nil {
		if rest.IsNotFound(err) {
			return nil
		}
		return err
	}
	switch {
	case reason != "":
		n.log.Info("SIMULATED resize pending", "pod", key, "reason", reason, "message", message)
	case requested:
		n.log.Info("SIMULATED resize done", "pod", key, "generation", pod.Generation)
		n.retryDeferredResizes() // a pod that shrank leaves room
	}
	return nil
}

// retryDeferredResizes queues the pods whose resize waits for room.
func (n *node) retryDeferredResizes() {
	for _, p := range n.pods.GetStore().List() {
		if c := pendingResize(p); c != nil && c.Reason == corev1.PodReasonDeferred {
			n.queue.Add(cache.MetaNamespaceKeyFunc(p))
		}
	}
}
