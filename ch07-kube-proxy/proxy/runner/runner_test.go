package runner

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// TestBoundedFrequencyRunner: requested runs happen, never closer together
// than minInterval, a burst of requests costs one extra run, and a failed
// run is retried after retryInterval without a request.
func TestBoundedFrequencyRunner(t *testing.T) {
	var mu sync.Mutex
	var runs []time.Time
	fail := true
	ran := make(chan struct{}, 100)
	fn := func() error {
		mu.Lock()
		runs = append(runs, time.Now())
		f := fail
		fail = false
		mu.Unlock()
		ran <- struct{}{}
		if f {
			return errors.New("first run fails")
		}
		return nil
	}
	const minInterval = 200 * time.Millisecond
	r := NewBoundedFrequencyRunner("test", fn, minInterval, 300*time.Millisecond, time.Hour)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { r.Loop(stop); close(done) }()
	defer func() { close(stop); <-done }()

	wait := func(what string) {
		t.Helper()
		select {
		case <-ran:
		case <-time.After(30 * time.Second):
			t.Fatalf("no run: %s", what)
		}
	}
	r.Run()
	wait("first request")
	// The failure is retried without a request.
	wait("retry after the failure")
	// A burst during the quiet time: one more run.
	for i := 0; i < 5; i++ {
		r.Run()
	}
	wait("burst")

	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(runs); i++ {
		if d := runs[i].Sub(runs[i-1]); d < minInterval {
			t.Errorf("runs %d and %d only %v apart, want at least %v", i-1, i, d, minInterval)
		}
	}
}
