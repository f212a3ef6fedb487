package app

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

// TestGoRestarted: a component that ends with an error restart accepts is
// run again (here twice, then it runs until stopped); one that ends with
// another error stops the program, as with Go.
func TestGoRestarted(t *testing.T) {
	defer func(d time.Duration) { RestartDelay = d }(RestartDelay)
	RestartDelay = time.Millisecond
	errLost, errBroken := errors.New("leaderelection lost"), errors.New("broken")
	restart := func(err error) bool { return errors.Is(err, errLost) }

	errc := make(chan error, 1)
	g := NewGroup(context.Background(), errc)
	var runs atomic.Int32
	running := make(chan struct{})
	g.GoRestarted(slog.New(slog.DiscardHandler), restart, func(ctx context.Context) error {
		if runs.Add(1) <= 2 {
			return errLost
		}
		close(running)
		<-ctx.Done()
		return nil
	})
	<-running
	g.Stop()
	if n := runs.Load(); n != 3 {
		t.Errorf("runs: %d, want 3 (two restarts)", n)
	}
	select {
	case err := <-errc:
		t.Errorf("a restarted component reported %v", err)
	default:
	}

	g = NewGroup(context.Background(), errc)
	g.GoRestarted(slog.New(slog.DiscardHandler), restart, func(ctx context.Context) error { return errBroken })
	if err := <-errc; !errors.Is(err, errBroken) {
		t.Errorf("got %v, want %v", err, errBroken)
	}
	g.Stop()
}
