package plugins

import "kubik/ch03-scheduler/scheduler/framework"

// PrioritySort orders the active queue: higher spec.priority first, then
// the pod that has waited longest. Upstream: plugins/queuesort.
type PrioritySort struct{}

func (PrioritySort) Name() string { return "PrioritySort" }

func (PrioritySort) Less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := framework.PodPriority(a.Pod), framework.PodPriority(b.Pod)
	return pa > pb || (pa == pb && a.Timestamp.Before(b.Timestamp))
}
