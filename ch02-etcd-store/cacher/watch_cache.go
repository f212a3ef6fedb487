package cacher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/storage"
)

// watchCache is the cache of one resource prefix: upstream's watchCache and
// the reflector that fills it, in one. It lists the prefix, watches it from
// the list's revision and applies every event to objects, records it in the
// ring and hands it to the watchers.
type watchCache struct {
	prefix     string
	underlying storage.Interface
	opts       Options
	log        *slog.Logger

	mu      sync.RWMutex
	ready   bool          // listed and watching
	readyCh chan struct{} // closed when ready becomes true
	// rev: objects are the state of the prefix at this revision — every
	// change up to it has been applied, none after it.
	rev     int64
	objects map[string]storage.KeyValue
	keys    []string // the keys of objects, sorted, for lists and pagination
	ring    eventRing
	// oldest: every event after this revision is in the ring; a watch from
	// an older revision cannot be served (ErrCompacted).
	oldest   int64
	watchers map[*cacheWatcher]struct{}
}

func newWatchCache(prefix string, underlying storage.Interface, opts Options, log *slog.Logger) *watchCache {
	return &watchCache{prefix: prefix, underlying: underlying, opts: opts, log: log.With("prefix", prefix),
		readyCh: make(chan struct{}), ring: eventRing{capacity: opts.RingSize}, watchers: map[*cacheWatcher]struct{}{}}
}

