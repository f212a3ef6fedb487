// Package controllertest runs a controller's sync function against a real
// chapter 1 apiserver started in-process (internal/clienttest), in the
// style of upstream's kubernetes/sample-controller tests: fixtures in,
// actions out. Fixtures are created through the API, the controller's
// informers fill their caches from it, a test calls the sync function and
// checks both the API objects that result and the actions the
// controller's client sent (ExpectWrites: "no extra writes, exactly one
// status update"). Nothing is faked but the clock, where a controller
// takes one.
package controllertest

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/clienttest"
	"kubik/internal/testenv"
)

// Env is an apiserver, an admin client for fixtures, and the context a
// controller is built with (acting as system:kube-controller-manager,
// through a client whose requests Actions records).
type Env struct {
	*clienttest.Env
	Admin   *rest.Client
	CC      *controller.ControllerContext
	Ctx     context.Context
	Actions *clienttest.Recorder
}

// New starts the apiserver; Start must be called after the controller's
// constructor ran.
func New(t *testing.T) *Env {
	t.Helper()
	return NewWithOptions(t, nil)
}

// NewWithOptions is New with the apiserver's options changed by modify
// first (the garbage collector's tests set EnableGarbageCollector).
func NewWithOptions(t *testing.T, modify func(*app.Options)) *Env {
	t.Helper()
	e := clienttest.StartWithOptions(t, nil, modify)
	cm, rec := e.RecordingClient(t, pki.ControllerManager)
	log := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &Env{Env: e, Admin: e.Client(t, pki.Admin), Ctx: ctx, Actions: rec,
		CC: &controller.ControllerContext{Client: cm, Informers: controller.NewSharedInformers(cm, log), Log: log}}
}

// Start runs the informers and waits until they have listed.
func (e *Env) Start(t *testing.T) {
	t.Helper()
	e.CC.Informers.Start(e.Ctx)
	if !e.CC.Informers.WaitForCacheSync(e.Ctx) {
		t.Fatal("informers did not sync")
	}
}

// Timeout is how long Eventually waits: generous, as it only turns a hang
// into a failure.
const Timeout = time.Minute

// Eventually is testenv.Eventually for a condition without a report: the
// informers are asynchronous, so a test waits for what it caused to reach
// the cache.
func Eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	testenv.Eventually(t, what, Timeout, func() (string, bool) { return "not yet", f() })
}

// ClearActions forgets what the controller's client sent so far: call it
// right before the sync whose writes ExpectWrites checks.
func (e *Env) ClearActions() { e.Actions.ClearActions() }

// ExpectWrites fails the test unless the controller's client wrote exactly
// want since ClearActions, in any order, reads and Events aside (see
// clienttest.Recorder.Writes); each want is an Action's String ("create
// pods default", "update replicasets/status default/web"). No want: the
// sync wrote nothing.
func (e *Env) ExpectWrites(t *testing.T, want ...string) {
	t.Helper()
	var got []string
	for _, a := range e.Actions.Writes() {
		got = append(got, a.String())
	}
	want = slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("writes of the controller's client:\n got: %s\nwant: %s", list(got), list(want))
	}
}

func list(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, "; ")
}
