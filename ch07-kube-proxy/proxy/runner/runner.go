// Package runner runs a proxier's sync function no more often than
// --iptables-min-sync-period, at least every maxInterval, and again after
// retryInterval when it fails.
//
// Upstream: k8s.io/kubernetes/pkg/proxy/runner (BoundedFrequencyRunner).
package runner

import (
	"log/slog"
	"time"
)

// BoundedFrequencyRunner runs fn when asked (Run), never twice within
// minInterval; when nobody asks, it runs fn every maxInterval; after a
// failed run, it tries again after retryInterval (if that is sooner).
// A Run during the quiet time after a run is remembered and happens as soon
// as minInterval has passed, so a burst of changes costs one sync.
type BoundedFrequencyRunner struct {
	name          string
	fn            func() error
	minInterval   time.Duration
	retryInterval time.Duration
	maxInterval   time.Duration
	run           chan struct{}
	log           *slog.Logger
}

// NewBoundedFrequencyRunner returns a runner; start it with Loop.
func NewBoundedFrequencyRunner(name string, fn func() error, minInterval, retryInterval, maxInterval time.Duration) *BoundedFrequencyRunner {
	if maxInterval < minInterval {
		maxInterval = minInterval
	}
	return &BoundedFrequencyRunner{name: name, fn: fn, minInterval: minInterval, retryInterval: retryInterval,
		maxInterval: maxInterval, run: make(chan struct{}, 1), log: slog.Default().With("component", "kube-proxy", "runner", name)}
}

// Run asks for a run as soon as the minimum interval allows. It never blocks.
func (bfr *BoundedFrequencyRunner) Run() {
	select {
	case bfr.run <- struct{}{}:
	default:
	}
}

// Loop runs fn until stop is closed.
func (bfr *BoundedFrequencyRunner) Loop(stop <-chan struct{}) {
	next := time.NewTimer(bfr.maxInterval)
	defer next.Stop()
	minTimer := time.NewTimer(bfr.minInterval)
	defer minTimer.Stop()
	for {
		select {
		case <-stop:
			return
		case <-next.C:
		case <-bfr.run:
		}
		next.Stop()
		err := bfr.safeRun()
		nextInterval := bfr.maxInterval
		if err != nil && bfr.retryInterval < nextInterval {
			nextInterval = bfr.retryInterval
			bfr.log.Info("Scheduling retry", "interval", nextInterval, "err", err)
		}
		next.Reset(nextInterval)
		minTimer.Reset(bfr.minInterval)
		select {
		case <-stop:
			return
		case <-minTimer.C:
		}
	}
}

func (bfr *BoundedFrequencyRunner) safeRun() (err error) {
	defer func() {
		if r := recover(); r != nil {
			bfr.log.Error("Sync panicked", "panic", r)
			err = errPanic
		}
	}()
	return bfr.fn()
}

type panicError struct{}

func (panicError) Error() string { return "sync function panicked" }

var errPanic error = panicError{}
