package controller

import (
	"sync"
	"sync/atomic"
	"time"
)

// ExpectationsTimeout: expectations older than this are considered
// satisfied, so a controller whose watch lost an event (a create it never
// observes) does not stall forever. Upstream: ExpectationsTimeout.
const ExpectationsTimeout = 5 * time.Minute

// ControllerExpectations remembers, per controller key ("ns/name"), how many
// creations and deletions the controller asked the apiserver for and has not
// yet seen come back through its informer. While some are outstanding, the
// informer's cache is known to be behind the controller's own actions and a
// sync must not act on it: a ReplicaSet that just created 3 pods would
// otherwise count 0 pods in a slow cache and create 3 more.
//
//	sync:            ExpectCreations(key, 3); create 3 pods
//	pod add handler: CreationObserved(key)  (x3)
//	next sync:       SatisfiedExpectations(key) == true → look at the cache again
//
// Upstream: pkg/controller/controller_utils.go ControllerExpectations.
type ControllerExpectations struct {
	mu    sync.Mutex
	items map[string]*ControlleeExpectations
	now   func() time.Time
}

// ControlleeExpectations are one controller's outstanding adds and deletes.
type ControlleeExpectations struct {
	add       atomic.Int64
	del       atomic.Int64
	key       string
	timestamp time.Time
}

func NewControllerExpectations() *ControllerExpectations {
	return &ControllerExpectations{items: map[string]*ControlleeExpectations{}, now: time.Now}
}

// GetExpectations returns the expectations of key, if any were set.
func (r *ControllerExpectations) GetExpectations(key string) (*ControlleeExpectations, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.items[key]
	return e, ok
}

// SatisfiedExpectations says whether the controller of key may sync: its
// expectations are met (every create and delete observed), expired (older
// than ExpectationsTimeout) or were never set (a new controller, or one
// whose expectations were deleted).
func (r *ControllerExpectations) SatisfiedExpectations(key string) bool {
	e, ok := r.GetExpectations(key)
	if !ok {
		return true
	}
	return e.Fulfilled() || r.now().Sub(e.timestamp) > ExpectationsTimeout
}

// SetExpectations records that add creations and del deletions are about to
// be made, replacing what was there.
func (r *ControllerExpectations) SetExpectations(key string, add, del int) {
	e := &ControlleeExpectations{key: key, timestamp: r.now()}
	e.add.Store(int64(add))
	e.del.Store(int64(del))
	r.mu.Lock()
	r.items[key] = e
	r.mu.Unlock()
}

func (r *ControllerExpectations) ExpectCreations(key string, adds int) {
	r.SetExpectations(key, adds, 0)
}
func (r *ControllerExpectations) ExpectDeletions(key string, dels int) {
	r.SetExpectations(key, 0, dels)
}

// LowerExpectations decrements the outstanding counts: an object was
// observed, or a request failed and will never be observed.
func (r *ControllerExpectations) LowerExpectations(key string, add, del int) {
	if e, ok := r.GetExpectations(key); ok {
		e.add.Add(-int64(add))
		e.del.Add(-int64(del))
	}
}

// RaiseExpectations increments the outstanding counts.
func (r *ControllerExpectations) RaiseExpectations(key string, add, del int) {
	if e, ok := r.GetExpectations(key); ok {
		e.add.Add(int64(add))
		e.del.Add(int64(del))
	}
}

// CreationObserved: the informer saw one of the expected creations.
func (r *ControllerExpectations) CreationObserved(key string) { r.LowerExpectations(key, 1, 0) }

// DeletionObserved: the informer saw one of the expected deletions.
func (r *ControllerExpectations) DeletionObserved(key string) { r.LowerExpectations(key, 0, 1) }

// DeleteExpectations forgets key (its controller was deleted).
func (r *ControllerExpectations) DeleteExpectations(key string) {
	r.mu.Lock()
	delete(r.items, key)
	r.mu.Unlock()
}

// Fulfilled: no creation or deletion is outstanding (a count may go below
// zero when an object is observed that was not expected).
func (e *ControlleeExpectations) Fulfilled() bool {
	return e.add.Load() <= 0 && e.del.Load() <= 0
}

// GetExpectations returns the outstanding adds and deletes.
func (e *ControlleeExpectations) GetExpectations() (add, del int64) {
	return e.add.Load(), e.del.Load()
}

// UIDTrackingControllerExpectations also remembers which pods (by
// namespace/name key) are expected to be deleted, so that a deletion is
// counted once even if it is observed twice (an update with a
// deletionTimestamp, then the delete itself). Upstream: the same name.
type UIDTrackingControllerExpectations struct {
	*ControllerExpectations
	mu   sync.Mutex
	keys map[string]map[string]bool // controller key -> pod keys expected to go
}

func NewUIDTrackingControllerExpectations(ce *ControllerExpectations) *UIDTrackingControllerExpectations {
	return &UIDTrackingControllerExpectations{ControllerExpectations: ce, keys: map[string]map[string]bool{}}
}

// ExpectDeletions records the pods about to be deleted.
func (u *UIDTrackingControllerExpectations) ExpectDeletions(rcKey string, deletedKeys []string) {
	set := map[string]bool{}
	for _, k := range deletedKeys {
		set[k] = true
	}
	u.mu.Lock()
	u.keys[rcKey] = set
	u.mu.Unlock()
	u.ControllerExpectations.ExpectDeletions(rcKey, len(deletedKeys))
}

// DeletionObserved lowers the expectations once per expected pod key.
func (u *UIDTrackingControllerExpectations) DeletionObserved(rcKey, deleteKey string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if set := u.keys[rcKey]; set[deleteKey] {
		delete(set, deleteKey)
		u.ControllerExpectations.DeletionObserved(rcKey)
	}
}

// DeleteExpectations forgets rcKey.
func (u *UIDTrackingControllerExpectations) DeleteExpectations(rcKey string) {
	u.mu.Lock()
	delete(u.keys, rcKey)
	u.mu.Unlock()
	u.ControllerExpectations.DeleteExpectations(rcKey)
}
