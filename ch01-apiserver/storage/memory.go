package storage

import (
	"context"
	"sort"
	"strings"
	"sync"
)

// Memory is an in-memory Interface: a map of keys, one revision counter and a
// ring of recent events so that watches can resume from a recent revision.
// It is what ch01 runs on; ch02 replaces it with etcd.
type Memory struct {
	mu       sync.Mutex
	rev      int64
	data     map[string]KeyValue
	history  []Event // the last historyLen events, oldest first
	histLen  int
	watchers map[*memWatcher]struct{}
	closed   bool
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
	return kv, nil
}

func (m *Memory) List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	state := m.data
	rev := m.rev
	if opts.Revision > m.rev {
		return ListResult{}, ErrFutureRevision
	}
	if opts.Revision > 0 && opts.Revision < m.rev {
		// Rebuild the state as of opts.Revision by undoing newer events.
		if len(m.history) == 0 || m.history[0].KV.ModRevision > opts.Revision+1 {
			return ListResult{}, ErrCompacted
		}
		state = make(map[string]KeyValue, len(m.data))
		for k, v := range m.data {
			if strings.HasPrefix(k, prefix) {
				state[k] = v
			}
		}
		for i := len(m.history) - 1; i >= 0 && m.history[i].KV.ModRevision > opts.Revision; i-- {
			ev := m.history[i]
			if ev.Prev != nil {
				state[ev.KV.Key] = *ev.Prev
			} else {
				delete(state, ev.KV.Key)
			}
		}
		rev = opts.Revision
	}
	keys := make([]string, 0)
	for k := range state {
		if strings.HasPrefix(k, prefix) && k > opts.StartAfter {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	res := ListResult{Revision: rev}
	if opts.Limit > 0 && int64(len(keys)) > opts.Limit {
		res.More = true
		res.Remaining = int64(len(keys)) - opts.Limit
		keys = keys[:opts.Limit]
	}
	res.KVs = make([]KeyValue, len(keys))
	for i, k := range keys {
		res.KVs[i] = state[k]
	}
	return res, nil
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

// emit records an event and hands it to every matching watcher. Called with mu held.
func (m *Memory) emit(ev Event) {
	m.history = append(m.history, ev)
	if len(m.history) > m.histLen {
		// Drop the oldest quarter at once so appends stay amortised O(1).
		drop := len(m.history) - m.histLen + m.histLen/4
		m.history = append(m.history[:0:0], m.history[drop:]...)
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
	if fromRevision > 0 && fromRevision < m.rev {
		if len(m.history) == 0 || m.history[0].KV.ModRevision > fromRevision+1 {
			return nil, ErrCompacted
		}
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
