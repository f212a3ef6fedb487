package storage

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Memory is an in-memory Interface: a map of keys, one revision counter and a
// ring of recent events so that watches can resume from a recent revision.
// It is what ch01 runs on; ch02 replaces it with etcd.
//
// Old revisions are served from the history: a list at revision R starts from
// the current state and undoes the events after R. The history holds every
// event after revision compacted; anything at or before it is gone, as in
// etcd after a compaction, and asking for it is ErrCompacted.
type Memory struct {
	mu        sync.Mutex
	rev       int64
	data      map[string]KeyValue
	keys      []string // the keys of data, sorted: a list reads a window of it
	history   []Event  // every event after compacted, oldest first
	compacted int64    // the history before and at this revision is dropped
	histLen   int      // how many events the history keeps at most
	watchers  map[*memWatcher]struct{}
	closed    bool
}

// NewMemory returns an empty store that keeps the last historyLen events for watches.
func NewMemory(historyLen int) *Memory {
	if historyLen <= 0 {
		historyLen = 10000
	}
	return &Memory{data: map[string]KeyValue{}, histLen: historyLen, watchers: map[*memWatcher]struct{}{}}
}

func (m *Memory) Create(ctx context.Context, key string, value []byte) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.data[key]; ok {
		return 0, ErrKeyExists
	}
	m.rev++
	kv := KeyValue{Key: key, Value: clone(value), CreateRevision: m.rev, ModRevision: m.rev}
	m.data[key] = kv
	i, _ := slices.BinarySearch(m.keys, key)
	m.keys = slices.Insert(m.keys, i, key)
	m.emit(Event{Type: EventPut, KV: kv})
	return m.rev, nil
}

func (m *Memory) Get(ctx context.Context, key string) (KeyValue, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kv, ok := m.data[key]
	if !ok {
		return KeyValue{}, ErrNotFound
	}
	kv.Value = clone(kv.Value) // the caller owns what it reads, as with etcd
	return kv, nil
}

func (m *Memory) List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if opts.Revision > m.rev {
		return ListResult{}, ErrFutureRevision
	}
	if opts.Revision > 0 && opts.Revision < m.compacted {
		return ListResult{}, ErrCompacted
	}
	state, keys, rev := m.data, m.keysUnder(prefix), m.rev
	if opts.Revision > 0 && opts.Revision < m.rev {
		// Rebuild the state as of opts.Revision by undoing newer events.
		state = make(map[string]KeyValue, len(keys))
		for _, k := range keys {
			state[k] = m.data[k]
		}
		for i := len(m.history) - 1; i >= 0 && m.history[i].KV.ModRevision > opts.Revision; i-- {
			ev := m.history[i]
			if !strings.HasPrefix(ev.KV.Key, prefix) {
				continue
			}
			if ev.Prev != nil {
				state[ev.KV.Key] = *ev.Prev
			} else {
				delete(state, ev.KV.Key)
			}
		}
		keys = slices.Sorted(maps.Keys(state))
		rev = opts.Revision
	}
	if opts.StartAfter != "" {
		i, found := slices.BinarySearch(keys, opts.StartAfter)
		if found {
			i++
		}
		keys = keys[i:]
	}
	res := ListResult{Revision: rev}
	if opts.Limit > 0 && int64(len(keys)) > opts.Limit {
		res.More = true
		res.Remaining = int64(len(keys)) - opts.Limit
		keys = keys[:opts.Limit]
	}
	res.KVs = make([]KeyValue, len(keys))
	for i, k := range keys {
		kv := state[k]
		kv.Value = clone(kv.Value)
		res.KVs[i] = kv
	}
	return res, nil
}

// keysUnder returns the sorted keys that start with prefix: a window of
// m.keys, found by binary search, not a scan of every key. Called with mu held;
// the window must not be kept after mu is released.
func (m *Memory) keysUnder(prefix string) []string {
	lo, _ := slices.BinarySearch(m.keys, prefix)
	rest := m.keys[lo:]
	n := sort.Search(len(rest), func(i int) bool { return !strings.HasPrefix(rest[i], prefix) })
	return rest[:n]
}

