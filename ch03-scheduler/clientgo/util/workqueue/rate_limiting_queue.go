package workqueue

// RateLimitingQueue retries failed items with a per-item backoff.
// Upstream: workqueue.TypedRateLimitingInterface.
//
// A worker's loop:
//
//	key, shutdown := q.Get()
//	if shutdown { return }
//	if err := reconcile(key); err != nil {
//		q.AddRateLimited(key) // again after 5ms, 10ms, 20ms, ...
//	} else {
//		q.Forget(key) // the next failure starts from 5ms again
//	}
//	q.Done(key)
type RateLimitingQueue[T comparable] struct {
	*DelayingQueue[T]
	limiter RateLimiter[T]
}

// NewRateLimiting returns a rate-limited queue on the real clock.
func NewRateLimiting[T comparable](limiter RateLimiter[T]) *RateLimitingQueue[T] {
	return NewRateLimitingWithClock(limiter, RealClock{})
}

// NewRateLimitingWithClock returns a rate-limited queue on clock.
func NewRateLimitingWithClock[T comparable](limiter RateLimiter[T], clock Clock) *RateLimitingQueue[T] {
	return &RateLimitingQueue[T]{DelayingQueue: NewDelayingWithClock[T](clock), limiter: limiter}
}

// AddRateLimited adds item after the limiter's delay for it.
func (q *RateLimitingQueue[T]) AddRateLimited(item T) {
	q.AddAfter(item, q.limiter.When(item))
}

// NumRequeues is how many times item has been rate-limited since its last Forget.
func (q *RateLimitingQueue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

// Forget clears item's backoff (it succeeded). It does not remove it from the queue.
func (q *RateLimitingQueue[T]) Forget(item T) { q.limiter.Forget(item) }
