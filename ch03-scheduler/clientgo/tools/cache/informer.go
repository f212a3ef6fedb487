// Package informer keeps a local, always-current copy of one resource: it
// lists the objects, then watches for changes from the list's
// resourceVersion, applies each change to an indexed cache (Store) and tells
// the registered handlers. When the watch ends it resumes from the last
// resourceVersion seen; when the apiserver no longer has that history (410
// Gone) it lists again and turns the difference into adds, updates and
// deletes, so handlers never miss a change.
//
// Every controller, the scheduler and the kubelet read the cluster this way:
// reads come from memory, and the apiserver serves one watch per informer
// instead of a stream of GETs.
//
// Upstream: k8s.io/client-go/tools/cache (Reflector, DeltaFIFO,
// sharedIndexInformer, processorListener), here folded into one type.
package cache

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Options narrow what an informer watches.
type Options struct {
	// Namespace to watch; "" for all namespaces (or a cluster-scoped resource).
	Namespace     string
	LabelSelector string
	FieldSelector string // "spec.nodeName=node-1": a kubelet's pods
	// PageSize is the limit of each list request (default 500, as upstream's pager).
	PageSize int64
	Logger   *slog.Logger
	// Resource, when set, is listed and watched instead of T's own resource:
	// with T = metav1.PartialObjectMetadata, a metadata-only informer of any
	// resource found by discovery (upstream: metadatainformer).
	Resource *scheme.Resource
}

// Informer is a list+watch of objects of type T (corev1.Pod, ...).
// Upstream: cache.SharedIndexInformer.
type Informer[T any, PT rest.Object[T]] struct {
	client *rest.Client
	opts   Options
	store  *Store[T]
	log    *slog.Logger
	kind   string

	// mu orders cache changes and handler registration: a handler added
	// while the informer runs gets the cache's content as adds, then every
	// later change, none twice.
	mu        sync.Mutex
	listeners []*listener[T]
	synced    bool
	running   bool
	lastRV    string // the last resourceVersion seen (list, event or bookmark)

	// beforeWatch, when set (tests), runs before each watch is opened.
	beforeWatch func()
}

// New returns an informer of T's resource, not yet running.
func New[T any, PT rest.Object[T]](c *rest.Client, opts Options) *Informer[T, PT] {
	kind := "objects"
	if r, err := rest.ResourceFor[T](); err == nil {
		kind = r.GroupResource()
	}
	if opts.Resource != nil {
		kind = opts.Resource.GroupResource()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 500
	}
	return &Informer[T, PT]{client: c, opts: opts, store: newStore[T](), kind: kind,
		log: log.With("informer", kind)}
}

// GetStore is the cache. Upstream: GetStore/GetIndexer/Lister.
func (i *Informer[T, PT]) GetStore() *Store[T] { return i.store }

// AddIndexers adds indexes to the cache (before or after Run).
func (i *Informer[T, PT]) AddIndexers(idx Indexers[T]) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.store.addIndexers(idx)
}

// HasSynced reports whether the cache holds the first full list.
func (i *Informer[T, PT]) HasSynced() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.synced
}

// LastSyncResourceVersion is the resourceVersion the cache is current to.
func (i *Informer[T, PT]) LastSyncResourceVersion() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.lastRV
}

// Registration is one added handler.
type Registration interface {
	// HasSynced: the handler has been given every object of the initial list.
	HasSynced() bool
}

// AddEventHandler registers h. If the informer already has objects, h is
// first given them as adds (isInInitialList true).
func (i *Informer[T, PT]) AddEventHandler(h ResourceEventHandler[T]) Registration {
	i.mu.Lock()
	defer i.mu.Unlock()
	l := newListener(h)
	if i.synced {
		for _, obj := range i.store.List() {
			l.add(notification[T]{kind: notifyAdd, obj: obj, initial: true})
		}
		l.add(notification[T]{kind: notifySynced})
	}
	i.listeners = append(i.listeners, l)
	if i.running {
		go l.run()
	}
	return l
}

func (i *Informer[T, PT]) notify(n notification[T]) {
	for _, l := range i.listeners {
		l.add(n)
	}
}

