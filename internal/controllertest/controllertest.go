// Package controllertest runs a controller's sync function against a real
// chapter 1 apiserver started in-process (ch03-scheduler/client/clienttest):
// fixtures are created through the API, the controller's informers fill
// their caches from it, and a test calls the sync function and checks the
// API objects that result. Nothing is faked but the clock, where a
// controller takes one.
package controllertest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/clienttest"
)

// Env is an apiserver, an admin client for fixtures, and the context a
// controller is built with (acting as system:kube-controller-manager).
type Env struct {
	*clienttest.Env
	Admin *rest.Client
	CC    *controller.ControllerContext
	Ctx   context.Context
}

// New starts the apiserver; Start must be called after the controller's
// constructor ran.
func New(t *testing.T) *Env {
	t.Helper()
	e := clienttest.Start(t, nil)
	cm := e.Client(t, pki.ControllerManager)
	log := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &Env{Env: e, Admin: e.Client(t, pki.Admin), Ctx: ctx,
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

// Eventually calls f until it returns true; the informers are asynchronous,
// so a test waits for what it caused to reach the cache. It fails the test
// with what after a generous minute (a hang, not a timing assertion).
func Eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
