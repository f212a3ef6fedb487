// Package leaderelectiontest holds what the failover tests of every
// component with --leader-elect share (kube-scheduler here,
// kube-controller-manager in chapter 4): two processes compete for one
// Lease; one leads; when it dies, the other takes over.
package leaderelectiontest

import (
	"regexp"
	"testing"
	"time"

	"kubik/internal/testenv"
)

// acquiredRe finds the identity with which a process took the lease
// (package leaderelection logs it).
var acquiredRe = regexp.MustCompile(`msg="successfully acquired lease".* identity=(\S+)`)

// Acquired is the identity with which p says it acquired the lease; "" if
// it has not.
func Acquired(p *testenv.Process) string { return p.LogMatch(acquiredRe) }

// WaitForLeader waits up to 30 s until one of a and b has acquired the
// lease and is its holder (holder reads spec.holderIdentity), and returns
// that one and the other.
func WaitForLeader(t *testing.T, what string, holder func() string, a, b *testenv.Process) (leader, standby *testenv.Process) {
	t.Helper()
	testenv.Eventually(t, what, 30*time.Second, func() (string, bool) {
		h := holder()
		for _, p := range []*testenv.Process{a, b} {
			if id := Acquired(p); id != "" && id == h {
				leader = p
			}
		}
		return h + "\n--- a:\n" + a.Logs.String() + "\n--- b:\n" + b.Logs.String(), leader != nil
	})
	standby = a
	if leader == a {
		standby = b
	}
	return leader, standby
}

// WaitForTakeover waits up to 60 s (the dead leader's lease must run out)
// until standby has acquired the lease and holds it.
func WaitForTakeover(t *testing.T, holder func() string, standby *testenv.Process) {
	t.Helper()
	testenv.Eventually(t, "the standby takes the lease", 60*time.Second, func() (string, bool) {
		h := holder()
		return h + "\n--- standby:\n" + standby.Logs.String(), Acquired(standby) != "" && h == Acquired(standby)
	})
}
