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
}

type podState struct {
	pod     *corev1.Pod
	assumed bool
}

func NewCache() *Cache {
	return &Cache{nodes: map[string]*framework.NodeInfo{}, pods: map[string]*podState{}}
}

func (c *Cache) nodeInfo(name string) *framework.NodeInfo {
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

// Snapshot copies the known nodes for one scheduling cycle, by name.
func (c *Cache) Snapshot() []*framework.NodeInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*framework.NodeInfo, 0, len(c.nodes))
	for _, n := range c.nodes {
		if n.Node != nil {
			out = append(out, n.Clone())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}
