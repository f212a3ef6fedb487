package garbagecollector

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
)

// eventRecorder is what the collector needs of controller.Recorder (tests
// pass a fake).
type eventRecorder interface {
	Eventf(obj corev1.ObjectReference, eventType, reason, format string, args ...any)
}

type eventType int

const (
	addEvent eventType = iota
	updateEvent
	deleteEvent
)

// event is one change seen by a monitor, or a "virtual" delete made up by a
// worker that found an object gone at the apiserver.
type event struct {
	virtual   bool
	eventType eventType
	obj       *metav1.PartialObjectMetadata
	oldObj    *metav1.PartialObjectMetadata // updates only
	// apiVersion and kind of the monitor's resource: list items carry no
	// TypeMeta.
	apiVersion, kind string
}

// monitor watches one resource, metadata only. Upstream: monitor.
type monitor struct {
	resource *scheme.Resource
	informer *cache.Informer[metav1.PartialObjectMetadata, *metav1.PartialObjectMetadata]
	// cancel stops the informer once started (nil before).
	cancel context.CancelFunc
}

// GraphBuilder keeps the dependency graph: one monitor (a metadata-only
// informer) per deletable resource feeds graphChanges; a single goroutine
// (processGraphChanges) applies them to uidToNode and decides what the
// workers look at: attemptToDelete (an object whose owner may be gone, or
// that waits for its dependents) and attemptToOrphan (an owner deleted with
// the orphan finalizer). Upstream: graph_builder.go.
type GraphBuilder struct {
	// monitorLock guards monitors and running: the discovery sync adds
	// and removes monitors while the collector runs.
	monitorLock sync.Mutex
	monitors    map[string]*monitor // by group resource
	running     context.Context     // set by startMonitors: new monitors start at once

	client       *rest.Client
	graphChanges *workqueue.Queue[*event]

	mu        sync.RWMutex // guards uidToNode and every node's fields
	uidToNode map[string]*node

	attemptToDelete  *workqueue.RateLimitingQueue[*node]
	attemptToOrphan  *workqueue.RateLimitingQueue[*node]
	absentOwnerCache *absentOwnerCache
	recorder         eventRecorder
	log              *slog.Logger
}

func newGraphBuilder(c *rest.Client, recorder eventRecorder, log *slog.Logger) *GraphBuilder {
	return &GraphBuilder{
		client:           c,
		monitors:         map[string]*monitor{},
		graphChanges:     workqueue.New[*event](),
		uidToNode:        map[string]*node{},
		attemptToDelete:  workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[*node]()),
		attemptToOrphan:  workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[*node]()),
		absentOwnerCache: newAbsentOwnerCache(500),
		recorder:         recorder,
		log:              log,
	}
}

// handlerFor turns a monitor's informer notifications into graph changes.
func (gb *GraphBuilder) handlerFor(r *scheme.Resource) cache.ResourceEventHandler[metav1.PartialObjectMetadata] {
	apiVersion := r.GroupVersion()
	return cache.ResourceEventHandlerFuncs[metav1.PartialObjectMetadata]{
		AddFunc: func(obj *metav1.PartialObjectMetadata) {
			gb.graphChanges.Add(&event{eventType: addEvent, obj: obj, apiVersion: apiVersion, kind: r.Kind})
		},
		UpdateFunc: func(oldObj, newObj *metav1.PartialObjectMetadata) {
			gb.graphChanges.Add(&event{eventType: updateEvent, obj: newObj, oldObj: oldObj, apiVersion: apiVersion, kind: r.Kind})
		},
		DeleteFunc: func(obj *metav1.PartialObjectMetadata) {
			gb.graphChanges.Add(&event{eventType: deleteEvent, obj: obj, apiVersion: apiVersion, kind: r.Kind})
		},
	}
}

// IsSynced: every monitor has listed once.
func (gb *GraphBuilder) IsSynced() bool {
	gb.monitorLock.Lock()
	defer gb.monitorLock.Unlock()
	for _, m := range gb.monitors {
		if !m.informer.HasSynced() {
			return false
		}
	}
	return true
}

// runProcessGraphChanges applies the graph changes one at a time until the
// queue shuts down.
func (gb *GraphBuilder) runProcessGraphChanges() {
	for {
		ev, quit := gb.graphChanges.Get()
		if quit {
			return
		}
		gb.processGraphChanges(ev)
		gb.graphChanges.Done(ev)
	}
}