// Run lists and watches until ctx ends, retrying failures with backoff.
func (i *Informer[T, PT]) Run(ctx context.Context) {
	i.mu.Lock()
	i.running = true
	for _, l := range i.listeners {
		go l.run()
	}
	i.mu.Unlock()
	defer func() {
		i.mu.Lock()
		i.running = false
		for _, l := range i.listeners {
			l.stop()
		}
		i.mu.Unlock()
	}()

	// Upstream's reflector backs off from 800ms to 30s between failures.
	backoff := 800 * time.Millisecond
	for ctx.Err() == nil {
		started := time.Now()
		err := i.listAndWatch(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(started) > 2*time.Minute {
			backoff = 800 * time.Millisecond // it worked for a while: start over
		}
		i.log.Warn("list and watch failed; retrying", "err", err, "after", backoff)
		if sleep(ctx, backoff+rand.N(backoff/2)) != nil {
			return
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// listAndWatch lists, then watches from the list's resourceVersion, resuming
// each watch where the last one ended, until an error. A 410 Gone means
// "list again".
func (i *Informer[T, PT]) listAndWatch(ctx context.Context) error {
	for {
		if err := i.list(ctx); err != nil {
			return err
		}
		for {
			err := i.watch(ctx)
			if ctx.Err() != nil {
				return nil
			}
			if rest.IsGone(err) {
				i.log.Info("watch history expired; listing again", "resourceVersion", i.LastSyncResourceVersion(), "reason", err)
				break
			}
			if err != nil {
				return err
			}
			// The apiserver ended the watch (its timeout): resume.
		}
	}
}

// list reads every object, page by page, and replaces the cache with them.
func (i *Informer[T, PT]) list(ctx context.Context) error {
	opts := rest.ListOptions{LabelSelector: i.opts.LabelSelector, FieldSelector: i.opts.FieldSelector, Limit: i.opts.PageSize}
	var items []T
	var rv string
	for {
		var page *rest.ObjectList[T]
		var err error
		if i.opts.Resource != nil {
			page, err = rest.ListResource[T, PT](ctx, i.client, i.opts.Resource, i.opts.Namespace, opts)
		} else {
			page, err = rest.List[T, PT](ctx, i.client, i.opts.Namespace, opts)
		}
		if err != nil {
			return err
		}
		items = append(items, page.Items...)
		if rv == "" {
			rv = page.ResourceVersion // every page is read at the first page's revision
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	i.replace(items, rv)
	return nil
}

// replace makes the cache equal to a fresh list and tells the handlers the
// difference: adds for new objects, updates for changed ones (a different
// resourceVersion), deletes for the ones gone. (Upstream also sends an
// update for every unchanged object on a relist; handlers compare
// resourceVersions to skip them. Here they are not sent.)
func (i *Informer[T, PT]) replace(items []T, rv string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	seen := make(map[string]bool, len(items))
	for k := range items {
		obj := &items[k]
		key := MetaNamespaceKeyFunc(PT(obj))
		seen[key] = true
		old, existed := i.store.put(key, obj)
		switch {
		case !existed:
			i.notify(notification[T]{kind: notifyAdd, obj: obj, initial: !i.synced})
		case PT(old).GetObjectMeta().ResourceVersion != PT(obj).GetObjectMeta().ResourceVersion:
			i.notify(notification[T]{kind: notifyUpdate, old: old, obj: obj})
		}
	}
	for _, key := range i.store.ListKeys() {
		if !seen[key] {
			if old, ok := i.store.remove(key); ok {
				i.notify(notification[T]{kind: notifyDelete, obj: old})
			}
		}
	}
	i.lastRV = rv
	if !i.synced {
		i.synced = true
		i.notify(notification[T]{kind: notifySynced})
		i.log.Debug("synced", "objects", len(items), "resourceVersion", rv)
	}
}

// watch follows changes from the last resourceVersion until the stream
// ends (nil) or fails.
func (i *Informer[T, PT]) watch(ctx context.Context) error {
	if i.beforeWatch != nil {
		i.beforeWatch()
	}
	// Upstream picks a random timeout in [5m, 10m) so that watches of many
	// clients do not all end and restart at once.
	timeout := int64(300 + rand.IntN(300))
	opts := rest.ListOptions{
		LabelSelector: i.opts.LabelSelector, FieldSelector: i.opts.FieldSelector,
		ResourceVersion: i.LastSyncResourceVersion(), AllowWatchBookmarks: true, TimeoutSeconds: timeout,
	}
	var w *rest.Watcher[T]
	var err error
	if i.opts.Resource != nil {
		w, err = rest.WatchResource[T, PT](ctx, i.client, i.opts.Resource, i.opts.Namespace, opts)
	} else {
		w, err = rest.Watch[T, PT](ctx, i.client, i.opts.Namespace, opts)
	}
	if err != nil {
		return err
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if ev.Type == metav1.Error {
			return ev.Err
		}
		i.apply(ev)
	}
	return nil
}

// apply puts one watch event into the cache and tells the handlers.
func (i *Informer[T, PT]) apply(ev rest.Event[T]) {
	i.mu.Lock()
	defer i.mu.Unlock()
	m := PT(ev.Object).GetObjectMeta()
	if m.ResourceVersion != "" {
		i.lastRV = m.ResourceVersion
	}
	key := MetaNamespaceKeyFunc(PT(ev.Object))
	switch ev.Type {
	case metav1.Added, metav1.Modified:
		if old, existed := i.store.put(key, ev.Object); existed {
			i.notify(notification[T]{kind: notifyUpdate, old: old, obj: ev.Object})
		} else {
			i.notify(notification[T]{kind: notifyAdd, obj: ev.Object})
		}
	case metav1.Deleted:
		if _, existed := i.store.remove(key); existed {
			i.notify(notification[T]{kind: notifyDelete, obj: ev.Object})
		}
	case metav1.Bookmark:
		// Only the resourceVersion: a later watch resumes from here
		// instead of from an old revision that may be compacted.
	}
}

// WaitForCacheSync waits until every hasSynced (Informer.HasSynced or
// Registration.HasSynced) is true; false if ctx ended first.
func WaitForCacheSync(ctx context.Context, hasSynced ...func() bool) bool {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		all := true
		for _, f := range hasSynced {
			if !f() {
				all = false
				break
			}
		}
		if all {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
