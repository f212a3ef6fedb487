// Package garbagecollector deletes the objects whose owners are gone: the
// ReplicaSets of a deleted Deployment, then their Pods. An object names its
// owners in metadata.ownerReferences; the collector keeps the graph of those
// references over every resource and acts when an owner disappears or asks,
// through a finalizer, for a particular kind of deletion:
//
//   - background (kubectl delete's default): the owner is deleted at once;
//     its dependents, whose owner is now missing, are deleted after it.
//   - foreground (--cascade=foreground): the apiserver keeps the owner, with
//     a deletionTimestamp and the foregroundDeletion finalizer, while the
//     collector deletes the dependents; when no dependent with
//     blockOwnerDeletion remains, it removes the finalizer and the owner goes.
//   - orphan (--cascade=orphan): the owner carries the orphan finalizer; the
//     collector removes the owner's reference from every dependent, then the
//     finalizer. The dependents stay, ownerless.
//
// The loop, in upstream's files:
//
//   - graph_builder.go: one monitor (a metadata-only informer) per deletable
//     resource found by discovery. One goroutine applies their events to the
//     graph (uidToNode): adds nodes, links dependents to owners, makes up a
//     "virtual" node for an owner nobody has seen, and queues work:
//     attemptToDelete for the dependents of a deleted owner and for virtual
//     nodes, attemptToOrphan for an owner being deleted with "orphan".
//   - garbagecollector.go (this file): the workers. attemptToDeleteItem reads
//     the object live, classifies its owners by live GETs (solid, dangling,
//     waiting for its dependents' deletion) and deletes it only if none is
//     solid: a stale cache never deletes anything.
//   - operations.go, patch.go: the GET, DELETE and PATCH requests.
//
// Resources are discovered at start and again every SyncPeriod (Sync): a
// CustomResourceDefinition created later gets its monitor, the monitor of a
// resource no longer served stops.
//
// Simplified: every monitor is its own metadata informer (upstream shares
// the typed informers where they exist).
//
// Upstream: pkg/controller/garbagecollector.
package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"kubik/ch04-controllers/record"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
)

// DefaultIgnoredResources are not monitored: nothing owns events, and there
// are many. Upstream: garbagecollector.DefaultIgnoredResources.
var DefaultIgnoredResources = map[string]bool{"events": true, "events.events.k8s.io": true}

// SyncPeriod is how often the collector re-reads discovery (Sync).
// Upstream: the syncPeriod kube-controller-manager starts the collector with.
const SyncPeriod = 30 * time.Second

// Options are the collector's settings.
type Options struct {
	// SyncPeriod is how often discovery is read again (0: SyncPeriod).
	SyncPeriod time.Duration
}

// GarbageCollector runs the graph builder and the workers.
type GarbageCollector struct {
	client     *rest.Client
	log        *slog.Logger
	syncPeriod time.Duration
	// mapper resolves owner references; Sync replaces it.
	mapperLock sync.RWMutex
	mapper     *controller.RESTMapper
	gb         *GraphBuilder
	// discoveryErr: some groups could not be discovered; their objects are
	// neither monitored nor collected.
	discoveryErr error
	// runRecorder writes the events (controller.Recorder.Run).
	runRecorder func(context.Context)
}

// NewGarbageCollector discovers the deletable resources and prepares a
// monitor for each. Discovery is retried until it works or ctx ends (it is
// the apiserver this process just connected to).
func NewGarbageCollector(cc *controller.ControllerContext, opts Options) (*GarbageCollector, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", "garbage-collector-controller")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resources, err := controller.ServerPreferredResources(ctx, cc.Client)
	var partial *controller.ErrGroupDiscoveryFailed
	if err != nil && !errors.As(err, &partial) {
		return nil, fmt.Errorf("garbage collector: discovery: %w", err)
	}
	recorder := record.NewRecorder(cc.Client, "garbage-collector-controller", log)
	gc := newGarbageCollector(cc.Client, resources, err, recorder, log)
	gc.runRecorder = recorder.Run
	if opts.SyncPeriod > 0 {
		gc.syncPeriod = opts.SyncPeriod
	}
	return gc, nil
}

