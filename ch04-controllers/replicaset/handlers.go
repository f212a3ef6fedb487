package replicaset

import (
	"maps"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
)

// The informers' handlers: they only note what happened (expectations) and
// put the key of the ReplicaSet concerned in the queue.

func (c *ReplicaSetController) addRS(rs *appsv1.ReplicaSet) { c.enqueue(rs) }

func (c *ReplicaSetController) updateRS(old, cur *appsv1.ReplicaSet) {
	if old.UID != cur.UID {
		// Deleted and recreated under the same name between two watch events.
		c.deleteRS(old)
	}
	c.enqueue(cur)
}

func (c *ReplicaSetController) deleteRS(rs *appsv1.ReplicaSet) {
	key := cache.MetaNamespaceKeyFunc(rs)
	c.expectations.DeleteExpectations(key)
	c.queue.Add(key)
}

// resolveControllerRef returns the ReplicaSet ref points to, if it is one
// and still the same object (same UID).
func (c *ReplicaSetController) resolveControllerRef(namespace string, ref *metav1.OwnerReference) *appsv1.ReplicaSet {
	if ref.Kind != c.gvk.Kind {
		return nil
	}
	rs, ok := c.rsLister.Get(namespace, ref.Name)
	if !ok || rs.UID != ref.UID {
		return nil
	}
	return rs
}

// getPodReplicaSets are the ReplicaSets whose selector matches an orphan
// pod: candidates to adopt it.
func (c *ReplicaSetController) getPodReplicaSets(pod *corev1.Pod) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range c.rsLister.List(pod.Namespace) {
		sel, err := selection.FromLabelSelector(rs.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(pod.Labels) {
			continue
		}
		out = append(out, rs)
	}
	return out
}

// addPod: a pod was created; if it is one of ours, one expected creation
// has been observed.
func (c *ReplicaSetController) addPod(pod *corev1.Pod) {
	if pod.DeletionTimestamp != nil {
		// Seen for the first time already being deleted (after a relist).
		c.deletePod(pod)
		return
	}
	if ref := metav1.GetControllerOf(&pod.ObjectMeta); ref != nil {
		rs := c.resolveControllerRef(pod.Namespace, ref)
		if rs == nil {
			return
		}
		key := cache.MetaNamespaceKeyFunc(rs)
		c.expectations.CreationObserved(key)
		c.queue.Add(key)
		return
	}
	// An orphan: whoever matches may adopt it.
	for _, rs := range c.getPodReplicaSets(pod) {
		c.enqueue(rs)
	}
}

// updatePod: labels, owner or readiness changed.
func (c *ReplicaSetController) updatePod(old, cur *corev1.Pod) {
	if cur.ResourceVersion == old.ResourceVersion {
		return // a periodic resync: nothing changed
	}
	labelChanged := !maps.Equal(cur.Labels, old.Labels)
	if cur.DeletionTimestamp != nil {
		// Graceful deletion has begun: the pod no longer counts, so the
		// ReplicaSet may replace it now rather than when it is gone.
		c.deletePod(cur)
		if labelChanged {
			c.deletePod(old)
		}
		return
	}
	curRef, oldRef := metav1.GetControllerOf(&cur.ObjectMeta), metav1.GetControllerOf(&old.ObjectMeta)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if rs := c.resolveControllerRef(old.Namespace, oldRef); rs != nil {
			c.enqueue(rs)
		}
	}
	if curRef != nil {
		rs := c.resolveControllerRef(cur.Namespace, curRef)
		if rs == nil {
			return
		}
		c.enqueue(rs)
		// A pod that became ready is available minReadySeconds later:
		// sync then to update availableReplicas.
		if !controller.IsPodReady(old) && controller.IsPodReady(cur) && rs.Spec.MinReadySeconds > 0 {
			c.queue.AddAfter(cache.MetaNamespaceKeyFunc(rs), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)
		}
		return
	}
	if labelChanged || refChanged {
		for _, rs := range c.getPodReplicaSets(cur) {
			c.enqueue(rs)
		}
	}
}

// deletePod: one expected deletion observed.
func (c *ReplicaSetController) deletePod(pod *corev1.Pod) {
	ref := metav1.GetControllerOf(&pod.ObjectMeta)
	if ref == nil {
		return // orphans have nobody to tell
	}
	rs := c.resolveControllerRef(pod.Namespace, ref)
	if rs == nil {
		return
	}
	key := cache.MetaNamespaceKeyFunc(rs)
	c.expectations.DeletionObserved(key, cache.MetaNamespaceKeyFunc(pod))
	c.queue.Add(key)
}

func sameRef(a, b *metav1.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID && a.Name == b.Name && a.Kind == b.Kind
}
