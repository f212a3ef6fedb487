// Package cacher is the watch cache between the apiserver and etcd:
// upstream's k8s.io/apiserver/pkg/storage/cacher, reduced to its idea.
//
// Without it every `GET ...?watch=true` opens its own etcd watch, and every
// event is decoded and encoded once per watcher. With it, per resource prefix
// (/registry/pods/, /registry/configmaps/, ...):
//
//   - one etcd watch feeds a watchCache: the current objects (key → value,
//     at a known revision) and a ring of the most recent events;
//   - watches are served from the cache: the events after the requested
//     revision are replayed from the ring, then new ones are fanned out to
//     every cacheWatcher; a revision older than the ring is ErrCompacted
//     (the apiserver's "410 Gone: too old resource version");
//   - lists that accept it are served from memory: resourceVersion="0"
//     (ListOptions.AllowStale), and consistent reads when the cache has
//     already seen the latest revision;
//   - every event carries one storage.EventCache, shared by all watchers, so
//     the apiserver decodes and encodes it once, not once per watcher;
//   - a watcher that does not keep up is terminated instead of slowing
//     everyone down; its client watches again from its last resourceVersion.
//
// Cacher is a storage.Interface decorator: writes, Get, lists at other
// revisions and keys outside the cached prefixes pass through to the store
// underneath.
package cacher

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/storage"
)

// Defaults of Options.
const (
	DefaultRingSize        = 8192
	DefaultWatcherBuffer   = 100
	DefaultDispatchTimeout = 100 * time.Millisecond
)

// Options tune a Cacher; zero values mean the defaults.
type Options struct {
	// RingSize: how many recent events each resource keeps for watches
	// that start in the past.
	RingSize int
	// WatcherBuffer: how many events may wait for one slow watcher.
	WatcherBuffer int
	// DispatchTimeout: how long one event may wait, in total, for watchers
	// whose buffer is full before they are terminated.
	DispatchTimeout time.Duration
	Logger          *slog.Logger
}

// Cacher is a storage.Interface that serves watches and lists of its
// prefixes from memory.
type Cacher struct {
	underlying storage.Interface
	caches     map[string]*watchCache // by resource prefix
	prefixes   []string               // the same, longest first
	log        *slog.Logger
	cancel     context.CancelFunc
	running    sync.WaitGroup
}

var _ storage.Interface = (*Cacher)(nil)

// New caches the given resource prefixes (e.g. "/registry/pods/") of
// underlying. Each cache starts at once in the background: it lists its
// prefix and watches it from there. Use WaitReady to wait for them.
func New(underlying storage.Interface, prefixes []string, log *slog.Logger) *Cacher {
	return NewWithOptions(underlying, prefixes, Options{Logger: log})
}

// NewWithOptions is New with tuning.
func NewWithOptions(underlying storage.Interface, prefixes []string, opts Options) *Cacher {
	if opts.RingSize <= 0 {
		opts.RingSize = DefaultRingSize
	}
	if opts.WatcherBuffer <= 0 {
		opts.WatcherBuffer = DefaultWatcherBuffer
	}
	if opts.DispatchTimeout <= 0 {
		opts.DispatchTimeout = DefaultDispatchTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Cacher{underlying: underlying, caches: map[string]*watchCache{}, cancel: cancel,
		log: opts.Logger.With("component", "cacher")}
	for _, p := range prefixes {
		if _, dup := c.caches[p]; dup || p == "" {
			continue
		}
		wc := newWatchCache(p, underlying, opts, c.log)
		c.caches[p] = wc
		c.prefixes = append(c.prefixes, p)
		c.running.Go(func() { wc.run(ctx) })
	}
	slices.SortFunc(c.prefixes, func(a, b string) int { return len(b) - len(a) })
	return c
}

// WaitReady waits until every cache has listed its prefix and watches it.
func (c *Cacher) WaitReady(ctx context.Context) error {
	for _, wc := range c.caches {
		if err := wc.waitReady(ctx); err != nil {
			return err
		}
	}
	return nil
}

// cacheFor returns the cache that holds everything under prefix (a resource
// prefix, a namespace in it, or one key), or nil.
func (c *Cacher) cacheFor(prefix string) *watchCache {
	for _, p := range c.prefixes {
		if strings.HasPrefix(prefix, p) {
			return c.caches[p]
		}
	}
	return nil
}

// List answers from the cache when it can, from the store otherwise.
func (c *Cacher) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if wc := c.cacheFor(prefix); wc != nil {
		if res, ok := wc.list(ctx, prefix, opts); ok {
			return res, nil
		}
	}
	return c.underlying.List(ctx, prefix, opts)
}

// Watch serves a watch from the cache; prefixes outside it, and caches not
// ready yet (starting, or re-listing after their etcd watch broke), pass
// through to the store.
func (c *Cacher) Watch(ctx context.Context, prefix string, fromRevision int64) (<-chan storage.Event, error) {
	if wc := c.cacheFor(prefix); wc != nil {
		if ch, ok, err := wc.watch(ctx, prefix, fromRevision); ok {
			return ch, err
		}
	}
	return c.underlying.Watch(ctx, prefix, fromRevision)
}

// Compact compacts the store (when it can) and forgets the same history in
// the caches, so that a watch from before rev is ErrCompacted here too.
func (c *Cacher) Compact(ctx context.Context, rev int64) error {
	comp, ok := c.underlying.(interface {
		Compact(ctx context.Context, rev int64) error
	})
	if !ok {
		return storage.ErrUnavailable
	}
	if err := comp.Compact(ctx, rev); err != nil {
		return err
	}
	for _, wc := range c.caches {
		wc.compact(rev)
	}
	return nil
}

// Close stops the caches, ends every watch and closes the store underneath.
func (c *Cacher) Close() error {
	c.cancel()
	c.running.Wait()
	return c.underlying.Close()
}

// GetCached reads key from the watch cache (storage.CachedGetter): no
// round trip to etcd, possibly a moment old.
func (c *Cacher) GetCached(key string) (storage.KeyValue, bool) {
	if wc := c.cacheFor(key); wc != nil {
		return wc.get(key)
	}
	return storage.KeyValue{}, false
}

// The rest passes through.

func (c *Cacher) Create(ctx context.Context, key string, value []byte) (int64, error) {
	return c.underlying.Create(ctx, key, value)
}

func (c *Cacher) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	return c.underlying.Get(ctx, key)
}

func (c *Cacher) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	return c.underlying.Update(ctx, key, value, expectedRevision)
}

func (c *Cacher) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, int64, error) {
	return c.underlying.Delete(ctx, key, expectedRevision)
}

func (c *Cacher) CurrentRevision(ctx context.Context) (int64, error) {
	return c.underlying.CurrentRevision(ctx)
}
