package scheduler

import (
	"reflect"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// assigned: the pod is bound to a node (upstream: assignedPod).
func assigned(p *corev1.Pod) bool { return p.Spec.NodeName != "" }

// addEventHandlers connects the informers to the queue and the cache.
// Upstream: eventhandlers.go.
func (s *Scheduler) addEventHandlers() {
	s.pods.AddEventHandler(cache.FilteringResourceEventHandler[corev1.Pod]{
		FilterFunc: func(p *corev1.Pod) bool { return !assigned(p) && p.Spec.SchedulerName == s.name },
		Handler: cache.ResourceEventHandlerFuncs[corev1.Pod]{
			AddFunc:    s.queue.Add,
			UpdateFunc: s.queue.Update,
			DeleteFunc: s.queue.Delete,
		},
	})
	s.pods.AddEventHandler(cache.FilteringResourceEventHandler[corev1.Pod]{
		FilterFunc: assigned,
		Handler: cache.ResourceEventHandlerFuncs[corev1.Pod]{
			AddFunc: func(p *corev1.Pod) {
				s.cache.AddOrUpdatePod(p)
				// A new pod on a node can satisfy another pod's affinity or
				// change a spread's skew.
				s.queue.MovePodsRejectedBy("AssignedPodAdd", podAddOrLabelPlugins...)
			},
			UpdateFunc: func(old, p *corev1.Pod) {
				s.cache.AddOrUpdatePod(p)
				if !reflect.DeepEqual(old.Labels, p.Labels) {
					s.queue.MovePodsRejectedBy("AssignedPodUpdate", podAddOrLabelPlugins...)
				}
			},
			DeleteFunc: func(p *corev1.Pod) {
				s.cache.RemovePod(p)
				s.queue.MoveAllToActiveOrBackoffQueue("AssignedPodDelete") // room freed
			},
		},
	})
	s.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc: func(n *corev1.Node) {
			s.cache.AddOrUpdateNode(n)
			s.queue.MoveAllToActiveOrBackoffQueue("NodeAdd")
		},
		UpdateFunc: func(old, n *corev1.Node) {
			s.cache.AddOrUpdateNode(n)
			if nodeSchedulingPropertiesChanged(old, n) {
				s.queue.MoveAllToActiveOrBackoffQueue("NodeUpdate")
			}
		},
		DeleteFunc: func(n *corev1.Node) {
			s.cache.RemoveNode(n)
			// One domain fewer may lower a spread's minimum.
			s.queue.MovePodsRejectedBy("NodeDelete", "PodTopologySpread")
		},
	})
	s.pvcs.AddEventHandler(volumeEvents[corev1.PersistentVolumeClaim](s, "PersistentVolumeClaim"))
	s.pvs.AddEventHandler(volumeEvents[corev1.PersistentVolume](s, "PersistentVolume"))
	s.storageClasses.AddEventHandler(volumeEvents[storagev1.StorageClass](s, "StorageClass"))
}

// volumeEvents: a claim, a volume or a class added or changed may let a
// pod VolumeBinding rejected in (a claim bound by the PersistentVolume
// controller, most often).
func volumeEvents[T any](s *Scheduler, kind string) cache.ResourceEventHandlerFuncs[T] {
	return cache.ResourceEventHandlerFuncs[T]{
		AddFunc:    func(*T) { s.queue.MovePodsRejectedBy(kind+"Add", "VolumeBinding") },
		UpdateFunc: func(_, _ *T) { s.queue.MovePodsRejectedBy(kind+"Update", "VolumeBinding") },
	}
}

// podAddOrLabelPlugins are the plugins whose verdict another pod's arrival
// (or new labels) can turn around: the ones that look at the pods already
// on nodes by their labels. Upstream: each plugin's EventsToRegister.
var podAddOrLabelPlugins = []string{"InterPodAffinity", "PodTopologySpread"}

// nodeSchedulingPropertiesChanged ignores heartbeats: only what a plugin
// looks at counts.
func nodeSchedulingPropertiesChanged(a, b *corev1.Node) bool {
	return a.Spec.Unschedulable != b.Spec.Unschedulable || !reflect.DeepEqual(a.Spec.Taints, b.Spec.Taints) ||
		!reflect.DeepEqual(a.Labels, b.Labels) || !reflect.DeepEqual(a.Status.Allocatable, b.Status.Allocatable)
}
