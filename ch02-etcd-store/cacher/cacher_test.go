package cacher_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubik/ch01-apiserver/storage"
	"kubik/ch02-etcd-store/cacher"
	"kubik/ch02-etcd-store/etcdstore"
	"kubik/internal/etcdtest"
	"kubik/internal/storagetest"
	"kubik/internal/testenv"
)

var (
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
	// One embedded etcd for the test binary; every store gets its own key prefix.
	etcdEndpoint string
	etcdPrefixN  atomic.Int64
)

var _ storagetest.Compactor = (*cacher.Cacher)(nil)

// The prefixes the conformance suite writes to.
var suitePrefixes = []string{"/registry/pods/", "/registry/configmaps/", "/registry/nodes/"}

func TestMain(m *testing.M) { etcdtest.Main(m, &etcdEndpoint) }

// newCacher caches suitePrefixes over underlying and waits until it is ready.
// The conformance suite's ConcurrentUpdates reads its 1000 events only after
// all the writes — a slow watcher by design — so watchers get room for them.
func newCacher(t *testing.T, underlying storage.Interface, opts cacher.Options) *cacher.Cacher {
	t.Helper()
	opts.Logger = quiet
	c := cacher.NewWithOptions(underlying, suitePrefixes, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

func newEtcdStore(t *testing.T) *etcdstore.Store {
	t.Helper()
	s, err := etcdstore.New(etcdstore.Config{Endpoints: []string{etcdEndpoint}, Logger: quiet,
		Prefix: fmt.Sprintf("/cacher-test-%d", etcdPrefixN.Add(1))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformanceOverMemory(t *testing.T) {
	storagetest.RunConformance(t, func(t *testing.T) storage.Interface {
		return newCacher(t, storage.NewMemory(0), cacher.Options{WatcherBuffer: 2000})
	})
}

func TestConformanceOverEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite on an embedded etcd")
	}
	storagetest.RunConformance(t, func(t *testing.T) storage.Interface {
		return newCacher(t, newEtcdStore(t), cacher.Options{WatcherBuffer: 2000})
	})
}

// countingStore counts the watches opened on the store underneath.
type countingStore struct {
	storage.Interface
	mu      sync.Mutex
	watches map[string]int
}

func (s *countingStore) Watch(ctx context.Context, prefix string, from int64) (<-chan storage.Event, error) {
	s.mu.Lock()
	s.watches[prefix]++
	s.mu.Unlock()
	return s.Interface.Watch(ctx, prefix, from)
}

// Compact lets the counting store stand where a Compactor is expected.
func (s *countingStore) Compact(ctx context.Context, rev int64) error {
	return s.Interface.(storagetest.Compactor).Compact(ctx, rev)
}

func (s *countingStore) count() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.watches)
}

func create(t *testing.T, s storage.Interface, key string) int64 {
	t.Helper()
	rev, err := s.Create(context.Background(), key, []byte("v:"+key))
	if err != nil {
		t.Fatalf("create %s: %v", key, err)
	}
	return rev
}

func watch(t *testing.T, s storage.Interface, prefix string, from int64) <-chan storage.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := s.Watch(ctx, prefix, from)
	if err != nil {
		t.Fatalf("watch %s from %d: %v", prefix, from, err)
	}
	return ch
}

func next(t *testing.T, ch <-chan storage.Event) storage.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the watch ended while an event was expected")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return storage.Event{}
}

// TestOneUnderlyingWatchPerPrefix: many watches of pods — all, one
// namespace, one key, from now and from a revision — are one watch of
// /registry/pods/ underneath; a prefix outside the cache passes through.
func TestOneUnderlyingWatchPerPrefix(t *testing.T) {
	under := &countingStore{Interface: storage.NewMemory(0), watches: map[string]int{}}
	c := newCacher(t, under, cacher.Options{})
	defer c.Close()
	first := create(t, c, "/registry/pods/default/a")
	for i := range 50 {
		switch i % 4 {
		case 0:
			watch(t, c, "/registry/pods/", 0)
		case 1:
			watch(t, c, "/registry/pods/default/", 0)
		case 2:
			watch(t, c, "/registry/pods/default/a", first-1)
		case 3:
			watch(t, c, "/registry/pods/", first)
		}
	}
	got := under.count()
	for _, p := range suitePrefixes {
		if got[p] != 1 {
			t.Errorf("underlying watches of %s: %d, want 1", p, got[p])
		}
	}
	watch(t, c, "/registry/secrets/", 0) // not cached
	if got := under.count(); got["/registry/secrets/"] != 1 || got["/registry/pods/"] != 1 {
		t.Errorf("underlying watches after a watch outside the cache: %v", got)
	}
}