// enqueueVirtualDeleteEvent: a worker found the object of a node gone.
func (gb *GraphBuilder) enqueueVirtualDeleteEvent(ref objectReference) {
	gb.graphChanges.Add(&event{virtual: true, eventType: deleteEvent, apiVersion: ref.APIVersion, kind: ref.Kind,
		obj: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name, UID: ref.UID}}})
}

func identityFromEvent(ev *event) objectReference {
	m := &ev.obj.ObjectMeta
	return objectReference{APIVersion: ev.apiVersion, Kind: ev.kind, Name: m.Name, UID: m.UID, Namespace: m.Namespace}
}

// processGraphChanges applies one change to the graph. Upstream: the function
// of the same name in graph_builder.go.
func (gb *GraphBuilder) processGraphChanges(ev *event) {
	gb.mu.Lock()
	defer gb.mu.Unlock()
	m := &ev.obj.ObjectMeta
	existing, found := gb.uidToNode[m.UID]
	if found && !ev.virtual && !existing.isObserved() {
		// A virtual node is observed at last: take the identity the
		// informer reports. Dependents that named it with other
		// coordinates (another namespace) may point at nothing: check them.
		observed := identityFromEvent(ev)
		if observed != existing.identity {
			for dep := range existing.dependents {
				if observed.Namespace != "" && dep.identity.Namespace != observed.Namespace {
					gb.reportInvalidNamespaceOwnerRef(dep, observed.UID)
				}
				gb.attemptToDelete.Add(dep)
			}
			existing.identity = observed
		}
		existing.virtual = false
	}

	switch {
	case (ev.eventType == addEvent || ev.eventType == updateEvent) && !found:
		n := &node{
			identity:           identityFromEvent(ev),
			dependents:         map[*node]struct{}{},
			owners:             slices.Clone(m.OwnerReferences),
			beingDeleted:       m.DeletionTimestamp != nil,
			deletingDependents: m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, metav1.FinalizerDeleteDependents),
		}
		gb.uidToNode[m.UID] = n
		gb.addDependentToOwners(n, n.owners)
		gb.processTransitions(ev.oldObj, ev.obj, n)

	case ev.eventType == addEvent || ev.eventType == updateEvent:
		added, removed, changed := referencesDiffs(existing.owners, m.OwnerReferences)
		if len(added) != 0 || len(removed) != 0 || len(changed) != 0 {
			// An owner waiting for its blocking dependents may be free now.
			gb.addUnblockedOwnersToDeleteQueue(removed, changed)
			existing.owners = slices.Clone(m.OwnerReferences)
			gb.addDependentToOwners(existing, added)
			gb.removeDependentFromOwners(existing, removed)
		}
		if m.DeletionTimestamp != nil {
			existing.beingDeleted = true
		}
		gb.processTransitions(ev.oldObj, ev.obj, existing)

	case ev.eventType == deleteEvent:
		if !found {
			return
		}
		if ev.virtual && existing.isObserved() {
			// A worker's GET said "gone", but the informer still has the
			// object: its own delete event will come and be the authority.
			return
		}
		gb.removeNode(existing)
		if len(existing.dependents) > 0 {
			// Its dependents will look it up; remember the answer.
			gb.absentOwnerCache.Add(existing.identity)
		}
		for dep := range existing.dependents {
			gb.attemptToDelete.Add(dep)
		}
		for _, o := range existing.owners {
			if owner, ok := gb.uidToNode[o.UID]; ok && owner.deletingDependents {
				// Maybe the last blocking dependent of a foreground deletion.
				gb.attemptToDelete.Add(owner)
			}
		}
	}
}

// processTransitions starts the work a deletion with a GC finalizer asks
// for, once, when the object first shows it.
func (gb *GraphBuilder) processTransitions(oldObj, newObj *metav1.PartialObjectMetadata, n *node) {
	if deletionStartsWithFinalizer(oldObj, newObj, metav1.FinalizerOrphanDependents) {
		gb.log.Debug("add item to attemptToOrphan", "item", n.identity)
		gb.attemptToOrphan.Add(n)
		return
	}
	if deletionStartsWithFinalizer(oldObj, newObj, metav1.FinalizerDeleteDependents) {
		gb.log.Debug("add item and its dependents to attemptToDelete", "item", n.identity)
		n.deletingDependents = true
		for dep := range n.dependents {
			gb.attemptToDelete.Add(dep)
		}
		gb.attemptToDelete.Add(n)
	}
}