// run keeps the cache filled until ctx ends: list and watch, and when the
// watch ends (etcd compacted past it, lost its leader, restarted), tell the
// watchers and start again.
func (wc *watchCache) run(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for {
		err := wc.listAndWatch(ctx)
		wc.reset()
		if ctx.Err() != nil {
			return
		}
		wc.log.Info("watch cache restarts", "err", err, "after", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// listAndWatch reads the whole prefix in pages at one revision, watches it
// from that revision and applies the events until the watch ends.
func (wc *watchCache) listAndWatch(ctx context.Context) error {
	objects := map[string]storage.KeyValue{}
	var keys []string
	opts := storage.ListOptions{Limit: 1000}
	for {
		page, err := wc.underlying.List(ctx, wc.prefix, opts)
		if err != nil {
			return fmt.Errorf("list: %w", err)
		}
		for _, kv := range page.KVs {
			objects[kv.Key] = kv
			keys = append(keys, kv.Key) // pages come sorted
		}
		opts.Revision = page.Revision
		if !page.More {
			break
		}
		opts.StartAfter = page.KVs[len(page.KVs)-1].Key
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := wc.underlying.Watch(wctx, wc.prefix, opts.Revision)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}

	wc.mu.Lock()
	wc.objects, wc.keys, wc.rev = objects, keys, opts.Revision
	wc.ring.clear()
	wc.oldest = opts.Revision
	wc.ready = true
	close(wc.readyCh)
	wc.mu.Unlock()
	wc.log.Debug("watch cache ready", "objects", len(objects), "revision", opts.Revision)

	for ev := range events {
		wc.apply(ev)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return errors.New("the watch ended")
}

// reset marks the cache not ready and ends every watch served from it: their
// clients watch again from their last resourceVersion.
func (wc *watchCache) reset() {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if wc.ready {
		wc.ready = false
		wc.readyCh = make(chan struct{})
	}
	for w := range wc.watchers {
		w.stop()
	}
	clear(wc.watchers)
}

func (wc *watchCache) waitReady(ctx context.Context) error {
	wc.mu.RLock()
	ch := wc.readyCh
	wc.mu.RUnlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("watch cache of %s is not ready: %w", wc.prefix, ctx.Err())
	}
}

// apply records one event from the store and fans it out.
func (wc *watchCache) apply(ev storage.Event) {
	ev.Cache = &storage.EventCache{} // one per event, shared by every watcher
	wc.mu.Lock()
	defer wc.mu.Unlock()
	key := ev.KV.Key
	_, existed := wc.objects[key]
	switch {
	case ev.Type == storage.EventDelete:
		delete(wc.objects, key)
		if i, found := slices.BinarySearch(wc.keys, key); found {
			wc.keys = slices.Delete(wc.keys, i, i+1)
		}
	default:
		wc.objects[key] = ev.KV
		if !existed {
			i, _ := slices.BinarySearch(wc.keys, key)
			wc.keys = slices.Insert(wc.keys, i, key)
		}
	}
	wc.rev = ev.KV.ModRevision
	if dropped, ok := wc.ring.push(ev); ok {
		wc.oldest = max(wc.oldest, dropped.KV.ModRevision)
	}
	wc.dispatch(ev)
}

// dispatch hands ev to every watcher it is for. A watcher whose buffer is
// full gets a moment to make room — all of them together at most
// DispatchTimeout per event — and is terminated after that: one slow client
// must not hold up the rest (upstream does the same). Called with mu held.
func (wc *watchCache) dispatch(ev storage.Event) {
	var budget *time.Timer
	expired := false
	for w := range wc.watchers {
		if !w.wants(ev) {
			continue
		}
		select {
		case w.input <- ev:
			continue
		default:
		}
		if !expired {
			if budget == nil {
				budget = time.NewTimer(wc.opts.DispatchTimeout)
				defer budget.Stop()
			}
			select {
			case w.input <- ev:
				continue
			case <-w.done:
				continue
			case <-budget.C:
				expired = true
			}
		}
		wc.log.Info("terminating a slow watcher", "watch", w.prefix, "buffered", len(w.input))
		w.stop()
		delete(wc.watchers, w)
	}
}

// compact forgets the events up to and including rev.
func (wc *watchCache) compact(rev int64) {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	for wc.ring.len() > 0 && wc.ring.at(0).KV.ModRevision <= rev {
		wc.ring.dropOldest()
	}
	wc.oldest = max(wc.oldest, rev)
}

// list serves a list from memory when the cache can answer it exactly as
// the store would (ok false: ask the store):
//   - Revision 0 with AllowStale: the cache's state, whatever its revision;
//   - Revision 0 (a consistent read): when the cache has seen the store's
//     current revision. Otherwise it cannot know whether events are still on
//     their way, and the store answers (upstream asks etcd for a progress
//     notification and waits instead);
//   - Revision R: when R is the cache's revision (the next pages of a
//     list that the cache answered, if nothing changed in between).
func (wc *watchCache) list(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, bool) {
	wc.mu.RLock()
	ready, rev := wc.ready, wc.rev
	wc.mu.RUnlock()
	if !ready {
		return storage.ListResult{}, false
	}
	var need int64 // the revision the cache must be at, exactly or at least
	switch {
	case opts.Revision > 0:
		if opts.Revision != rev {
			return storage.ListResult{}, false
		}
		need = opts.Revision
	case !opts.AllowStale:
		cur, err := wc.underlying.CurrentRevision(ctx)
		if err != nil || cur > rev {
			return storage.ListResult{}, false
		}
		need = cur
	}
	wc.mu.RLock()
	defer wc.mu.RUnlock()
	if !wc.ready || wc.rev < need || (opts.Revision > 0 && wc.rev != opts.Revision) {
		return storage.ListResult{}, false
	}
	return wc.listLocked(prefix, opts), true
}

// get reads one key (ok false: the cache is not ready or has no such key).
func (wc *watchCache) get(key string) (storage.KeyValue, bool) {
	wc.mu.RLock()
	defer wc.mu.RUnlock()
	kv, ok := wc.objects[key]
	if !wc.ready || !ok {
		return storage.KeyValue{}, false
	}
	kv.Value = slices.Clone(kv.Value) // the caller owns what it reads
	return kv, true
}

// listLocked reads a page of keys under prefix, as storage.Memory does.
func (wc *watchCache) listLocked(prefix string, opts storage.ListOptions) storage.ListResult {
	lo, _ := slices.BinarySearch(wc.keys, prefix)
	keys := wc.keys[lo:]
	keys = keys[:sort.Search(len(keys), func(i int) bool { return !strings.HasPrefix(keys[i], prefix) })]
	if opts.StartAfter != "" {
		i, found := slices.BinarySearch(keys, opts.StartAfter)
		if found {
			i++
		}
		keys = keys[i:]
	}
	res := storage.ListResult{Revision: wc.rev}
	if opts.Limit > 0 && int64(len(keys)) > opts.Limit {
		res.More = true
		res.Remaining = int64(len(keys)) - opts.Limit
		keys = keys[:opts.Limit]
	}
	res.KVs = make([]storage.KeyValue, len(keys))
	for i, k := range keys {
		kv := wc.objects[k]
		kv.Value = slices.Clone(kv.Value) // the caller owns what it reads
		res.KVs[i] = kv
	}
	return res
}

// watch starts a cacheWatcher for the keys under prefix after fromRevision
// (0: from the store's current revision). ok false: the cache is not ready,
// ask the store.
func (wc *watchCache) watch(ctx context.Context, prefix string, from int64) (<-chan storage.Event, bool, error) {
	wc.mu.RLock()
	ready, rev := wc.ready, wc.rev
	wc.mu.RUnlock()
	if !ready {
		return nil, false, nil
	}
	if from == 0 || from > rev {
		// "From now" is the store's current revision, which the cache may not
		// have seen yet; so may a revision a client got from a list that the
		// store answered. Events up to it are skipped when they arrive.
		cur, err := wc.underlying.CurrentRevision(ctx)
		if err != nil {
			return nil, true, err
		}
		if from > cur {
			return nil, true, storage.ErrFutureRevision
		}
		if from == 0 {
			from = cur
		}
	}

	wc.mu.Lock()
	if !wc.ready {
		wc.mu.Unlock()
		return nil, false, nil
	}
	if from < wc.oldest {
		wc.mu.Unlock()
		return nil, true, storage.ErrCompacted // upstream: "too old resource version"
	}
	w := newCacheWatcher(prefix, from, wc.opts.WatcherBuffer)
	var replay []storage.Event
	for i := range wc.ring.len() {
		if ev := wc.ring.at(i); w.wants(ev) {
			replay = append(replay, ev)
		}
	}
	wc.watchers[w] = struct{}{}
	wc.mu.Unlock()

	go func() {
		w.run(ctx, replay)
		wc.mu.Lock()
		delete(wc.watchers, w)
		wc.mu.Unlock()
	}()
	return w.out, true, nil
}

// eventRing keeps the last capacity events, oldest first. Its buffer is
// allocated on first use: most resources never see an event.
type eventRing struct {
	capacity int
	buf      []storage.Event
	start, n int // the oldest event is buf[start]; n events are kept
}

// push appends ev; when the ring is full it drops the oldest event and returns it.
func (r *eventRing) push(ev storage.Event) (dropped storage.Event, ok bool) {
	if r.buf == nil {
		r.buf = make([]storage.Event, r.capacity)
	}
	if r.n == len(r.buf) {
		dropped, ok = r.buf[r.start], true
		r.dropOldest()
	}
	r.buf[(r.start+r.n)%len(r.buf)] = ev
	r.n++
	return dropped, ok
}

func (r *eventRing) len() int { return r.n }

// at returns the i-th oldest event.
func (r *eventRing) at(i int) storage.Event { return r.buf[(r.start+i)%len(r.buf)] }

func (r *eventRing) dropOldest() {
	r.buf[r.start] = storage.Event{} // let the value be collected
	r.start = (r.start + 1) % len(r.buf)
	r.n--
}

func (r *eventRing) clear() { r.buf, r.start, r.n = nil, 0, 0 }
