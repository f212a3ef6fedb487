package workqueue

import (
	"testing"
	"time"
)

// The overall bucket and the per-item backoff together: the longer delay
// wins. The bucket reads a stopped clock, so its delays are exact.
func TestMaxOfRateLimiter(t *testing.T) {
	clock := NewFakeClock(time.Unix(1000, 0))
	bucket := NewBucketRateLimiter[string](1, 2) // one retry per second, bursts of 2
	bucket.now = clock.Now
	r := NewMaxOfRateLimiter(NewItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second), bucket)
	for i, want := range []time.Duration{
		time.Millisecond, time.Millisecond, // the burst: the item's own backoff
		time.Second, // the bucket is empty: a second for the next token
	} {
		item := string(rune('a' + i))
		if d := r.When(item); d != want {
			t.Fatalf("retry %d (%s): wait %v, want %v", i+1, item, d, want)
		}
	}
	// Two seconds on, the third retry's token is paid and one is left.
	clock.Step(2 * time.Second)
	if d := r.When("d"); d != time.Millisecond {
		t.Fatalf("two seconds later: wait %v, want the item's 1ms", d)
	}
}