// deletionStartsWithFinalizer: newObj is being deleted with finalizer, and
// oldObj (nil for an add) was not.
func deletionStartsWithFinalizer(oldObj, newObj *metav1.PartialObjectMetadata, finalizer string) bool {
	if newObj.DeletionTimestamp == nil || !slices.Contains(newObj.Finalizers, finalizer) {
		return false
	}
	if oldObj == nil {
		return true
	}
	return oldObj.DeletionTimestamp == nil || !slices.Contains(oldObj.Finalizers, finalizer)
}

// addDependentToOwners links n under each owner, making up a virtual node
// for an owner not in the graph (a worker checks whether it exists).
func (gb *GraphBuilder) addDependentToOwners(n *node, owners []metav1.OwnerReference) {
	potentiallyInvalid := false
	for _, o := range owners {
		owner, ok := gb.uidToNode[o.UID]
		if !ok {
			owner = &node{identity: objectReference{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: o.UID,
				Namespace: n.identity.Namespace}, dependents: map[*node]struct{}{}, virtual: true}
			gb.uidToNode[o.UID] = owner
		}
		owner.dependents[n] = struct{}{}
		if !ok {
			gb.attemptToDelete.Add(owner)
			continue
		}
		ownerNamespaced := owner.identity.Namespace != ""
		switch {
		case ownerNamespaced && owner.identity.Namespace != n.identity.Namespace:
			// An owner in another namespace: ownerReferences cannot
			// cross namespaces, so for n it does not exist.
			if owner.isObserved() {
				gb.reportInvalidNamespaceOwnerRef(n, o.UID)
			}
			potentiallyInvalid = true
		case o.APIVersion != owner.identity.APIVersion || o.Kind != owner.identity.Kind || o.Name != owner.identity.Name:
			potentiallyInvalid = true
		}
	}
	if potentiallyInvalid {
		gb.attemptToDelete.Add(n)
	}
}

func (gb *GraphBuilder) removeDependentFromOwners(n *node, owners []metav1.OwnerReference) {
	for _, o := range owners {
		if owner, ok := gb.uidToNode[o.UID]; ok {
			delete(owner.dependents, n)
		}
	}
}

// removeNode takes n out of the graph and out of its owners' dependents.
func (gb *GraphBuilder) removeNode(n *node) {
	delete(gb.uidToNode, n.identity.UID)
	gb.removeDependentFromOwners(n, n.owners)
}

// addUnblockedOwnersToDeleteQueue: an owner deleted in the foreground whose
// dependent stopped blocking it (the reference removed, or
// blockOwnerDeletion turned off) may be ready to go.
func (gb *GraphBuilder) addUnblockedOwnersToDeleteQueue(removed []metav1.OwnerReference, changed []ownerRefPair) {
	for _, ref := range removed {
		if ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			if owner, ok := gb.uidToNode[ref.UID]; ok && owner.deletingDependents {
				gb.attemptToDelete.Add(owner)
			}
		}
	}
	for _, c := range changed {
		wasBlocked := c.oldRef.BlockOwnerDeletion != nil && *c.oldRef.BlockOwnerDeletion
		isBlocked := c.newRef.BlockOwnerDeletion != nil && *c.newRef.BlockOwnerDeletion
		if wasBlocked && !isBlocked {
			if owner, ok := gb.uidToNode[c.newRef.UID]; ok && owner.deletingDependents {
				gb.attemptToDelete.Add(owner)
			}
		}
	}
}

type ownerRefPair struct{ oldRef, newRef metav1.OwnerReference }