func newGarbageCollector(c *rest.Client, resources []*scheme.Resource, discoveryErr error, recorder eventRecorder, log *slog.Logger) *GarbageCollector {
	gc := &GarbageCollector{client: c, log: log, syncPeriod: SyncPeriod, mapper: controller.NewRESTMapper(resources),
		gb: newGraphBuilder(c, recorder, log), discoveryErr: discoveryErr}
	gc.gb.syncMonitors(GetDeletableResources(resources))
	return gc
}

// GetDeletableResources keeps the resources the collector can watch and
// delete (verbs delete, list, watch), minus the ignored ones.
func GetDeletableResources(resources []*scheme.Resource) []*scheme.Resource {
	var out []*scheme.Resource
	for _, r := range controller.SupportsAllVerbs(resources, "delete", "list", "watch") {
		if !DefaultIgnoredResources[r.GroupResource()] {
			out = append(out, r)
		}
	}
	return out
}

// Run starts the monitors and the graph builder, waits for the monitors to
// list once, then runs workers goroutines for attemptToDelete and one for
// attemptToOrphan until ctx ends.
func (gc *GarbageCollector) Run(ctx context.Context, workers int) {
	gb := gc.gb
	defer gb.graphChanges.ShutDown()
	defer gb.attemptToDelete.ShutDown()
	defer gb.attemptToOrphan.ShutDown()
	if gc.discoveryErr != nil {
		gc.log.Warn("some resources could not be discovered; they are not garbage collected", "err", gc.discoveryErr)
	}
	gb.monitorLock.Lock()
	gc.log.Info("starting", "monitors", len(gb.monitors))
	gb.monitorLock.Unlock()
	if gc.runRecorder != nil {
		go gc.runRecorder(ctx)
	}
	gb.startMonitors(ctx)
	go gb.runProcessGraphChanges()
	if !cache.WaitForCacheSync(ctx, gb.IsSynced) {
		return
	}
	gc.log.Info("all resource monitors have synced; proceeding to collect garbage")
	var wg sync.WaitGroup
	wg.Go(func() { gc.Sync(ctx, gc.syncPeriod) })
	for range max(workers, 1) {
		wg.Go(func() {
			for gc.processAttemptToDeleteWorker(ctx) {
			}
		})
	}
	wg.Go(func() {
		for gc.processAttemptToOrphanWorker(ctx) {
		}
	})
	<-ctx.Done()
	gb.attemptToDelete.ShutDown()
	gb.attemptToOrphan.ShutDown()
	wg.Wait()
}

// Sync re-reads discovery every period until ctx ends; when the deletable
// resources changed it replaces the RESTMapper and the monitors, and waits
// (at most a period) for the new monitors to list. Upstream:
// GarbageCollector.Sync.
func (gc *GarbageCollector) Sync(ctx context.Context, period time.Duration) {
	old := resourceSet(gc.gb.resources())
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		all, err := controller.ServerPreferredResources(ctx, gc.client)
		var partial *controller.ErrGroupDiscoveryFailed
		if err != nil && !errors.As(err, &partial) {
			gc.log.Info("failed to discover resources", "err", err)
			continue
		}
		if partial != nil {
			// Keep the monitored resources of the groups that failed this
			// time: upstream does not stop what it cannot see.
			all = append(all, failedGroups(gc.gb.resources(), partial)...)
		}
		deletable := GetDeletableResources(all)
		now := resourceSet(deletable)
		if maps.Equal(old, now) {
			continue
		}
		gc.mapperLock.Lock()
		gc.mapper = controller.NewRESTMapper(all)
		gc.mapperLock.Unlock()
		added, removed := gc.gb.syncMonitors(deletable)
		gc.log.Info("synced monitors", "added", added, "removed", removed)
		waitCtx, cancel := context.WithTimeout(ctx, period)
		if !cache.WaitForCacheSync(waitCtx, gc.gb.IsSynced) {
			gc.log.Info("timed out waiting for dependency graph builder sync during GC sync")
		}
		cancel()
		old = now
	}
}

