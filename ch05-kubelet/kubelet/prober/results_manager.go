package prober

import (
	"sync"

	"kubik/ch01-apiserver/api/corev1"
)

// result is what the kubelet holds per container and probe type
// (upstream's results.Result).
type result int

const (
	resultUnknown result = iota
	resultSuccess
	resultFailure
)

func (r result) String() string {
	switch r {
	case resultSuccess:
		return "Success"
	case resultFailure:
		return "Failure"
	}
	return "UNKNOWN"
}

// resultsCache holds one probe type's verdict per container ID and
// reports changes (upstream's results.Manager; its updates channel is our
// onUpdate: the pod is synced again).
type resultsCache struct {
	mu       sync.RWMutex
	results  map[string]result // container ID -> verdict
	onUpdate func(pod *corev1.Pod)
}

func newResultsCache(onUpdate func(*corev1.Pod)) *resultsCache {
	return &resultsCache{results: map[string]result{}, onUpdate: onUpdate}
}

func (c *resultsCache) get(id string) (result, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.results[id]
	return r, ok
}

// set caches r for container id of pod; a change syncs the pod.
func (c *resultsCache) set(id string, r result, pod *corev1.Pod) {
	c.mu.Lock()
	prev, ok := c.results[id]
	c.results[id] = r
	c.mu.Unlock()
	if (!ok || prev != r) && c.onUpdate != nil {
		c.onUpdate(pod)
	}
}

func (c *resultsCache) remove(id string) {
	c.mu.Lock()
	delete(c.results, id)
	c.mu.Unlock()
}
