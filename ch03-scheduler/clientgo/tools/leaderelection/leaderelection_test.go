package leaderelection_test

import (
	"context"
	"fmt"
	"kubik/internal/testenv"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/leaderelection"
	"kubik/internal/clienttest"
)

// candidate is one elector and what its callbacks said.
type candidate struct {
	id      string
	cancel  context.CancelFunc
	started chan struct{} // closed by OnStartedLeading
	stopped chan struct{} // closed by OnStoppedLeading
	leadCtx chan context.Context
}

func start(t *testing.T, c *rest.Client, id string, release bool) *candidate {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	cand := &candidate{id: id, cancel: cancel, started: make(chan struct{}), stopped: make(chan struct{}), leadCtx: make(chan context.Context, 1)}
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &leaderelection.LeaseLock{Namespace: "kube-system", Name: "kube-scheduler", Client: c, Identity: id},
		// Short times so the test is quick; the Lease stores whole seconds.
		LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 200 * time.Millisecond,
		ReleaseOnCancel: release,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { cand.leadCtx <- ctx; close(cand.started) },
			OnStoppedLeading: func() { close(cand.stopped) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	go le.Run(ctx)
	t.Cleanup(func() { cancel(); <-cand.stopped })
	return cand
}

func lease(t *testing.T, c *rest.Client) *coordinationv1.Lease {
	t.Helper()
	l, err := rest.Get[coordinationv1.Lease](t.Context(), c, "kube-system", "kube-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// first waits until one of cands leads and returns it and the others.
func first(t *testing.T, cands ...*candidate) (*candidate, []*candidate) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		for i, c := range cands {
			select {
			case <-c.started:
				rest := append(append([]*candidate{}, cands[:i]...), cands[i+1:]...)
				return c, rest
			default:
			}
		}
		select {
		case <-deadline:
			t.Fatal("nobody became leader in 20s")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func notLeading(t *testing.T, c *candidate) {
	t.Helper()
	select {
	case <-c.started:
		t.Fatalf("%s leads too", c.id)
	default:
	}
}

// Two schedulers, one lease: one leads; when it stops renewing, the other
// takes over once the lease has expired.
func TestFailover(t *testing.T) {
	env := clienttest.Start(t, nil)
	sched := env.Client(t, pki.Scheduler) // both candidates are system:kube-scheduler, as two replicas are
	a := start(t, sched, "scheduler-a", false)
	b := start(t, sched, "scheduler-b", false)

	leader, others := first(t, a, b)
	follower := others[0]
	l := lease(t, sched)
	if *l.Spec.HolderIdentity != leader.id || *l.Spec.LeaseDurationSeconds != 2 || *l.Spec.LeaseTransitions != 0 ||
		l.Spec.AcquireTime == nil || l.Spec.RenewTime == nil {
		t.Fatalf("lease spec after the first election: %+v", l.Spec)
	}
	// The leader renews; the follower waits: two renewals later (each one
	// after a retry of the follower's) it still does not lead.
	for range 2 {
		renewed := l.Spec.RenewTime.Time
		testenv.Eventually(t, "the leader renews its lease", 20*time.Second, func() (string, bool) {
			l = lease(t, sched)
			return fmt.Sprintf("%+v", l.Spec), l.Spec.RenewTime.After(renewed) && *l.Spec.HolderIdentity == leader.id
		})
	}
	notLeading(t, follower)

	// The leader stops (without releasing): its work is cancelled, and the
	// follower takes over after the lease expires.
	lctx := <-leader.leadCtx
	leader.cancel()
	<-leader.stopped
	<-lctx.Done()
	select {
	case <-follower.started:
	case <-time.After(20 * time.Second):
		t.Fatal("the follower did not take over")
	}
	l = lease(t, sched)
	if *l.Spec.HolderIdentity != follower.id || *l.Spec.LeaseTransitions != 1 {
		t.Fatalf("lease after failover: holder %q transitions %d", *l.Spec.HolderIdentity, *l.Spec.LeaseTransitions)
	}
}

// With ReleaseOnCancel the leader gives the lease up as it stops, so the
// other candidate need not wait for it to expire.
func TestReleaseOnCancel(t *testing.T) {
	env := clienttest.Start(t, nil)
	sched := env.Client(t, pki.Scheduler)
	a := start(t, sched, "scheduler-a", true)
	leader, _ := first(t, a)
	leader.cancel()
	<-leader.stopped
	l := lease(t, sched)
	if *l.Spec.HolderIdentity != "" || *l.Spec.LeaseDurationSeconds != 1 {
		t.Fatalf("released lease: holder %q duration %d", *l.Spec.HolderIdentity, *l.Spec.LeaseDurationSeconds)
	}
	b := start(t, sched, "scheduler-b", true)
	leader, _ = first(t, b)
	if l = lease(t, sched); *l.Spec.HolderIdentity != "scheduler-b" || *l.Spec.LeaseTransitions != 1 {
		t.Fatalf("lease after takeover: %+v", l.Spec)
	}
}

func TestConfigValidation(t *testing.T) {
	ok := leaderelection.LeaderElectionConfig{
		Lock:          &leaderelection.LeaseLock{Namespace: "kube-system", Name: "x", Identity: "me"},
		LeaseDuration: leaderelection.DefaultLeaseDuration, RenewDeadline: leaderelection.DefaultRenewDeadline,
		RetryPeriod: leaderelection.DefaultRetryPeriod,
		Callbacks:   leaderelection.LeaderCallbacks{OnStartedLeading: func(context.Context) {}, OnStoppedLeading: func() {}},
	}
	if _, err := leaderelection.NewLeaderElector(ok); err != nil {
		t.Fatalf("defaults rejected: %v", err)
	}
	bad := ok
	bad.RenewDeadline = bad.LeaseDuration
	if _, err := leaderelection.NewLeaderElector(bad); err == nil {
		t.Error("RenewDeadline == LeaseDuration accepted")
	}
	bad = ok
	bad.Lock = &leaderelection.LeaseLock{Namespace: "kube-system", Name: "x"}
	if _, err := leaderelection.NewLeaderElector(bad); err == nil {
		t.Error("empty identity accepted")
	}
}
