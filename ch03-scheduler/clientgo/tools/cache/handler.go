package cache

import "sync"

// ResourceEventHandler is told about every change of the cache, after the
// cache has it. Handlers should be quick (put a key in a work queue) and
// must not modify the objects. Upstream: cache.ResourceEventHandler.
type ResourceEventHandler[T any] interface {
	// OnAdd: a new object; isInInitialList is true for the objects of the
	// first list (the state the informer started from).
	OnAdd(obj *T, isInInitialList bool)
	// OnUpdate: an object changed.
	OnUpdate(oldObj, newObj *T)
	// OnDelete: an object is gone; obj is its last known state.
	OnDelete(obj *T)
}

// ResourceEventHandlerFuncs adapts functions to a ResourceEventHandler; nil
// ones are skipped.
type ResourceEventHandlerFuncs[T any] struct {
	AddFunc    func(obj *T)
	UpdateFunc func(oldObj, newObj *T)
	DeleteFunc func(obj *T)
}

func (f ResourceEventHandlerFuncs[T]) OnAdd(obj *T, _ bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

func (f ResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj *T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

func (f ResourceEventHandlerFuncs[T]) OnDelete(obj *T) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// FilteringResourceEventHandler passes on only the objects FilterFunc
// accepts; an update that makes an object pass or fail the filter arrives as
// an add or a delete (the scheduler's "unassigned pods" handler).
type FilteringResourceEventHandler[T any] struct {
	FilterFunc func(obj *T) bool
	Handler    ResourceEventHandler[T]
}

func (f FilteringResourceEventHandler[T]) OnAdd(obj *T, initial bool) {
	if f.FilterFunc(obj) {
		f.Handler.OnAdd(obj, initial)
	}
}

func (f FilteringResourceEventHandler[T]) OnUpdate(oldObj, newObj *T) {
	was, is := f.FilterFunc(oldObj), f.FilterFunc(newObj)
	switch {
	case was && is:
		f.Handler.OnUpdate(oldObj, newObj)
	case !was && is:
		f.Handler.OnAdd(newObj, false)
	case was && !is:
		f.Handler.OnDelete(oldObj)
	}
}

func (f FilteringResourceEventHandler[T]) OnDelete(obj *T) {
	if f.FilterFunc(obj) {
		f.Handler.OnDelete(obj)
	}
}

// A notification is one call to make on a handler.
type notification[T any] struct {
	kind     int // notifyAdd, ...
	old, obj *T
	initial  bool
}

const (
	notifyAdd = iota
	notifyUpdate
	notifyDelete
	notifySynced // the initial list has been delivered
)

// listener feeds one handler from its own goroutine through an unbounded
// buffer, so a slow handler delays neither the watch nor the other handlers.
// Upstream: processorListener.
type listener[T any] struct {
	h       ResourceEventHandler[T]
	mu      sync.Mutex
	cond    *sync.Cond
	pending []notification[T]
	stopped bool
	synced  bool
}

func newListener[T any](h ResourceEventHandler[T]) *listener[T] {
	l := &listener[T]{h: h}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *listener[T]) add(n notification[T]) {
	l.mu.Lock()
	l.pending = append(l.pending, n)
	l.mu.Unlock()
	l.cond.Signal()
}

func (l *listener[T]) stop() {
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
	l.cond.Signal()
}

// HasSynced reports whether the handler has been given the whole initial list.
func (l *listener[T]) HasSynced() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.synced
}

func (l *listener[T]) run() {
	for {
		l.mu.Lock()
		for len(l.pending) == 0 && !l.stopped {
			l.cond.Wait()
		}
		if l.stopped {
			l.mu.Unlock()
			return
		}
		n := l.pending[0]
		l.pending[0] = notification[T]{}
		l.pending = l.pending[1:]
		l.mu.Unlock()

		switch n.kind {
		case notifyAdd:
			l.h.OnAdd(n.obj, n.initial)
		case notifyUpdate:
			l.h.OnUpdate(n.old, n.obj)
		case notifyDelete:
			l.h.OnDelete(n.obj)
		case notifySynced:
			l.mu.Lock()
			l.synced = true
			l.mu.Unlock()
		}
	}
}
