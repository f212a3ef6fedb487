// Package plugins holds the scheduler's in-tree plugins, one file each,
// with upstream's names, messages and scores (pkg/scheduler/framework/plugins
// in kubernetes/kubernetes). Default returns chapter 3's default profile:
// the same plugins and order as upstream's, minus the volume plugins that
// need what Kubik does not have (VolumeRestrictions, NodeVolumeLimits,
// VolumeZone: in-tree and CSI volume types).
package plugins

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/scheduler/framework"
)

// Default is the default-scheduler profile's plugins, in upstream's order,
// and the Score weights upstream gives them.
func Default(c *rest.Client) ([]framework.Plugin, map[string]int64) {
	return []framework.Plugin{
			SchedulingGates{},
			PrioritySort{},
			NodeUnschedulable{},
			NodeName{},
			TaintToleration{},
			NodeAffinity{},
			NodePorts{},
			NodeResourcesFit{},
			&VolumeBinding{},
			&PodTopologySpread{},
			&InterPodAffinity{HardPodAffinityWeight: corev1.DefaultHardPodAffinitySymmetricWeight},
			DynamicResources{},
			&DefaultPreemption{},
			NodeResourcesBalancedAllocation{},
			ImageLocality{},
			DefaultBinder{Client: c},
		}, map[string]int64{
			"TaintToleration":                 3,
			"NodeAffinity":                    2,
			"NodeResourcesFit":                1,
			"PodTopologySpread":               2,
			"InterPodAffinity":                2,
			"NodeResourcesBalancedAllocation": 1,
			"ImageLocality":                   1,
		}
}