// restMapper returns the current RESTMapper.
func (gc *GarbageCollector) restMapper() *controller.RESTMapper {
	gc.mapperLock.RLock()
	defer gc.mapperLock.RUnlock()
	return gc.mapper
}

// resourceSet is a set of group versions and resources, to tell whether
// discovery changed.
func resourceSet(rs []*scheme.Resource) map[string]bool {
	s := map[string]bool{}
	for _, r := range rs {
		s[r.GroupVersion()+"/"+r.Resource] = true
	}
	return s
}

// failedGroups are the monitored resources of the group versions
// discovery could not read.
func failedGroups(monitored []*scheme.Resource, partial *controller.ErrGroupDiscoveryFailed) []*scheme.Resource {
	var out []*scheme.Resource
	for _, r := range monitored {
		if _, failed := partial.Groups[r.GroupVersion()]; failed {
			out = append(out, r)
		}
	}
	return out
}

// Errors that end an item's processing without a retry.
var (
	errEnqueuedVirtualDelete                = errors.New("enqueued virtual delete event")
	errNamespacedOwnerOfClusterScopedObject = errors.New("cluster-scoped objects cannot refer to namespaced owners")
)

func (gc *GarbageCollector) processAttemptToDeleteWorker(ctx context.Context) bool {
	n, quit := gc.gb.attemptToDelete.Get()
	if quit {
		return false
	}
	defer gc.gb.attemptToDelete.Done(n)
	if gc.attemptToDeleteWorker(ctx, n) {
		gc.gb.attemptToDelete.AddRateLimited(n)
	} else {
		gc.gb.attemptToDelete.Forget(n)
	}
	return true
}

// attemptToDeleteWorker processes one node; true means "try again later".
func (gc *GarbageCollector) attemptToDeleteWorker(ctx context.Context, n *node) (requeue bool) {
	gb := gc.gb
	gb.mu.RLock()
	virtual := n.virtual
	if virtual {
		// The node may have left the graph, or been observed, since it was
		// queued: then there is nothing left to check.
		inGraph, ok := gb.uidToNode[n.identity.UID]
		if !ok || inGraph.isObserved() {
			gb.mu.RUnlock()
			return false
		}
	}
	gb.mu.RUnlock()

	err := gc.attemptToDeleteItem(ctx, n)
	switch {
	case errors.Is(err, errEnqueuedVirtualDelete), errors.Is(err, errNamespacedOwnerOfClusterScopedObject):
		return false
	case err != nil:
		if ctx.Err() == nil {
			gc.log.Info("error syncing item", "item", n.identity, "err", err)
		}
		return true
	}
	gb.mu.RLock()
	defer gb.mu.RUnlock()
	// A virtual node whose object exists: wait until an informer reports it.
	return n.virtual
}