// referencesDiffs compares two ownerReference lists by UID.
func referencesDiffs(old, new []metav1.OwnerReference) (added, removed []metav1.OwnerReference, changed []ownerRefPair) {
	oldByUID := map[string]metav1.OwnerReference{}
	for _, r := range old {
		oldByUID[r.UID] = r
	}
	for _, r := range new {
		o, ok := oldByUID[r.UID]
		if !ok {
			added = append(added, r)
			continue
		}
		if !sameRef(o, r) {
			changed = append(changed, ownerRefPair{o, r})
		}
		delete(oldByUID, r.UID)
	}
	for _, r := range old {
		if _, ok := oldByUID[r.UID]; ok {
			removed = append(removed, r)
		}
	}
	return added, removed, changed
}

func sameRef(a, b metav1.OwnerReference) bool {
	eq := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		eq(a.Controller, b.Controller) && eq(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

// reportInvalidNamespaceOwnerRef writes upstream's warning about a
// dependent that names an owner living in another namespace.
func (gb *GraphBuilder) reportInvalidNamespaceOwnerRef(n *node, ownerUID string) {
	for _, o := range n.owners {
		if o.UID != ownerUID {
			continue
		}
		invalid := ownerReferenceCoordinates(o)
		invalid.Namespace = n.identity.Namespace
		ref := corev1.ObjectReference{Kind: n.identity.Kind, APIVersion: n.identity.APIVersion,
			Namespace: n.identity.Namespace, Name: n.identity.Name, UID: n.identity.UID}
		gb.recorder.Eventf(ref, corev1.EventTypeWarning, "OwnerRefInvalidNamespace",
			"ownerRef %s does not exist in namespace %q", invalid, n.identity.Namespace)
		return
	}
}

// syncMonitors makes the monitors those of resources: a monitor for each
// new resource (started at once if the collector runs), the monitors of
// resources no longer served stopped. Upstream: GraphBuilder.syncMonitors.
func (gb *GraphBuilder) syncMonitors(resources []*scheme.Resource) (added, removed int) {
	gb.monitorLock.Lock()
	defer gb.monitorLock.Unlock()
	keep := map[string]bool{}
	for _, r := range resources {
		gr := r.GroupResource()
		keep[gr] = true
		if _, ok := gb.monitors[gr]; ok {
			continue
		}
		inf := cache.New[metav1.PartialObjectMetadata](gb.client, cache.Options{Resource: r, Logger: gb.log})
		inf.AddEventHandler(gb.handlerFor(r))
		gb.monitors[gr] = &monitor{resource: r, informer: inf}
		added++
	}
	for gr, m := range gb.monitors {
		if !keep[gr] {
			if m.cancel != nil {
				m.cancel()
			}
			delete(gb.monitors, gr)
			removed++
		}
	}
	if gb.running != nil {
		gb.startMonitorsLocked()
	}
	return added, removed
}

// resources are the monitored resources.
func (gb *GraphBuilder) resources() []*scheme.Resource {
	gb.monitorLock.Lock()
	defer gb.monitorLock.Unlock()
	var out []*scheme.Resource
	for _, m := range gb.monitors {
		out = append(out, m.resource)
	}
	return out
}

// startMonitors runs every monitor, and each one syncMonitors adds later,
// until ctx ends. Upstream: GraphBuilder.startMonitors.
func (gb *GraphBuilder) startMonitors(ctx context.Context) {
	gb.monitorLock.Lock()
	defer gb.monitorLock.Unlock()
	gb.running = ctx
	gb.startMonitorsLocked()
}

func (gb *GraphBuilder) startMonitorsLocked() {
	for _, m := range gb.monitors {
		if m.cancel == nil {
			ctx, cancel := context.WithCancel(gb.running)
			m.cancel = cancel
			go m.informer.Run(ctx)
		}
	}
}

// absentOwnerCache remembers owners found missing, so that the many
// dependents of one deleted owner need one GET, not one each. Bounded: when
// full it starts over. Upstream: a ReferenceCache (LRU), absent_owner_cache.go.
type absentOwnerCache struct {
	mu    sync.Mutex
	max   int
	items map[objectReference]struct{}
}

func newAbsentOwnerCache(max int) *absentOwnerCache {
	return &absentOwnerCache{max: max, items: map[objectReference]struct{}{}}
}

func (c *absentOwnerCache) Add(r objectReference) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.items) >= c.max {
		c.items = map[objectReference]struct{}{}
	}
	c.items[r] = struct{}{}
}

func (c *absentOwnerCache) Has(r objectReference) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[r]
	return ok
}
