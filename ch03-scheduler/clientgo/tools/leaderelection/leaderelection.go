// Package leaderelection lets several copies of a component run while only
// one works: the copies compete for a Lease (coordination.k8s.io/v1) and
// the holder renews it every RetryPeriod. If the holder stops renewing (it
// died, or lost the apiserver), the others wait LeaseDuration after the last
// renewal they saw and take over. A holder that cannot renew within
// RenewDeadline stops working (OnStoppedLeading) before the others may
// take over, so two never lead at once.
//
// kube-scheduler and kube-controller-manager run with --leader-elect and a
// Lease named after themselves in kube-system:
//
//	kubectl -n kube-system get lease kube-scheduler -o yaml
//
// Times are measured on the local clock from when a change of the Lease was
// observed, never compared with the renewTime written by another machine.
//
// Upstream: k8s.io/client-go/tools/leaderelection.
package leaderelection

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"kubik/ch03-scheduler/clientgo/rest"
)

// ErrLeaderElectionLost is what a component returns when it stopped
// leading while it was still meant to run (upstream's kube-scheduler and
// kube-controller-manager exit with "leaderelection lost"); the chapter
// programs start it again, as the kubelet restarts a static pod.
var ErrLeaderElectionLost = errors.New("leaderelection lost")

// Lost says whether err is ErrLeaderElectionLost.
func Lost(err error) bool { return errors.Is(err, ErrLeaderElectionLost) }

// kube-scheduler's defaults (--leader-elect-lease-duration,
// --leader-elect-renew-deadline, --leader-elect-retry-period).
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	// JitterFactor spreads the candidates' retries: each waits between
	// RetryPeriod and (1+JitterFactor)*RetryPeriod.
	JitterFactor = 1.2
)

var errNotRead = errors.New("leaderelection: update before the lease was read")

// LeaderCallbacks are called as leadership changes.
type LeaderCallbacks struct {
	// OnStartedLeading runs in its own goroutine when this candidate becomes
	// leader; ctx ends when it stops leading.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading is called when Run returns (also if it never led).
	OnStoppedLeading func()
	// OnNewLeader is told each holder this candidate observes (optional).
	OnNewLeader func(identity string)
}

// LeaderElectionConfig configures an elector.
type LeaderElectionConfig struct {
	Lock *LeaseLock
	// LeaseDuration: how long others wait after a renewal before taking over.
	LeaseDuration time.Duration
	// RenewDeadline: how long the leader keeps retrying a renewal before it
	// gives up leading. Less than LeaseDuration.
	RenewDeadline time.Duration
	// RetryPeriod: how often to try to acquire or renew.
	RetryPeriod time.Duration
	Callbacks   LeaderCallbacks
	// ReleaseOnCancel: when ctx ends, give the lease up (holderIdentity "")
	// so another candidate takes over at once instead of after LeaseDuration.
	ReleaseOnCancel bool
	// Name of the election in logs.
	Name   string
	Logger *slog.Logger
}

// LeaderElector runs one candidate.
type LeaderElector struct {
	config LeaderElectionConfig
	log    *slog.Logger

	mu sync.Mutex
	// observedRecord is the last record read or written, observedRawRecord
	// its raw form, observedTime when it was seen to change (local clock).
	observedRecord    LeaderElectionRecord
	observedRawRecord []byte
	observedTime      time.Time
	reportedLeader    string
}

// NewLeaderElector checks the config.
func NewLeaderElector(lec LeaderElectionConfig) (*LeaderElector, error) {
	switch {
	case lec.Lock == nil:
		return nil, errors.New("leaderelection: Lock must not be nil")
	case lec.Lock.Identity == "":
		return nil, errors.New("leaderelection: Lock.Identity must not be empty")
	case lec.LeaseDuration <= lec.RenewDeadline:
		return nil, errors.New("leaderelection: LeaseDuration must be greater than RenewDeadline")
	case lec.RenewDeadline <= time.Duration(JitterFactor*float64(lec.RetryPeriod)):
		return nil, errors.New("leaderelection: RenewDeadline must be greater than RetryPeriod*JitterFactor")
	case lec.RetryPeriod < time.Millisecond:
		return nil, errors.New("leaderelection: RetryPeriod must be positive")
	case lec.LeaseDuration < time.Second:
		return nil, errors.New("leaderelection: LeaseDuration must be at least a second (the Lease stores whole seconds)")
	case lec.Callbacks.OnStartedLeading == nil || lec.Callbacks.OnStoppedLeading == nil:
		return nil, errors.New("leaderelection: OnStartedLeading and OnStoppedLeading are required")
	}
	log := lec.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &LeaderElector{config: lec, log: log.With("lease", lec.Lock.Describe(), "identity", lec.Lock.Identity)}, nil
}

// RunOrDie builds an elector and runs it; it panics on a bad config.
func RunOrDie(ctx context.Context, lec LeaderElectionConfig) {
	le, err := NewLeaderElector(lec)
	if err != nil {
		panic(err)
	}
	le.Run(ctx)
}

// NewIdentity is a candidate identity as upstream makes it: the host name
// and a random suffix, so two copies on one host differ.
func NewIdentity() string {
	host, _ := os.Hostname()
	b := make([]byte, 8)
	crand.Read(b)
	return host + "_" + hex.EncodeToString(b)
}

// Run tries to acquire the lease until ctx ends; once it does, it calls
// OnStartedLeading and renews until ctx ends or a renewal fails past
// RenewDeadline. Then it calls OnStoppedLeading and returns. It does not
// try again: the component exits and its supervisor restarts it, as
// upstream's kube-scheduler does.
func (le *LeaderElector) Run(ctx context.Context) {
	defer le.config.Callbacks.OnStoppedLeading()
	if !le.acquire(ctx) {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go le.config.Callbacks.OnStartedLeading(ctx)
	le.renew(ctx)
}

// IsLeader reports whether this candidate holds the lease, as last observed.
func (le *LeaderElector) IsLeader() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.observedRecord.HolderIdentity == le.config.Lock.Identity
}