// attemptToDeleteItem reads the object live and deletes it if all its owners
// are gone (or are being deleted in the foreground and it has dependents of
// its own). Upstream: the function of the same name.
func (gc *GarbageCollector) attemptToDeleteItem(ctx context.Context, item *node) error {
	gb := gc.gb
	gb.mu.RLock()
	identity, beingDeleted, deletingDependents := item.identity, item.beingDeleted, item.deletingDependents
	gb.mu.RUnlock()
	gc.log.Debug("processing item", "item", identity)

	// Being deleted is a one-way trip: wait for the final deletion.
	if beingDeleted && !deletingDependents {
		return nil
	}
	latest, err := gc.getObject(ctx, identity)
	switch {
	case rest.IsNotFound(err):
		gb.enqueueVirtualDeleteEvent(identity)
		return errEnqueuedVirtualDelete
	case err != nil:
		return err
	}
	if latest.UID != identity.UID {
		gb.enqueueVirtualDeleteEvent(identity)
		return errEnqueuedVirtualDelete
	}
	if deletingDependents {
		return gc.processDeletingDependentsItem(ctx, item)
	}

	ownerReferences := latest.OwnerReferences
	if len(ownerReferences) == 0 {
		return nil // no owner: nothing to collect
	}
	solid, dangling, waiting, err := gc.classifyReferences(ctx, identity, ownerReferences)
	if err != nil {
		return err
	}
	gc.log.Debug("classify references", "item", identity, "solid", len(solid), "dangling", len(dangling), "waitingForDependentsDeletion", len(waiting))

	gb.mu.RLock()
	hasDependents := len(item.dependents) != 0
	dependentDeleting := false
	for dep := range item.dependents {
		dependentDeleting = dependentDeleting || dep.deletingDependents
	}
	gb.mu.RUnlock()

	switch {
	case len(solid) != 0:
		// At least one owner exists: keep the object, but drop the
		// references to owners that are gone or waiting for it (else a
		// foreground deletion would wait for it forever).
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		var uids []string
		for _, r := range append(dangling, waiting...) {
			uids = append(uids, r.UID)
		}
		gc.log.Info("removing dangling and waiting owner references", "item", identity, "owners", uids)
		return gc.patch(ctx, identity, deleteOwnerRefStrategicMergePatch(identity.UID, uids...))

	case len(waiting) != 0 && hasDependents:
		// An owner waits for this object's deletion and it has dependents
		// of its own: delete it in the foreground too, so the wait
		// extends down the chain. To avoid a cycle of owners waiting on
		// each other, stop blocking the owners first if a dependent
		// already waits as well.
		if dependentDeleting {
			if err := gc.patch(ctx, identity, unblockOwnerReferencesStrategicMergePatch(identity.UID, latest.OwnerReferences)); err != nil {
				return err
			}
		}
		gc.log.Info("deleting item in the foreground: an owner waits for it and it has dependents", "item", identity)
		return gc.deleteObject(ctx, identity, metav1.DeletePropagationForeground)

	default:
		// No solid owner: collect it, honouring a deletion mode its own
		// finalizers already ask for.
		policy := metav1.DeletePropagationBackground
		switch {
		case slices.Contains(latest.Finalizers, metav1.FinalizerOrphanDependents):
			policy = metav1.DeletePropagationOrphan
		case slices.Contains(latest.Finalizers, metav1.FinalizerDeleteDependents):
			policy = metav1.DeletePropagationForeground
		}
		gc.log.Info("deleting item", "item", identity, "propagationPolicy", policy)
		return gc.deleteObject(ctx, identity, policy)
	}
}

// classifyReferences sorts an object's owners by live lookups: solid (exists
// and is not waiting), dangling (gone, or another object under that name),
// waiting (being deleted with foregroundDeletion).
func (gc *GarbageCollector) classifyReferences(ctx context.Context, item objectReference, refs []metav1.OwnerReference) (solid, dangling, waiting []metav1.OwnerReference, err error) {
	for _, ref := range refs {
		isDangling, owner, err := gc.isDangling(ctx, ref, item)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case isDangling:
			dangling = append(dangling, ref)
		case owner.DeletionTimestamp != nil && slices.Contains(owner.Finalizers, metav1.FinalizerDeleteDependents):
			waiting = append(waiting, ref)
		default:
			solid = append(solid, ref)
		}
	}
	return solid, dangling, waiting, nil
}

