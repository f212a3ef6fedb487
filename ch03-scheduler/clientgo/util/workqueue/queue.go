// Package workqueue is the queue between an informer's event handlers and a
// controller's workers. Handlers Add keys ("namespace/name"); workers Get a
// key, reconcile that object, and call Done. Its rules make controllers
// simple:
//
//   - a key waiting in the queue is there once, however often it is added
//     (ten updates of one pod before a worker gets to it: one reconcile);
//   - a key being processed is never handed to a second worker; if it is
//     added meanwhile, it is queued again when Done is called;
//   - a key that failed is retried later with AddRateLimited: after 5ms,
//     10ms, 20ms, ... per key, until Forget.
//
// Upstream: k8s.io/client-go/util/workqueue (Typed, TypedDelayingInterface,
// TypedRateLimitingInterface).
package workqueue

import "sync"

// Queue is the basic queue. Upstream: workqueue.Typed.
type Queue[T comparable] struct {
	mu   sync.Mutex
	cond *sync.Cond
	// queue is the order to hand keys out in; every key in it is in dirty.
	queue []T
	// dirty: keys that need processing (queued, or added while processing).
	dirty map[T]struct{}
	// processing: keys a worker has and has not called Done on.
	processing   map[T]struct{}
	shuttingDown bool
	drain        bool
}

// New returns an empty queue.
func New[T comparable]() *Queue[T] {
	q := &Queue[T]{dirty: map[T]struct{}{}, processing: map[T]struct{}{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Add marks item as needing processing.
func (q *Queue[T]) Add(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	if _, ok := q.dirty[item]; ok {
		return // already waiting
	}
	q.dirty[item] = struct{}{}
	if _, ok := q.processing[item]; ok {
		return // Done will queue it again
	}
	q.queue = append(q.queue, item)
	q.cond.Signal()
}

// Len is the number of items waiting (not those being processed).
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue)
}

// Get blocks until an item is ready and returns it; the caller must call
// Done(item) when finished. shutdown is true once the queue is shut down
// and empty: the worker should return.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue) == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	if len(q.queue) == 0 {
		var zero T
		return zero, true
	}
	item = q.queue[0]
	var zero T
	q.queue[0] = zero
	q.queue = q.queue[1:]
	q.processing[item] = struct{}{}
	delete(q.dirty, item)
	return item, false
}

// Done says the worker is finished with item. If it was added while being
// processed, it is queued again now.
func (q *Queue[T]) Done(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, item)
	if _, ok := q.dirty[item]; ok {
		q.queue = append(q.queue, item)
		q.cond.Signal()
	} else if len(q.processing) == 0 {
		q.cond.Broadcast() // ShutDownWithDrain may be waiting
	}
}

// ShutDown makes Get return shutdown=true once the queue is empty and
// ignores later Adds.
func (q *Queue[T]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shuttingDown = true
	q.drain = false
	q.cond.Broadcast()
}

// ShutDownWithDrain is ShutDown that also waits until every item handed out
// has been marked Done.
func (q *Queue[T]) ShutDownWithDrain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shuttingDown = true
	q.drain = true
	q.cond.Broadcast()
	for len(q.processing) > 0 && q.drain {
		q.cond.Wait()
	}
}

// ShuttingDown reports whether ShutDown was called.
func (q *Queue[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}
