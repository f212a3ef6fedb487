package plugins

import (
	"context"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// DynamicResources is upstream's plugin for Dynamic Resource Allocation
// (resource.k8s.io: ResourceClaims, DeviceClasses, ResourceSlices), enabled
// by default since DRA went GA in 1.34. The apiserver serves
// resource.k8s.io/v1, but Kubik's pods carry no spec.resourceClaims and
// nothing allocates devices, so every pod takes the plugin's path for a
// pod without claims: Filter and Score are skipped, and
// PostFilter — which could free a claim allocated elsewhere — answers
// "no new claims to deallocate". That answer is part of every
// FailedScheduling message of a real 1.34+ cluster:
//
//	0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: ...
//
// It runs before DefaultPreemption, as upstream orders them.
// Upstream: plugins/dynamicresources.
type DynamicResources struct{}

func (DynamicResources) Name() string { return "DynamicResources" }

func (DynamicResources) PostFilter(_ context.Context, _ *framework.CycleState, _ *corev1.Pod, _ []*framework.NodeInfo, _ framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	return nil, framework.NewStatus(framework.Unschedulable, "no new claims to deallocate")
}