// isDangling: does the owner ref points at still exist? A live GET decides
// (the graph may lag behind), with the absent-owner cache in front.
func (gc *GarbageCollector) isDangling(ctx context.Context, ref metav1.OwnerReference, item objectReference) (bool, *metav1.PartialObjectMetadata, error) {
	key := ownerReferenceCoordinates(ref)
	if gc.gb.absentOwnerCache.Has(key) {
		return true, nil, nil
	}
	key.Namespace = item.Namespace
	if gc.gb.absentOwnerCache.Has(key) {
		return true, nil, nil
	}
	r, err := gc.restMapper().ResourceFor(ref.APIVersion, ref.Kind)
	if err != nil {
		return false, nil, err
	}
	if !r.Namespaced {
		key.Namespace = ""
	}
	if item.Namespace == "" && r.Namespaced {
		return false, nil, errNamespacedOwnerOfClusterScopedObject
	}
	owner := &metav1.PartialObjectMetadata{}
	err = gc.client.Do(ctx, rest.Request{Method: "GET", Path: rest.ResourcePath(r, key.Namespace, ref.Name, "")}, owner)
	switch {
	case rest.IsNotFound(err):
		gc.gb.absentOwnerCache.Add(key)
		return true, nil, nil
	case err != nil:
		return false, nil, err
	}
	if owner.UID != ref.UID {
		gc.gb.absentOwnerCache.Add(key)
		return true, nil, nil
	}
	return false, owner, nil
}

// processDeletingDependentsItem: an owner deleted in the foreground. Once no
// dependent blocks it, remove its foregroundDeletion finalizer; until then,
// make sure every blocking dependent is being collected.
func (gc *GarbageCollector) processDeletingDependentsItem(ctx context.Context, item *node) error {
	gc.gb.mu.RLock()
	blocking := item.blockingDependents()
	var toDelete []*node
	for _, dep := range blocking {
		if !dep.deletingDependents {
			toDelete = append(toDelete, dep)
		}
	}
	identity := item.identity
	gc.gb.mu.RUnlock()
	if len(blocking) == 0 {
		gc.log.Info("removing the foregroundDeletion finalizer", "item", identity)
		return gc.removeFinalizer(ctx, identity, metav1.FinalizerDeleteDependents)
	}
	for _, dep := range toDelete {
		gc.gb.attemptToDelete.Add(dep)
	}
	return nil
}

func (gc *GarbageCollector) processAttemptToOrphanWorker(ctx context.Context) bool {
	owner, quit := gc.gb.attemptToOrphan.Get()
	if quit {
		return false
	}
	defer gc.gb.attemptToOrphan.Done(owner)
	if err := gc.attemptToOrphanWorker(ctx, owner); err != nil {
		if ctx.Err() == nil {
			gc.log.Info("orphaning failed; retrying", "owner", owner.identity, "err", err)
		}
		gc.gb.attemptToOrphan.AddRateLimited(owner)
		return true
	}
	gc.gb.attemptToOrphan.Forget(owner)
	return true
}

// attemptToOrphanWorker removes the owner's reference from each of its
// dependents, then the owner's orphan finalizer.
func (gc *GarbageCollector) attemptToOrphanWorker(ctx context.Context, owner *node) error {
	gc.gb.mu.RLock()
	dependents := owner.dependentsList()
	identity := owner.identity
	gc.gb.mu.RUnlock()
	if err := gc.orphanDependents(ctx, identity, dependents); err != nil {
		return err
	}
	return gc.removeFinalizer(ctx, identity, metav1.FinalizerOrphanDependents)
}

func (gc *GarbageCollector) orphanDependents(ctx context.Context, owner objectReference, dependents []*node) error {
	var errs []error
	for _, dep := range dependents {
		gc.gb.mu.RLock()
		id := dep.identity
		gc.gb.mu.RUnlock()
		err := gc.patch(ctx, id, deleteOwnerRefStrategicMergePatch(id.UID, owner.UID))
		if err != nil && !rest.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("orphaning %s failed, %v", id, err))
		}
	}
	if len(errs) != 0 {
		return fmt.Errorf("failed to orphan dependents of owner %s, got errors: %w", owner, errors.Join(errs...))
	}
	return nil
}
