package app

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Group runs one chapter's components, each in a goroutine of its own,
// under one context. A component that ends with an error other than the
// context's reports it on the cluster's error channel (the program then
// stops); Stop cancels the context and waits until every component has
// returned. Every chapter's Cluster holds the Group of its own components
// and stops it before the previous chapter's: the components before the
// apiserver, the apiserver before etcd.
type Group struct {
	ctx    context.Context
	cancel context.CancelFunc
	errc   chan<- error
	wg     sync.WaitGroup
}

// NewGroup is a group whose components run until parent ends or Stop.
// A chapter gives it context.WithoutCancel of its own context: on Ctrl-C
// the chapters are stopped one after another, the last one's components
// first, not all at once (a scheduler stopped after the apiserver could not
// release its Lease).
func NewGroup(parent context.Context, errc chan<- error) *Group {
	ctx, cancel := context.WithCancel(parent)
	return &Group{ctx: ctx, cancel: cancel, errc: errc}
}

// Context is the context the group's components run under.
func (g *Group) Context() context.Context { return g.ctx }

// Go runs a component: run should return when its context ends.
func (g *Group) Go(run func(ctx context.Context) error) {
	g.wg.Go(func() {
		err := run(g.ctx)
		if err != nil && !errors.Is(err, context.Canceled) && g.ctx.Err() == nil {
			select {
			case g.errc <- err:
			default: // another error is already waiting: one is enough to stop
			}
		}
	})
}

// GoRestarted runs a component as the kubelet runs a static pod with
// restartPolicy Always: when run returns an error that restart accepts (a
// lost leader election: upstream's kube-scheduler and
// kube-controller-manager exit with it, and the kubelet starts them again),
// the component is logged and run again after RestartDelay; any other
// error stops the program, as with Go.
func (g *Group) GoRestarted(log *slog.Logger, restart func(error) bool, run func(ctx context.Context) error) {
	g.Go(func(ctx context.Context) error {
		for {
			err := run(ctx)
			if err == nil || ctx.Err() != nil || !restart(err) {
				return err
			}
			log.Warn("component exited; restarting it", "err", err, "after", RestartDelay)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(RestartDelay):
			}
		}
	})
}

// RestartDelay is how long GoRestarted waits before a restart: the
// kubelet's first back-off of a container that exited.
var RestartDelay = 10 * time.Second

// Stop cancels the components' context and waits for all of them.
func (g *Group) Stop() {
	g.cancel()
	g.wg.Wait()
}

// Wait blocks until ctx ends (Ctrl-C, SIGTERM: a clean exit) or a component
// reports an error, which it returns.
func Wait(ctx context.Context, errc <-chan error) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		return err
	}
}
