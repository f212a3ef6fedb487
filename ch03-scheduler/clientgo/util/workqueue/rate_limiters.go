package workqueue

import (
	"math"
	"sync"
	"time"

	"kubik/ch03-scheduler/clientgo/util/flowcontrol"
)

// RateLimiter decides how long an item waits before its next try.
type RateLimiter[T comparable] interface {
	// When returns the delay for item's next try, counting it as one more failure.
	When(item T) time.Duration
	// Forget clears item's history.
	Forget(item T)
	// NumRequeues is how many failures item has had since Forget.
	NumRequeues(item T) int
}

// DefaultControllerRateLimiter is what controllers use: per item, 5ms
// doubling up to 1000s; overall, 10 retries per second with bursts of 100.
func DefaultControllerRateLimiter[T comparable]() RateLimiter[T] {
	return NewMaxOfRateLimiter(
		NewItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		NewBucketRateLimiter[T](10, 100),
	)
}

// ItemExponentialFailureRateLimiter waits base*2^failures, at most max.
type ItemExponentialFailureRateLimiter[T comparable] struct {
	mu       sync.Mutex
	failures map[T]int
	base     time.Duration
	max      time.Duration
}

func NewItemExponentialFailureRateLimiter[T comparable](base, max time.Duration) *ItemExponentialFailureRateLimiter[T] {
	return &ItemExponentialFailureRateLimiter[T]{failures: map[T]int{}, base: base, max: max}
}

func (r *ItemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	exp := r.failures[item]
	r.failures[item]++
	backoff := float64(r.base) * math.Pow(2, float64(exp))
	if backoff > float64(r.max) {
		return r.max
	}
	return time.Duration(backoff)
}

func (r *ItemExponentialFailureRateLimiter[T]) Forget(item T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
}

func (r *ItemExponentialFailureRateLimiter[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// BucketRateLimiter limits retries of all items together with a token
// bucket; it keeps no per-item history.
type BucketRateLimiter[T comparable] struct {
	bucket *flowcontrol.TokenBucket
	now    func() time.Time
}

func NewBucketRateLimiter[T comparable](qps float64, burst int) *BucketRateLimiter[T] {
	return &BucketRateLimiter[T]{bucket: flowcontrol.NewTokenBucketRateLimiter(qps, burst), now: time.Now}
}

func (r *BucketRateLimiter[T]) When(T) time.Duration { return r.bucket.Reserve(r.now()) }
func (r *BucketRateLimiter[T]) Forget(T)             {}
func (r *BucketRateLimiter[T]) NumRequeues(T) int    { return 0 }

// MaxOfRateLimiter waits for the longest delay any of its limiters asks for.
type MaxOfRateLimiter[T comparable] struct {
	limiters []RateLimiter[T]
}

func NewMaxOfRateLimiter[T comparable](limiters ...RateLimiter[T]) *MaxOfRateLimiter[T] {
	return &MaxOfRateLimiter[T]{limiters: limiters}
}

func (r *MaxOfRateLimiter[T]) When(item T) time.Duration {
	var d time.Duration
	for _, l := range r.limiters {
		d = max(d, l.When(item))
	}
	return d
}

func (r *MaxOfRateLimiter[T]) Forget(item T) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

func (r *MaxOfRateLimiter[T]) NumRequeues(item T) int {
	n := 0
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(item))
	}
	return n
}
