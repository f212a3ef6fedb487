// Package storage is the only door to the apiserver's state. The apiserver's
// registry talks to an Interface; ch01 implements it in memory (memory.go),
// ch02 implements it over etcd. Only the apiserver holds an Interface: every
// other component reaches the state through the apiserver's HTTPS API.
//
// The interface is modelled on etcd's own data model, which is what upstream's
// k8s.io/apiserver/pkg/storage/etcd3 sits on: keys map to opaque values, every
// write gets the next revision of one cluster-wide counter, and a key remembers
// the revision it was created at and last modified at. The apiserver turns the
// modification revision into metadata.resourceVersion.
package storage

import (
	"context"
	"errors"
)

// KeyValue is one stored object as bytes with its revisions.
type KeyValue struct {
	Key            string
	Value          []byte
	CreateRevision int64 // revision of the write that created the key
	ModRevision    int64 // revision of the last write: the object's resourceVersion
}

// EventType is what happened to a key.
type EventType int

const (
	EventPut    EventType = iota // created or modified
	EventDelete                  // deleted
)

// Event is one change seen by a watch. Prev is the value before the change
// (nil for a create); for a delete, KV.Value is nil and KV.ModRevision is the
// revision of the delete.
type Event struct {
	Type EventType
	KV   KeyValue
	Prev *KeyValue
	// Cache, when not nil, is shared by every watcher that receives this
	// event (a watch cache sets it): see EventCache. Receivers must not
	// modify KV.Value or Prev.Value when it is set.
	Cache *EventCache
}

// IsCreate tells a put that created the key from one that modified it.
func (e Event) IsCreate() bool { return e.Type == EventPut && e.KV.CreateRevision == e.KV.ModRevision }

// ListOptions narrows a List.
type ListOptions struct {
	// Revision: 0 reads the latest state; >0 reads the state as of that revision
	// (ErrCompacted when it is no longer available).
	Revision int64
	// Limit: at most this many keys (0 = all). More is set when more remain.
	Limit int64
	// StartAfter: continue after this key (exclusive), for pagination.
	StartAfter string
	// AllowStale, with Revision 0: the caller accepts a state that may be a
	// moment behind the latest, so a watch cache may answer from memory
	// (upstream's resourceVersion="0"). Without it a list with Revision 0 is
	// a consistent read. Stores without a cache ignore it.
	AllowStale bool
}

// ListResult is a page of keys under a prefix, sorted by key.
type ListResult struct {
	KVs       []KeyValue
	Revision  int64 // the revision the list was read at
	More      bool  // more keys remain after the last one
	Remaining int64 // how many keys remain after the last one (when More)
}

// Interface is what the apiserver needs from its storage.
type Interface interface {
	// Create writes value at key if the key does not exist (ErrKeyExists otherwise)
	// and returns the new revision.
	Create(ctx context.Context, key string, value []byte) (int64, error)
	// Get reads one key (ErrNotFound when missing).
	Get(ctx context.Context, key string) (KeyValue, error)
	// List reads the keys under prefix.
	List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error)
	// Update replaces value at key if its ModRevision is still expectedRevision
	// (ErrConflict otherwise, ErrNotFound when missing) and returns the new revision.
	Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error)
	// Delete removes key if its ModRevision is still expectedRevision (0: any)
	// and returns the deleted value and the revision of the delete.
	Delete(ctx context.Context, key string, expectedRevision int64) (KeyValue, int64, error)
	// Watch streams every change under prefix after fromRevision (0: from now).
	// The channel is closed when ctx ends or the watch fails; ErrCompacted when
	// fromRevision is older than the history kept.
	Watch(ctx context.Context, prefix string, fromRevision int64) (<-chan Event, error)
	// CurrentRevision is the revision of the last write.
	CurrentRevision(ctx context.Context) (int64, error)
	// Close releases the storage.
	Close() error
}

// CachedGetter is a storage with a cache in front of it (chapter 2's
// watch cache). GetCached reads one key from that cache: no round trip to
// etcd, but the value may be a moment old; ok is false when the cache
// cannot answer. A write based on such a value must be conditional on its
// revision, and whoever made it reads again from the store when that fails
// (upstream's GuaranteedUpdate starts from the cached object the same way).
type CachedGetter interface {
	GetCached(key string) (kv KeyValue, ok bool)
}

var (
	ErrNotFound       = errors.New("key not found")
	ErrKeyExists      = errors.New("key exists")
	ErrConflict       = errors.New("revision conflict")
	ErrCompacted      = errors.New("required revision has been compacted")
	ErrFutureRevision = errors.New("required revision is a future revision")
	ErrUnavailable    = errors.New("storage unavailable")
)
