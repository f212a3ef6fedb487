package scheduler

import (
	"sort"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// Cache is the scheduler's picture of the nodes and what runs on them: the
// pods bound to them (from the informer) plus the pods it has decided on
// but not yet bound ("assumed"), so that the next cycle, which starts
// before the binding is written, counts them. Upstream: internal/cache.
type Cache struct {
	mu    sync.Mutex
	nodes map[string]*framework.NodeInfo
	pods  map[string]*podState // by UID

	// dirty: the nodes changed since the last Snapshot; only they are
	// copied again (upstream: UpdateSnapshot and the NodeInfo generations).
	// A cycle then costs no copy of the thousands of nodes that did not
	// change.
	dirty    map[string]bool
	snapshot snapshot
}

// snapshot is the last Snapshot: a read-only copy of each node, by name
// and sorted. Its NodeInfos are never modified, so later snapshots share
// the ones whose node did not change.
type snapshot struct {
	byName map[string]*framework.NodeInfo
	list   []*framework.NodeInfo
}

type podState struct {
	pod     *corev1.Pod
	assumed bool
}

func NewCache() *Cache {
	return &Cache{nodes: map[string]*framework.NodeInfo{}, pods: map[string]*podState{},
		dirty: map[string]bool{}, snapshot: snapshot{byName: map[string]*framework.NodeInfo{}}}
}

// nodeInfo returns the node's entry, to be changed: the node is marked
// dirty.
func (c *Cache) nodeInfo(name string) *framework.NodeInfo {
	c.dirty[name] = true
	n, ok := c.nodes[name]
	if !ok {
		n = framework.NewNodeInfo(nil) // pods may arrive before their node
		c.nodes[name] = n
	}
	return n
}

func (c *Cache) AddOrUpdateNode(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodeInfo(node.Name).SetNode(node)
}

func (c *Cache) RemoveNode(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.nodes[node.Name]; ok {
		c.dirty[node.Name] = true
		n.SetNode(nil)
		if len(n.Pods) == 0 {
			delete(c.nodes, node.Name)
		}
	}
}

// AssumePod counts pod (with spec.nodeName set) on its node before the
// binding is written.
func (c *Cache) AssumePod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pods[string(pod.UID)] = &podState{pod: pod, assumed: true}
	c.nodeInfo(pod.Spec.NodeName).AddPod(pod)
}

// ForgetPod undoes AssumePod (the binding failed).
func (c *Cache) ForgetPod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.pods[string(pod.UID)]; ok && s.assumed {
		c.removeLocked(s.pod)
	}
}

// AddOrUpdatePod: the informer reports a pod bound to a node (it may be
// an assumed pod, now confirmed).
func (c *Cache) AddOrUpdatePod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.pods[string(pod.UID)]; ok {
		c.removeLocked(s.pod)
	}
	c.pods[string(pod.UID)] = &podState{pod: pod}
	c.nodeInfo(pod.Spec.NodeName).AddPod(pod)
}

func (c *Cache) RemovePod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.pods[string(pod.UID)]; ok {
		c.removeLocked(s.pod)
	}
}

func (c *Cache) removeLocked(pod *corev1.Pod) {
	delete(c.pods, string(pod.UID))
	if n, ok := c.nodes[pod.Spec.NodeName]; ok {
		c.dirty[pod.Spec.NodeName] = true
		n.RemovePod(pod)
		if n.Node == nil && len(n.Pods) == 0 {
			delete(c.nodes, pod.Spec.NodeName)
		}
	}
}

// IsAssumed reports whether the pod is assumed and not yet bound.
func (c *Cache) IsAssumed(pod *corev1.Pod) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.pods[string(pod.UID)]
	return ok && s.assumed
}

// Snapshot returns the known nodes for one scheduling cycle, by name: a
// copy the cycle may read while the cache changes. The caller must not
// modify the NodeInfos (clone one to try something on it).
func (c *Cache) Snapshot() []*framework.NodeInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	snap := &c.snapshot
	listChanged := false
	for name := range c.dirty {
		n, ok := c.nodes[name]
		_, had := snap.byName[name]
		if !ok || n.Node == nil {
			delete(snap.byName, name)
			listChanged = listChanged || had
			continue
		}
		snap.byName[name] = n.Clone()
		listChanged = listChanged || !had
	}
	if listChanged {
		snap.list = make([]*framework.NodeInfo, 0, len(snap.byName))
		for _, n := range snap.byName {
			snap.list = append(snap.list, n)
		}
		sort.Slice(snap.list, func(i, j int) bool { return snap.list[i].Name() < snap.list[j].Name() })
	} else if len(c.dirty) > 0 {
		for i, n := range snap.list {
			if c.dirty[n.Name()] {
				snap.list[i] = snap.byName[n.Name()]
			}
		}
	}
	clear(c.dirty)
	// A new slice: the previous cycle's may still be read.
	return append([]*framework.NodeInfo(nil), snap.list...)
}
