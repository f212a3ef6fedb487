package scheduler

import (
	"container/heap"

	"kubik/ch03-scheduler/scheduler/framework"
)

// activeQueue is the activeQ: a heap ordered by the QueueSort plugin, with
// an index by pod key, so that adding, taking the first and removing a pod
// cost O(log n) even with thousands of pods waiting (upstream:
// internal/heap).
type activeQueue struct {
	items []*framework.QueuedPodInfo
	keys  []string       // keys[i] is items[i]'s pod key
	index map[string]int // pod key -> position in items
	less  func(a, b *framework.QueuedPodInfo) bool
}

func newActiveQueue(less func(a, b *framework.QueuedPodInfo) bool) *activeQueue {
	return &activeQueue{index: map[string]int{}, less: less}
}

// add queues p, replacing the pod of the same key if it is there.
func (q *activeQueue) add(p *framework.QueuedPodInfo) {
	k := key(p.Pod)
	if i, ok := q.index[k]; ok {
		q.items[i] = p
		heap.Fix((*activeHeap)(q), i)
		return
	}
	heap.Push((*activeHeap)(q), keyed{k, p})
}

// get is the queued pod of key k, if any.
func (q *activeQueue) get(k string) (*framework.QueuedPodInfo, bool) {
	if i, ok := q.index[k]; ok {
		return q.items[i], true
	}
	return nil, false
}

func (q *activeQueue) remove(k string) {
	if i, ok := q.index[k]; ok {
		heap.Remove((*activeHeap)(q), i)
	}
}

// pop takes the first pod by QueueSort.
func (q *activeQueue) pop() *framework.QueuedPodInfo {
	return heap.Pop((*activeHeap)(q)).(keyed).p
}

func (q *activeQueue) len() int { return len(q.items) }

type keyed struct {
	k string
	p *framework.QueuedPodInfo
}

// activeHeap is activeQueue seen by container/heap.
type activeHeap activeQueue

func (h *activeHeap) Len() int           { return len(h.items) }
func (h *activeHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *activeHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.keys[i], h.keys[j] = h.keys[j], h.keys[i]
	h.index[h.keys[i]], h.index[h.keys[j]] = i, j
}
func (h *activeHeap) Push(x any) {
	e := x.(keyed)
	h.index[e.k] = len(h.items)
	h.items = append(h.items, e.p)
	h.keys = append(h.keys, e.k)
}
func (h *activeHeap) Pop() any {
	n := len(h.items) - 1
	e := keyed{h.keys[n], h.items[n]}
	h.items[n] = nil
	h.items, h.keys = h.items[:n], h.keys[:n]
	delete(h.index, e.k)
	return e
}