// TestFanoutOrder: every watcher sees every event once, in revision order,
// and all of them receive the same EventCache for an event: it is encoded
// once for all.
func TestFanoutOrder(t *testing.T) {
	c := newCacher(t, storage.NewMemory(0), cacher.Options{WatcherBuffer: 1000})
	defer c.Close()
	const watchers, events = 20, 300
	chans := make([]<-chan storage.Event, watchers)
	for i := range chans {
		chans[i] = watch(t, c, "/registry/pods/", 0)
	}
	var revs []int64
	for i := range events {
		revs = append(revs, create(t, c, fmt.Sprintf("/registry/pods/ns%d/p%03d", i%3, i)))
	}
	var caches []*storage.EventCache
	for w, ch := range chans {
		for i := range events {
			ev := next(t, ch)
			if ev.KV.ModRevision != revs[i] {
				t.Fatalf("watcher %d: event %d at revision %d, want %d", w, i, ev.KV.ModRevision, revs[i])
			}
			if ev.Cache == nil {
				t.Fatalf("watcher %d: event %d has no EventCache", w, i)
			}
			if w == 0 {
				caches = append(caches, ev.Cache)
			} else if ev.Cache != caches[i] {
				t.Fatalf("watcher %d: event %d has its own EventCache, want the one shared by all watchers", w, i)
			}
		}
	}
	// A watch from a revision in the past replays from the ring, then goes live.
	ch := watch(t, c, "/registry/pods/ns1/", revs[events/2])
	for i := events/2 + 1; i < events; i++ {
		if i%3 != 1 {
			continue
		}
		if ev := next(t, ch); ev.KV.ModRevision != revs[i] {
			t.Fatalf("replayed event at %d, want %d", ev.KV.ModRevision, revs[i])
		}
	}
	r := create(t, c, "/registry/pods/ns1/live")
	if ev := next(t, ch); ev.KV.ModRevision != r {
		t.Fatalf("live event after the replay at %d, want %d", ev.KV.ModRevision, r)
	}
}

// TestSlowWatcherTerminated: a watcher that never reads is ended once its
// buffer is full, and the others get every event without waiting for it.
func TestSlowWatcherTerminated(t *testing.T) {
	c := newCacher(t, storage.NewMemory(0), cacher.Options{WatcherBuffer: 5, DispatchTimeout: 20 * time.Millisecond})
	defer c.Close()
	slow := watch(t, c, "/registry/pods/", 0)
	fast := watch(t, c, "/registry/pods/", 0)
	const events = 50
	got := make(chan int)
	go func() {
		n := 0
		for range fast {
			if n++; n == events {
				break
			}
		}
		got <- n
	}()
	start := time.Now()
	for i := range events {
		create(t, c, fmt.Sprintf("/registry/pods/default/p%d", i))
	}
	if n := <-got; n != events {
		t.Fatalf("the fast watcher got %d events, want %d", n, events)
	}
	t.Logf("%d events to the fast watcher in %v", events, time.Since(start))
	deadline := time.After(10 * time.Second)
	for n := 0; ; n++ {
		select {
		case _, ok := <-slow:
			if !ok {
				if n >= events {
					t.Fatalf("the slow watcher got all %d events before it ended", n)
				}
				return // terminated, as it should be
			}
		case <-deadline:
			t.Fatal("the slow watcher was not terminated")
		}
	}
}

// TestRingOverflow: the ring keeps the last RingSize events; a watch from
// before them is ErrCompacted (410 "too old resource version"), one from
// within them replays the rest.
func TestRingOverflow(t *testing.T) {
	c := newCacher(t, storage.NewMemory(0), cacher.Options{RingSize: 10})
	defer c.Close()
	var revs []int64
	for i := range 30 {
		revs = append(revs, create(t, c, fmt.Sprintf("/registry/configmaps/default/c%02d", i)))
	}
	// Wait until the cache has seen the last event: a list it answers has its revision.
	waitForRevision(t, c, "/registry/configmaps/", revs[29])
	if _, err := c.Watch(context.Background(), "/registry/configmaps/", revs[5]); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("watch from %d, older than the ring: err = %v, want ErrCompacted", revs[5], err)
	}
	ch := watch(t, c, "/registry/configmaps/", revs[24])
	for i := 25; i < 30; i++ {
		if ev := next(t, ch); ev.KV.ModRevision != revs[i] {
			t.Fatalf("replay: event at %d, want %d", ev.KV.ModRevision, revs[i])
		}
	}
	// The store underneath still has the history: lists at old revisions pass through.
	l, err := c.List(context.Background(), "/registry/configmaps/", storage.ListOptions{Revision: revs[5]})
	if err != nil || len(l.KVs) != 6 {
		t.Fatalf("list at %d: %d keys, err %v; want 6", revs[5], len(l.KVs), err)
	}
}

// waitForRevision waits (testenv.Eventually) until the cache of prefix has
// caught up with revision rev.
func waitForRevision(t *testing.T, c *cacher.Cacher, prefix string, rev int64) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("the cache of %s at revision %d", prefix, rev), time.Minute, func() (string, bool) {
		l, err := c.List(context.Background(), prefix, storage.ListOptions{AllowStale: true})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("revision %d", l.Revision), l.Revision >= rev
	})
}

