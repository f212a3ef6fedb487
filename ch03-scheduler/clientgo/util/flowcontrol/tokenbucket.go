// Package flowcontrol limits how fast a client sends requests: a token
// bucket, shared by the REST client (--kube-api-qps, --kube-api-burst) and
// the work queue's overall rate limit. Upstream:
// k8s.io/client-go/util/flowcontrol.
package flowcontrol

import (
	"context"
	"sync"
	"time"
)

// TokenBucket holds up to burst tokens and gains qps of them per second;
// every request takes one, waiting when none is left.
type TokenBucket struct {
	mu     sync.Mutex
	qps    float64
	burst  float64
	tokens float64   // may go negative: requests already promised a future token
	last   time.Time // when tokens was last brought up to date
}

// NewTokenBucketRateLimiter returns a full bucket.
func NewTokenBucketRateLimiter(qps float64, burst int) *TokenBucket {
	return &TokenBucket{qps: qps, burst: float64(burst), tokens: float64(burst)}
}

// Reserve takes a token at time now and says how long to wait until it is
// really there (0: at once).
func (b *TokenBucket) Reserve(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.last.IsZero() {
		b.tokens += now.Sub(b.last).Seconds() * b.qps
	}
	if b.tokens > b.burst {
		b.tokens = b.burst
	}
	b.last = now
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.qps * float64(time.Second))
}

// Wait blocks until a token is available or ctx ends.
func (b *TokenBucket) Wait(ctx context.Context) error {
	d := b.Reserve(time.Now())
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		b.mu.Lock()
		b.tokens++ // give the promised token back
		b.mu.Unlock()
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
