// Package plugins holds the scheduler's in-tree plugins with upstream's
// names, messages and scores (pkg/scheduler/framework/plugins in
// kubernetes/kubernetes). Upstream has one package per plugin; here each
// has one file, named after that package (queuesort.go,
// nodeunschedulable.go, nodename.go, nodeports.go, tainttoleration.go,
// nodeaffinity.go, noderesources.go, volumebinding.go,
// podtopologyspread.go, interpodaffinity.go, dynamicresources.go,
// defaultpreemption.go, imagelocality.go, defaultbinder.go,
// schedulinggates.go). Two helpers have files of their own:
// defaultselector.go (upstream's plugins/helper, the sets
// PodTopologySpread's default constraints count in) and preemption_*.go
// (upstream's framework/preemption Evaluator, which DefaultPreemption
// drives).
//
// Default returns chapter 3's default profile: the same plugins and order
// as upstream's, minus the volume plugins that need what Kubik does not
// have (VolumeRestrictions, NodeVolumeLimits, VolumeZone: in-tree and CSI
// volume types).
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
