package workqueue

import (
	"container/heap"
	"time"
)

// DelayingQueue can add an item later: AddAfter(key, 5*time.Second).
// Upstream: workqueue.TypedDelayingInterface.
type DelayingQueue[T comparable] struct {
	*Queue[T]
	clock   Clock
	stopCh  chan struct{}
	stopped bool
	adds    chan waitFor[T]
}

type waitFor[T comparable] struct {
	item    T
	readyAt time.Time
}

// NewDelaying returns a delaying queue on the real clock.
func NewDelaying[T comparable]() *DelayingQueue[T] { return NewDelayingWithClock[T](RealClock{}) }

// NewDelayingWithClock returns a delaying queue on clock (a FakeClock in tests).
func NewDelayingWithClock[T comparable](clock Clock) *DelayingQueue[T] {
	q := &DelayingQueue[T]{Queue: New[T](), clock: clock, stopCh: make(chan struct{}), adds: make(chan waitFor[T], 1000)}
	go q.waitingLoop()
	return q
}

// ShutDown stops the queue and its waiting loop.
func (q *DelayingQueue[T]) ShutDown() {
	q.Queue.ShutDown()
	q.stop()
}

// ShutDownWithDrain stops the queue once the items handed out are Done.
func (q *DelayingQueue[T]) ShutDownWithDrain() {
	q.Queue.ShutDownWithDrain()
	q.stop()
}

func (q *DelayingQueue[T]) stop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.stopped {
		q.stopped = true
		close(q.stopCh)
	}
}

// AddAfter adds item once duration has passed (at once if it is not positive).
func (q *DelayingQueue[T]) AddAfter(item T, duration time.Duration) {
	if q.ShuttingDown() {
		return
	}
	if duration <= 0 {
		q.Add(item)
		return
	}
	select {
	case <-q.stopCh:
	case q.adds <- waitFor[T]{item: item, readyAt: q.clock.Now().Add(duration)}:
	}
}

// waitingLoop holds the delayed items, earliest first, and adds each to the
// queue when its time comes. An item added twice waits for the earlier time.
func (q *DelayingQueue[T]) waitingLoop() {
	waiting := &waitHeap[T]{}
	byItem := map[T]*waitEntry[T]{}
	for {
		if q.ShuttingDown() {
			return
		}
		now := q.clock.Now()
		for waiting.Len() > 0 && !(*waiting)[0].readyAt.After(now) {
			e := heap.Pop(waiting).(*waitEntry[T])
			delete(byItem, e.item)
			q.Add(e.item)
		}
		var next <-chan time.Time
		if waiting.Len() > 0 {
			next = q.clock.After((*waiting)[0].readyAt.Sub(now))
		}
		select {
		case <-q.stopCh:
			return
		case <-next:
		case w := <-q.adds:
			if e, ok := byItem[w.item]; ok {
				if w.readyAt.Before(e.readyAt) {
					e.readyAt = w.readyAt
					heap.Fix(waiting, e.index)
				}
				continue
			}
			e := &waitEntry[T]{item: w.item, readyAt: w.readyAt}
			heap.Push(waiting, e)
			byItem[w.item] = e
		}
	}
}

type waitEntry[T comparable] struct {
	item    T
	readyAt time.Time
	index   int
}

// waitHeap orders entries by readyAt (container/heap.Interface).
type waitHeap[T comparable] []*waitEntry[T]

func (h waitHeap[T]) Len() int           { return len(h) }
func (h waitHeap[T]) Less(i, j int) bool { return h[i].readyAt.Before(h[j].readyAt) }
func (h waitHeap[T]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waitHeap[T]) Push(x any) {
	e := x.(*waitEntry[T])
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *waitHeap[T]) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
