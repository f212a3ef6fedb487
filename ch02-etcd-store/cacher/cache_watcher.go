package cacher

import (
	"context"
	"strings"
	"sync"

	"kubik/ch01-apiserver/storage"
)

// cacheWatcher is one watch served from a watchCache (upstream's name). The
// cache puts events into input without waiting (see watchCache.dispatch);
// run replays the events from the ring first, then forwards input to out,
// the channel the apiserver reads.
type cacheWatcher struct {
	prefix string // only keys under it
	from   int64  // only events after this revision
	input  chan storage.Event
	out    chan storage.Event
	done   chan struct{} // closed by stop
	once   sync.Once
}

func newCacheWatcher(prefix string, from int64, buffer int) *cacheWatcher {
	return &cacheWatcher{prefix: prefix, from: from, input: make(chan storage.Event, buffer),
		out: make(chan storage.Event), done: make(chan struct{})}
}

// wants tells whether ev is for this watcher.
func (w *cacheWatcher) wants(ev storage.Event) bool {
	return ev.KV.ModRevision > w.from && strings.HasPrefix(ev.KV.Key, w.prefix)
}

// stop ends the watch: out is closed, whatever is still buffered is dropped.
func (w *cacheWatcher) stop() { w.once.Do(func() { close(w.done) }) }

func (w *cacheWatcher) run(ctx context.Context, replay []storage.Event) {
	defer close(w.out)
	defer w.stop()
	send := func(ev storage.Event) bool {
		select {
		case w.out <- ev:
			return true
		case <-ctx.Done():
		case <-w.done:
		}
		return false
	}
	for _, ev := range replay {
		if !send(ev) {
			return
		}
	}
	for {
		select {
		case ev := <-w.input:
			if !send(ev) {
				return
			}
		case <-ctx.Done():
			return
		case <-w.done:
			return
		}
	}
}
