package flowcontrol

import (
	"testing"
	"time"
)

func TestTokenBucket(t *testing.T) {
	t0 := time.Unix(1000, 0)
	b := NewTokenBucketRateLimiter(10, 3) // 10 per second, bursts of 3
	// The burst goes through at once; the next requests wait 100ms more each.
	for i, want := range []time.Duration{0, 0, 0, 100 * time.Millisecond, 200 * time.Millisecond} {
		if got := b.Reserve(t0); got != want {
			t.Errorf("request %d at t0: wait %v, want %v", i, got, want)
		}
	}
	// Two seconds later the debt of 2 is paid and the bucket is full again (3).
	t1 := t0.Add(2 * time.Second)
	for i, want := range []time.Duration{0, 0, 0, 100 * time.Millisecond} {
		if got := b.Reserve(t1); got != want {
			t.Errorf("request %d at t1: wait %v, want %v", i, got, want)
		}
	}
}
