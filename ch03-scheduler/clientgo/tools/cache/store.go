package cache

import (
	"slices"
	"strings"
	"sync"

	"kubik/ch01-apiserver/api/metav1"
)

// MetaNamespaceKeyFunc is an object's key in a Store and in a work queue:
// "<namespace>/<name>", or "<name>" for a cluster-scoped object.
func MetaNamespaceKeyFunc(obj metav1.Object) string {
	m := obj.GetObjectMeta()
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// SplitMetaNamespaceKey is the inverse of MetaNamespaceKeyFunc.
func SplitMetaNamespaceKey(key string) (namespace, name string) {
	if ns, n, ok := strings.Cut(key, "/"); ok {
		return ns, n
	}
	return "", key
}

// IndexFunc computes the values an object is indexed under: for an index of
// pods by node, IndexFunc(pod) = [pod.Spec.NodeName].
type IndexFunc[T any] func(obj *T) []string

// Indexers are the named indexes of a Store.
type Indexers[T any] map[string]IndexFunc[T]

// Store is the informer's local cache: objects by key, plus indexes. The
// objects are shared with every reader and must not be modified: copy
// before changing one. Upstream: k8s.io/client-go/tools/cache's Indexer
// and threadSafeMap.
type Store[T any] struct {
	mu       sync.RWMutex
	items    map[string]*T
	indexers Indexers[T]
	// indices[index name][indexed value] is the set of keys with that value.
	indices map[string]map[string]map[string]struct{}
}

func newStore[T any]() *Store[T] {
	return &Store[T]{items: map[string]*T{}, indexers: Indexers[T]{}, indices: map[string]map[string]map[string]struct{}{}}
}

// GetByKey returns the object with key "<namespace>/<name>" (or "<name>").
func (s *Store[T]) GetByKey(key string) (*T, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	obj, ok := s.items[key]
	return obj, ok
}

// Get returns namespace/name; namespace is "" for cluster-scoped objects.
func (s *Store[T]) Get(namespace, name string) (*T, bool) {
	if namespace == "" {
		return s.GetByKey(name)
	}
	return s.GetByKey(namespace + "/" + name)
}

// List returns every object, in key order.
func (s *Store[T]) List() []*T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.items))
	for k := range s.items {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]*T, len(keys))
	for i, k := range keys {
		out[i] = s.items[k]
	}
	return out
}

// ListKeys returns every key, sorted.
func (s *Store[T]) ListKeys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.items))
	for k := range s.items {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Len is the number of objects.
func (s *Store[T]) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.items)
}

// ByIndex returns the objects whose index value is value, in key order:
// ByIndex("spec.nodeName", "node-1") is every pod on node-1.
func (s *Store[T]) ByIndex(index, value string) []*T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	set := s.indices[index][value]
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]*T, len(keys))
	for i, k := range keys {
		out[i] = s.items[k]
	}
	return out
}

// addIndexers adds indexes and indexes what is already stored.
func (s *Store[T]) addIndexers(idx Indexers[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, f := range idx {
		s.indexers[name] = f
		s.indices[name] = map[string]map[string]struct{}{}
		for key, obj := range s.items {
			s.indexOne(name, f, key, obj)
		}
	}
}

func (s *Store[T]) indexOne(name string, f IndexFunc[T], key string, obj *T) {
	for _, v := range f(obj) {
		set := s.indices[name][v]
		if set == nil {
			set = map[string]struct{}{}
			s.indices[name][v] = set
		}
		set[key] = struct{}{}
	}
}

func (s *Store[T]) unindexOne(name string, f IndexFunc[T], key string, obj *T) {
	for _, v := range f(obj) {
		if set := s.indices[name][v]; set != nil {
			delete(set, key)
			if len(set) == 0 {
				delete(s.indices[name], v)
			}
		}
	}
}

// put stores obj under key and returns what it replaced.
func (s *Store[T]) put(key string, obj *T) (old *T, existed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, existed = s.items[key]
	for name, f := range s.indexers {
		if existed {
			s.unindexOne(name, f, key, old)
		}
		s.indexOne(name, f, key, obj)
	}
	s.items[key] = obj
	return old, existed
}

// remove deletes key and returns what was stored.
func (s *Store[T]) remove(key string) (old *T, existed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, existed = s.items[key]
	if !existed {
		return nil, false
	}
	for name, f := range s.indexers {
		s.unindexOne(name, f, key, old)
	}
	delete(s.items, key)
	return old, true
}