// GetLeader is the holder last observed.
func (le *LeaderElector) GetLeader() string {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.observedRecord.HolderIdentity
}

// acquire tries every RetryPeriod (with jitter) until it holds the lease.
func (le *LeaderElector) acquire(ctx context.Context) bool {
	le.log.Info("attempting to acquire leader lease")
	for {
		ok := le.tryAcquireOrRenew(ctx)
		le.maybeReportTransition()
		if ok {
			le.log.Info("successfully acquired lease")
			return true
		}
		if sleep(ctx, jitter(le.config.RetryPeriod)) != nil {
			return false
		}
	}
}

// renew renews every RetryPeriod; a renewal may be retried until
// RenewDeadline. It returns when ctx ends or a renewal failed.
func (le *LeaderElector) renew(ctx context.Context) {
	defer func() {
		if le.config.ReleaseOnCancel {
			le.release()
		}
	}()
	for {
		if sleep(ctx, le.config.RetryPeriod) != nil {
			return
		}
		deadline, cancel := context.WithTimeout(ctx, le.config.RenewDeadline)
		ok := false
		for {
			if ok = le.tryAcquireOrRenew(deadline); ok || sleep(deadline, le.config.RetryPeriod) != nil {
				break
			}
		}
		cancel()
		le.maybeReportTransition()
		if ctx.Err() != nil {
			return
		}
		if !ok {
			le.log.Info("failed to renew lease", "renewDeadline", le.config.RenewDeadline)
			return
		}
	}
}

// tryAcquireOrRenew makes one attempt: create the Lease if there is none,
// take it if it is free or expired, renew it if it is ours.
func (le *LeaderElector) tryAcquireOrRenew(ctx context.Context) bool {
	now := time.Now()
	lock := le.config.Lock
	ler := LeaderElectionRecord{
		HolderIdentity:       lock.Identity,
		LeaseDurationSeconds: int(le.config.LeaseDuration / time.Second),
		RenewTime:            now,
		AcquireTime:          now,
	}

	// 1. Read the Lease; create it if missing.
	old, raw, err := lock.Get(ctx)
	if err != nil {
		if !rest.IsNotFound(err) {
			le.log.Warn("error retrieving lease", "err", err)
			return false
		}
		if err := lock.Create(ctx, ler); err != nil {
			le.log.Warn("error initially creating lease", "err", err)
			return false
		}
		le.setObserved(ler, nil, now)
		return true
	}

	// 2. Has it changed since we last looked? Then its expiry counts from now.
	le.mu.Lock()
	if !bytes.Equal(le.observedRawRecord, raw) {
		le.observedRecord, le.observedRawRecord, le.observedTime = *old, raw, now
	}
	observedTime := le.observedTime
	le.mu.Unlock()
	duration := time.Duration(old.LeaseDurationSeconds) * time.Second
	if old.HolderIdentity != "" && old.HolderIdentity != lock.Identity && observedTime.Add(duration).After(now) {
		le.log.Debug("lease is held by another candidate and has not yet expired", "holder", old.HolderIdentity)
		return false
	}

	// 3. Take or renew it. A renewal keeps acquireTime; a takeover counts a transition.
	if old.HolderIdentity == lock.Identity {
		ler.AcquireTime = old.AcquireTime
		ler.LeaderTransitions = old.LeaderTransitions
	} else {
		ler.LeaderTransitions = old.LeaderTransitions + 1
	}
	if err := lock.Update(ctx, ler); err != nil {
		le.log.Warn("failed to update lease", "err", err)
		return false
	}
	le.setObserved(ler, nil, now)
	return true
}

func (le *LeaderElector) setObserved(ler LeaderElectionRecord, raw []byte, now time.Time) {
	le.mu.Lock()
	defer le.mu.Unlock()
	le.observedRecord, le.observedRawRecord, le.observedTime = ler, raw, now
}

// release gives the lease up: no holder, a one-second duration.
func (le *LeaderElector) release() {
	if !le.IsLeader() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), le.config.RenewDeadline)
	defer cancel()
	le.mu.Lock()
	transitions := le.observedRecord.LeaderTransitions
	le.mu.Unlock()
	now := time.Now()
	ler := LeaderElectionRecord{LeaseDurationSeconds: 1, RenewTime: now, AcquireTime: now, LeaderTransitions: transitions}
	if err := le.config.Lock.Update(ctx, ler); err != nil {
		le.log.Warn("failed to release lease", "err", err)
		return
	}
	le.setObserved(ler, nil, now)
	le.log.Info("released lease")
}

func (le *LeaderElector) maybeReportTransition() {
	le.mu.Lock()
	holder := le.observedRecord.HolderIdentity
	if holder == le.reportedLeader {
		le.mu.Unlock()
		return
	}
	le.reportedLeader = holder
	le.mu.Unlock()
	if holder != "" {
		le.log.Info("new leader observed", "leader", holder)
	}
	if le.config.Callbacks.OnNewLeader != nil {
		go le.config.Callbacks.OnNewLeader(holder)
	}
}

func jitter(d time.Duration) time.Duration {
	return d + time.Duration(rand.Float64()*JitterFactor*float64(d))
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// String describes the config (for logs).
func (lec LeaderElectionConfig) String() string {
	return fmt.Sprintf("lease %s, duration %v, renew deadline %v, retry %v", lec.Lock.Describe(), lec.LeaseDuration, lec.RenewDeadline, lec.RetryPeriod)
}