// TestListFromCacheEqualsStore: a list at resourceVersion=0 from memory is
// what the store lists at the same revision, page by page too.
func TestListFromCacheEqualsStore(t *testing.T) {
	for name, newStore := range map[string]func(t *testing.T) storage.Interface{
		"memory": func(t *testing.T) storage.Interface { return storage.NewMemory(0) },
		"etcd":   func(t *testing.T) storage.Interface { return newEtcdStore(t) },
	} {
		t.Run(name, func(t *testing.T) {
			under := newStore(t)
			c := newCacher(t, under, cacher.Options{})
			defer c.Close()
			ctx := context.Background()
			var last int64
			for i := range 200 {
				key := fmt.Sprintf("/registry/pods/ns%d/p%03d", i%4, i)
				last = create(t, c, key)
				if i%7 == 0 {
					if _, err := c.Update(ctx, key, []byte("updated"), last); err != nil {
						t.Fatal(err)
					}
				}
				if i%11 == 0 {
					if _, _, err := c.Delete(ctx, key, 0); err != nil {
						t.Fatal(err)
					}
				}
			}
			last, _ = c.CurrentRevision(ctx)
			waitForRevision(t, c, "/registry/pods/", last)
			// GetCached: each key as the store has it; a deleted one is not there.
			for _, i := range []int{0, 1, 7, 11, 199} {
				key := fmt.Sprintf("/registry/pods/ns%d/p%03d", i%4, i)
				got, ok := c.GetCached(key)
				want, err := under.Get(ctx, key)
				if errors.Is(err, storage.ErrNotFound) {
					if ok {
						t.Errorf("GetCached(%s) = %+v, the store has no such key", key, got)
					}
					continue
				}
				if !ok || string(got.Value) != string(want.Value) || got.ModRevision != want.ModRevision || got.CreateRevision != want.CreateRevision {
					t.Errorf("GetCached(%s) = %+v, %v; the store has %+v", key, got, ok, want)
				}
			}
			if _, ok := c.GetCached("/registry/secrets/default/x"); ok {
				t.Error("GetCached answered for a prefix the cacher does not cache")
			}
			for _, prefix := range []string{"/registry/pods/", "/registry/pods/ns2/"} {
				for _, limit := range []int64{0, 7} {
					opts := storage.ListOptions{AllowStale: true, Limit: limit}
					cached, err := c.List(ctx, prefix, opts)
					if err != nil {
						t.Fatal(err)
					}
					want, err := under.List(ctx, prefix, storage.ListOptions{Revision: cached.Revision, Limit: limit})
					if err != nil {
						t.Fatal(err)
					}
					if !sameList(cached, want) {
						t.Errorf("%s limit %d: the cache listed %d keys (more %v, remaining %d), the store %d (more %v, remaining %d)",
							prefix, limit, len(cached.KVs), cached.More, cached.Remaining, len(want.KVs), want.More, want.Remaining)
					}
					// A consistent read, the cache being up to date, is the same list.
					consistent, err := c.List(ctx, prefix, storage.ListOptions{Limit: limit})
					if err != nil || !sameList(consistent, want) {
						t.Errorf("%s limit %d: a consistent list differs from the store's (err %v)", prefix, limit, err)
					}
				}
			}
		})
	}
}

func sameList(a, b storage.ListResult) bool {
	return a.Revision == b.Revision && a.More == b.More && a.Remaining == b.Remaining &&
		slices.EqualFunc(a.KVs, b.KVs, func(x, y storage.KeyValue) bool {
			return x.Key == y.Key && string(x.Value) == string(y.Value) &&
				x.CreateRevision == y.CreateRevision && x.ModRevision == y.ModRevision
		})
}

// TestRestartAfterWatchEnds: when the store's watch ends (etcd compacted
// past it, lost its leader), the cache ends its watches, lists again and
// serves new ones.
func TestRestartAfterWatchEnds(t *testing.T) {
	under := &breakableStore{Interface: storage.NewMemory(0)}
	c := newCacher(t, under, cacher.Options{})
	defer c.Close()
	w := watch(t, c, "/registry/pods/", 0)
	create(t, c, "/registry/pods/default/a")
	next(t, w)
	under.breakWatches()
	select {
	case _, ok := <-w:
		if ok {
			t.Fatal("got an event, want the watch to end")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not end when the store's watch did")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	r := create(t, c, "/registry/pods/default/b")
	waitForRevision(t, c, "/registry/pods/", r)
	l, err := c.List(ctx, "/registry/pods/", storage.ListOptions{AllowStale: true})
	if err != nil || len(l.KVs) != 2 {
		t.Fatalf("list after the restart: %d keys, err %v; want 2", len(l.KVs), err)
	}
}

// breakableStore can end every watch it has handed out.
type breakableStore struct {
	storage.Interface
	mu      sync.Mutex
	cancels []context.CancelFunc
}

func (s *breakableStore) Watch(ctx context.Context, prefix string, from int64) (<-chan storage.Event, error) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancels = append(s.cancels, cancel)
	s.mu.Unlock()
	return s.Interface.Watch(ctx, prefix, from)
}

func (s *breakableStore) breakWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.cancels {
		cancel()
	}
	s.cancels = nil
}
