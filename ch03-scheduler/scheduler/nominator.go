package scheduler

import (
	"sync"
	"sync/atomic"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// nominator remembers the pods nominated to nodes: a pod that preempted
// others has status.nominatedNodeName set and waits, in the queue, for its
// victims to be gone. Until it is bound, the Filter plugins count it on
// that node for every pod of lower or equal priority
// (RunFilterPluginsWithNominatedPods), so that they do not take the room
// being freed. Upstream: backend/queue/nominator.go.
//
// The queue keeps it up to date from the informer (pods added, updated,
// deleted); the scheduler from its own decisions (nominated by preemption,
// assumed on a node).
type nominator struct {
	mu sync.RWMutex
	// nominatedPods: node name -> the pods nominated to it.
	nominatedPods map[string][]*corev1.Pod
	// nominatedPodToNode: pod UID -> its node.
	nominatedPodToNode map[string]string
	// count is len(nominatedPodToNode), read without the lock: the common
	// case, nothing nominated, costs the Filter loop one atomic load.
	count atomic.Int64
	// podExists (may be nil) says whether the pod still exists unbound
	// (upstream: the pod lister check); a pod deleted or bound meanwhile is
	// not nominated.
	podExists func(*corev1.Pod) bool
}

var _ framework.PodNominator = (*nominator)(nil)

func newNominator(podExists func(*corev1.Pod) bool) *nominator {
	return &nominator{nominatedPods: map[string][]*corev1.Pod{}, nominatedPodToNode: map[string]string{},
		podExists: podExists}
}

// AddNominatedPod records pod's nomination: with ModeOverride the node in
// ni ("" clears it), otherwise the pod's own status.nominatedNodeName.
func (n *nominator) AddNominatedPod(pod *corev1.Pod, ni *framework.NominatingInfo) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.addLocked(pod, ni)
}

func (n *nominator) addLocked(pod *corev1.Pod, ni *framework.NominatingInfo) {
	// Never more than one entry per pod.
	n.deleteLocked(pod)
	nodeName := pod.Status.NominatedNodeName
	if ni.Mode() == framework.ModeOverride {
		nodeName = ni.NominatedNodeName
	}
	if nodeName == "" {
		return
	}
	if n.podExists != nil && !n.podExists(pod) {
		return
	}
	n.nominatedPodToNode[pod.UID] = nodeName
	n.nominatedPods[nodeName] = append(n.nominatedPods[nodeName], pod)
	n.count.Store(int64(len(n.nominatedPodToNode)))
}

// UpdateNominatedPod: the informer reports a new version of a pending pod.
// The nomination follows status.nominatedNodeName, except that a nomination
// made by this scheduler and not yet visible in the pod's status (the
// status patch is still on its way) is kept.
func (n *nominator) UpdateNominatedPod(oldPod, newPod *corev1.Pod) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var ni *framework.NominatingInfo
	if oldPod.Status.NominatedNodeName == "" && newPod.Status.NominatedNodeName == "" {
		if nodeName, ok := n.nominatedPodToNode[oldPod.UID]; ok {
			ni = &framework.NominatingInfo{NominatedNodeName: nodeName, NominatingMode: framework.ModeOverride}
		}
	}
	// Even when nothing changed: the entry must point at the new version.
	n.deleteLocked(oldPod)
	n.addLocked(newPod, ni)
}

// DeleteNominatedPodIfExists forgets pod's nomination (it was deleted, or
// assumed on a node).
func (n *nominator) DeleteNominatedPodIfExists(pod *corev1.Pod) {
	if n.count.Load() == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.deleteLocked(pod)
}

func (n *nominator) deleteLocked(pod *corev1.Pod) {
	nodeName, ok := n.nominatedPodToNode[pod.UID]
	if !ok {
		return
	}
	delete(n.nominatedPodToNode, pod.UID)
	pods := n.nominatedPods[nodeName]
	for i, p := range pods {
		if p.UID == pod.UID {
			pods = append(pods[:i:i], pods[i+1:]...)
			break
		}
	}
	if len(pods) == 0 {
		delete(n.nominatedPods, nodeName)
	} else {
		n.nominatedPods[nodeName] = pods
	}
	n.count.Store(int64(len(n.nominatedPodToNode)))
}

// NominatedPodsForNode returns a copy of the pods nominated to nodeName.
func (n *nominator) NominatedPodsForNode(nodeName string) []*corev1.Pod {
	if n.count.Load() == 0 {
		return nil
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	return append([]*corev1.Pod(nil), n.nominatedPods[nodeName]...)
}

// nominatedNodeFor returns the node pod is nominated to ("" if none).
func (n *nominator) nominatedNodeFor(pod *corev1.Pod) string {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.nominatedPodToNode[pod.UID]
}
