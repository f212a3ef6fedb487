// Package namespace empties a namespace being deleted, then lets it go.
//
// `kubectl delete namespace x` does not delete x at once: every namespace is
// created with the "kubernetes" finalizer in spec.finalizers, so the
// apiserver only sets its deletionTimestamp and phase Terminating (and
// refuses new objects in it). This controller then, in upstream's files:
//
//   - namespace_controller.go (this file): watches namespaces; one with a
//     deletionTimestamp is queued (after a 5 s grace period, so that
//     last-moment creations are visible) and handed to the deleter.
//   - namespaced_resources_deleter.go: reads the namespace live, makes sure
//     its phase is Terminating, discovers every namespaced resource
//     (GET /api, /apis), deletes all objects of each in the namespace
//     (deletecollection, or list and delete one by one) — pods first, and
//     nothing else while one remains (OrderedNamespaceDeletion) —, checks what
//     remains, records it in the namespace's conditions, and — once nothing
//     is left — removes "kubernetes" through PUT /api/v1/namespaces/x/finalize.
//     The apiserver deletes the namespace when its last finalizer is gone.
//   - status_condition_utils.go: the five conditions
//     (NamespaceDeletionDiscoveryFailure, NamespaceDeletionContentFailure,
//     NamespaceContentRemaining, NamespaceFinalizersRemaining, ...) with
//     upstream's reasons and messages, shown by `kubectl describe ns x`.
//
// Pods that are shutting down (a grace period) make the deleter come back
// after half the longest grace period, as upstream.
//
// Upstream: pkg/controller/namespace and its deletion package.
package namespace

import (
	"context"
	"errors"
	"kubik/ch04-controllers/worker"
	"log/slog"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// namespaceDeletionGracePeriod is how long after a namespace is seen deleted
// the controller starts: time for every apiserver to see the deletion and
// for objects created at the last moment to become visible.
const namespaceDeletionGracePeriod = 5 * time.Second

// NamespaceController deletes the content of terminating namespaces.
type NamespaceController struct {
	client    *rest.Client
	informer  *cache.Informer[corev1.Namespace, *corev1.Namespace]
	queue     *workqueue.RateLimitingQueue[string]
	deleter   *namespacedResourcesDeleter
	log       *slog.Logger
	gracetime time.Duration // namespaceDeletionGracePeriod; tests shorten it
}

// NewNamespaceController registers the controller's namespace handlers.
func NewNamespaceController(cc *controller.ControllerContext) (*NamespaceController, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", "namespace-controller")
	nm := &NamespaceController{
		client:   cc.Client,
		informer: controller.InformerFor[corev1.Namespace](cc.Informers),
		// Upstream's queue backs off from 5 ms to 60 s per namespace.
		queue: workqueue.NewRateLimiting(workqueue.NewMaxOfRateLimiter[string](
			workqueue.NewItemExponentialFailureRateLimiter[string](5*time.Millisecond, 60*time.Second),
			workqueue.NewBucketRateLimiter[string](10, 100))),
		deleter:   newNamespacedResourcesDeleter(cc.Client, log),
		log:       log,
		gracetime: namespaceDeletionGracePeriod,
	}
	nm.informer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Namespace]{
		AddFunc:    nm.enqueueNamespace,
		UpdateFunc: func(_, ns *corev1.Namespace) { nm.enqueueNamespace(ns) },
	})
	return nm, nil
}

// enqueueNamespace queues a namespace being deleted.
func (nm *NamespaceController) enqueueNamespace(ns *corev1.Namespace) {
	if ns.DeletionTimestamp == nil {
		return
	}
	nm.queue.AddAfter(ns.Name, nm.gracetime)
}

// Run waits for the namespace informer, then runs workers until ctx ends.
func (nm *NamespaceController) Run(ctx context.Context, workers int) {
	nm.log.Info("starting")
	worker.RunWorkers(ctx, nm.queue, workers, nm.processNextWorkItem, nm.informer.HasSynced)
}

func (nm *NamespaceController) processNextWorkItem(ctx context.Context) bool {
	key, quit := nm.queue.Get()
	if quit {
		return false
	}
	defer nm.queue.Done(key)
	err := nm.syncNamespaceFromKey(ctx, key)
	if err == nil {
		nm.queue.Forget(key)
		return true
	}
	var remaining *ResourcesRemainingError
	if errors.As(err, &remaining) {
		// Pods are shutting down: come back when about half of the
		// longest grace period has passed.
		nm.queue.AddAfter(key, time.Duration(remaining.Estimate/2+1)*time.Second)
	} else {
		nm.queue.AddRateLimited(key)
		if ctx.Err() == nil {
			nm.log.Info("deletion of namespace failed", "namespace", key, "err", err)
		}
	}
	return true
}

// syncNamespaceFromKey deletes the content of the namespace, if it is
// still there.
func (nm *NamespaceController) syncNamespaceFromKey(ctx context.Context, key string) error {
	start := time.Now()
	defer func() { nm.log.Debug("finished syncing namespace", "namespace", key, "duration", time.Since(start)) }()
	if _, ok := nm.informer.GetStore().Get("", key); !ok {
		return nil // deleted already
	}
	return nm.deleter.Delete(ctx, key)
}
