package kubelet

import (
	"sync"
	"time"
)

// Backoff is the kubelet's per-container (and per-image) back-off, as
// upstream's flowcontrol.Backoff: the first restart is immediate, then a
// container that exits again waits 10s, 20s, 40s ... up to 5m before it is
// started again. An entry older than twice the maximum is forgotten, so a
// container that ran for 10 minutes starts over at 10s.
type Backoff struct {
	Initial, Max time.Duration
	Now          func() time.Time

	mu      sync.Mutex
	entries map[string]*backoffEntry
}

type backoffEntry struct {
	delay      time.Duration
	lastUpdate time.Time
}

// NewBackoff is upstream's kubelet back-off: 10s doubling to 5m.
func NewBackoff() *Backoff {
	return &Backoff{Initial: 10 * time.Second, Max: 5 * time.Minute, Now: time.Now, entries: map[string]*backoffEntry{}}
}

// IsInBackOffSince reports whether the thing id, which failed at
// eventTime, must still wait: the delay counts from the failure (a
// container's exit).
func (b *Backoff) IsInBackOffSince(id string, eventTime time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[id]
	if !ok || b.expired(e, eventTime) {
		return false
	}
	return b.Now().Sub(eventTime) < e.delay
}

// IsInBackOffSinceUpdate reports whether id must still wait at
// eventTime (now): the delay counts from the last Next (a failed image
// pull, which has no exit time of its own).
func (b *Backoff) IsInBackOffSinceUpdate(id string, eventTime time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[id]
	if !ok || b.expired(e, eventTime) {
		return false
	}
	return eventTime.Sub(e.lastUpdate) < e.delay
}

// Next records a restart of id after a failure at eventTime: the next
// failure waits twice as long (Initial for the first).
func (b *Backoff) Next(id string, eventTime time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[id]
	if !ok || b.expired(e, eventTime) {
		e = &backoffEntry{delay: b.Initial}
		b.entries[id] = e
	} else {
		e.delay = min(2*e.delay, b.Max)
	}
	e.lastUpdate = b.Now()
}

// Get is id's current delay (0 when none).
func (b *Backoff) Get(id string) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.entries[id]; ok {
		return e.delay
	}
	return 0
}

// Remaining is how long id still waits after a failure at eventTime.
func (b *Backoff) Remaining(id string, eventTime time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.entries[id]; ok {
		return max(0, e.delay-b.Now().Sub(eventTime))
	}
	return 0
}

// Forget drops id (its pod is gone).
func (b *Backoff) Forget(prefix string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id := range b.entries {
		if len(id) >= len(prefix) && id[:len(prefix)] == prefix {
			delete(b.entries, id)
		}
	}
}

func (b *Backoff) expired(e *backoffEntry, eventTime time.Time) bool {
	return eventTime.Sub(e.lastUpdate) > 2*b.Max
}
