package storage

import "sync"

// EventCache is memory one event shares with everyone who receives it. A
// watch cache (ch02's cacher) hands the same Event, with the same
// EventCache, to every watcher of a resource, so work derived from the event
// — the decoded object, the JSON line a watch writes — is done once for all
// of them instead of once per watcher. Stores without a cache leave
// Event.Cache nil, and a nil *EventCache simply computes every time.
//
// Values kept here are shared between goroutines: whoever gets one must
// treat it as read-only.
type EventCache struct {
	mu      sync.Mutex
	entries map[any]*eventCacheEntry
}

type eventCacheEntry struct {
	once  sync.Once
	value any
	err   error
}

// Get returns the value kept under key, computing it on first use. When
// many goroutines ask at once, one computes and the others wait for it.
func (c *EventCache) Get(key any, compute func() (any, error)) (any, error) {
	if c == nil {
		return compute()
	}
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[any]*eventCacheEntry{}
	}
	e := c.entries[key]
	if e == nil {
		e = &eventCacheEntry{}
		c.entries[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.value, e.err = compute() })
	return e.value, e.err
}