func (m *Memory) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.data[key]
	if !ok {
		return 0, ErrNotFound
	}
	if old.ModRevision != expectedRevision {
		return 0, ErrConflict
	}
	m.rev++
	kv := KeyValue{Key: key, Value: clone(value), CreateRevision: old.CreateRevision, ModRevision: m.rev}
	m.data[key] = kv
	m.emit(Event{Type: EventPut, KV: kv, Prev: &old})
	return m.rev, nil
}

func (m *Memory) Delete(ctx context.Context, key string, expectedRevision int64) (KeyValue, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.data[key]
	if !ok {
		return KeyValue{}, 0, ErrNotFound
	}
	if expectedRevision != 0 && old.ModRevision != expectedRevision {
		return KeyValue{}, 0, ErrConflict
	}
	m.rev++
	delete(m.data, key)
	i, _ := slices.BinarySearch(m.keys, key)
	m.keys = slices.Delete(m.keys, i, i+1)
	m.emit(Event{Type: EventDelete, KV: KeyValue{Key: key, CreateRevision: old.CreateRevision, ModRevision: m.rev}, Prev: &old})
	return old, m.rev, nil
}

func (m *Memory) CurrentRevision(ctx context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rev, nil
}

func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	for w := range m.watchers {
		w.stop()
	}
	m.watchers = map[*memWatcher]struct{}{}
	return nil
}

// Compact drops the history up to and including rev, as etcd's compaction
// does: afterwards lists at an older revision and watches from an older
// revision fail with ErrCompacted. The apiserver never calls it (the history
// is trimmed on its own when it grows past its length); tests use it to reach
// the 410 Gone paths.
func (m *Memory) Compact(ctx context.Context, rev int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rev > m.rev {
		return ErrFutureRevision
	}
	if rev <= m.compacted {
		return ErrCompacted
	}
	m.dropHistory(rev)
	return nil
}

// dropHistory forgets the events up to and including rev. Called with mu held.
func (m *Memory) dropHistory(rev int64) {
	i := 0
	for i < len(m.history) && m.history[i].KV.ModRevision <= rev {
		i++
	}
	m.history = append(m.history[:0:0], m.history[i:]...)
	m.compacted = rev
}

// emit records an event and hands it to every matching watcher. Called with mu held.
func (m *Memory) emit(ev Event) {
	m.history = append(m.history, ev)
	if len(m.history) > m.histLen {
		// Drop the oldest quarter at once so appends stay amortised O(1).
		drop := len(m.history) - m.histLen + m.histLen/4
		m.dropHistory(m.history[drop-1].KV.ModRevision)
	}
	for w := range m.watchers {
		if strings.HasPrefix(ev.KV.Key, w.prefix) {
			w.push(ev)
		}
	}
}

func (m *Memory) Watch(ctx context.Context, prefix string, fromRevision int64) (<-chan Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if fromRevision > m.rev {
		return nil, ErrFutureRevision
	}
	w := &memWatcher{prefix: prefix, out: make(chan Event, 100), done: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	if fromRevision > 0 && fromRevision < m.compacted {
		return nil, ErrCompacted
	}
	if fromRevision > 0 && fromRevision < m.rev {
		for _, ev := range m.history {
			if ev.KV.ModRevision > fromRevision && strings.HasPrefix(ev.KV.Key, prefix) {
				w.queue = append(w.queue, ev)
			}
		}
	}
	m.watchers[w] = struct{}{}
	go w.run()
	go func() {
		<-ctx.Done()
		m.mu.Lock()
		delete(m.watchers, w)
		m.mu.Unlock()
		w.stop()
	}()
	return w.out, nil
}

// memWatcher decouples writers from slow readers with an unbounded queue.
type memWatcher struct {
	prefix  string
	out     chan Event
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []Event
	stopped bool
	done    chan struct{}
}

func (w *memWatcher) push(ev Event) {
	w.mu.Lock()
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *memWatcher) stop() {
	w.mu.Lock()
	if !w.stopped {
		w.stopped = true
		close(w.done)
	}
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *memWatcher) run() {
	defer close(w.out)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.stopped {
			w.cond.Wait()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		batch := w.queue
		w.queue = nil
		w.mu.Unlock()
		for _, ev := range batch {
			select {
			case w.out <- ev:
			case <-w.done:
				return
			}
		}
	}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }
