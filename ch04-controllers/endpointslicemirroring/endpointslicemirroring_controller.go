// Package endpointslicemirroring is the EndpointSlice mirroring
// controller: for a Service without a selector, whose Endpoints a user (or
// another controller) writes by hand, it keeps EndpointSlices with the same
// addresses, so that whatever reads only EndpointSlices (kube-proxy, the
// cluster DNS) sees them:
//
//	kubectl create service clusterip db --tcp=5432   # then delete its selector
//	kubectl apply -f endpoints-db.yaml               # addresses by hand
//	kubectl get endpointslices -l kubernetes.io/service-name=db
//
// Each address becomes an endpoint (ready, or not for notReadyAddresses),
// each subset's ports the slice's ports, one slice per subset and address
// family. The slices carry the Endpoints' labels and annotations,
// kubernetes.io/service-name and
// endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io,
// and an ownerReference to the Endpoints. Endpoints labelled
// endpointslice.kubernetes.io/skip-mirror=true (the apiserver's own
// default/kubernetes) and Services with a selector (the endpointslice
// controller's) are left alone.
//
// Upstream: pkg/controller/endpointslicemirroring (endpointslicemirroring_controller.go,
// reconciler.go, utils.go); upstream also splits a subset above
// --mirroring-max-endpoints-per-subset, which this one does not.
package endpointslicemirroring

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/worker"
)

// ControllerName is the managed-by label of the mirrored slices.
const ControllerName = "endpointslicemirroring-controller.k8s.io"

// leaderAnnotation marks Endpoints used as a leader-election lock: never
// mirrored.
const leaderAnnotation = "control-plane.alpha.kubernetes.io/leader"

const indexByService = "endpointslicemirroring-controller/service"

// errStaleCache: the slice informer has not caught up with this
// controller's last writes for the Service; the sync is retried.
var errStaleCache = errors.New("EndpointSlice informer cache is out of date")

// Controller mirrors Endpoints into EndpointSlices.
type Controller struct {
	client    *rest.Client
	services  *cache.Informer[corev1.Service, *corev1.Service]
	endpoints *cache.Informer[corev1.Endpoints, *corev1.Endpoints]
	slices    *cache.Informer[discoveryv1.EndpointSlice, *discoveryv1.EndpointSlice]
	queue     *workqueue.RateLimitingQueue[string]
	log       *slog.Logger

	// pending are the slices this controller created or deleted that the
	// informer has not shown yet, by Service key (true: created).
	mu      sync.Mutex
	pending map[string]map[string]bool
}

// NewController asks for the Service, Endpoints and EndpointSlice
// informers. Upstream: NewController.
func NewController(cc *controller.ControllerContext) (*Controller, error) {
	c := &Controller{
		client:    cc.Client,
		services:  controller.InformerFor[corev1.Service](cc.Informers),
		endpoints: controller.InformerFor[corev1.Endpoints](cc.Informers),
		slices:    controller.InformerFor[discoveryv1.EndpointSlice](cc.Informers),
		queue:     workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		log:       cc.Log.With("controller", "endpointslice-mirroring-controller"),
		pending:   map[string]map[string]bool{},
	}
	c.slices.AddIndexers(cache.Indexers[discoveryv1.EndpointSlice]{indexByService: func(s *discoveryv1.EndpointSlice) []string {
		if s.Labels[discoveryv1.LabelManagedBy] != ControllerName || s.Labels[discoveryv1.LabelServiceName] == "" {
			return nil
		}
		return []string{s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName]}
	}})
	c.services.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Service]{
		AddFunc:    func(s *corev1.Service) { c.queue.Add(cache.MetaNamespaceKeyFunc(s)) },
		UpdateFunc: func(_, s *corev1.Service) { c.queue.Add(cache.MetaNamespaceKeyFunc(s)) },
		DeleteFunc: func(s *corev1.Service) { c.queue.Add(cache.MetaNamespaceKeyFunc(s)) },
	})
	c.endpoints.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Endpoints]{
		AddFunc:    func(e *corev1.Endpoints) { c.queue.Add(cache.MetaNamespaceKeyFunc(e)) },
		UpdateFunc: func(_, e *corev1.Endpoints) { c.queue.Add(cache.MetaNamespaceKeyFunc(e)) },
		DeleteFunc: func(e *corev1.Endpoints) { c.queue.Add(cache.MetaNamespaceKeyFunc(e)) },
	})
	sliceChanged := func(s *discoveryv1.EndpointSlice) {
		if s.Labels[discoveryv1.LabelManagedBy] == ControllerName && s.Labels[discoveryv1.LabelServiceName] != "" {
			key := s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName]
			c.observed(key, s.Name)
			c.queue.Add(key)
		}
	}
	c.slices.AddEventHandler(cache.ResourceEventHandlerFuncs[discoveryv1.EndpointSlice]{
		AddFunc:    sliceChanged,
		UpdateFunc: func(_, s *discoveryv1.EndpointSlice) { sliceChanged(s) },
		DeleteFunc: sliceChanged,
	})
	return c, nil
}

// Run waits for the caches and runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("Starting controller", "name", "endpointslice-mirroring")
	worker.RunWorkers(ctx, c.queue, workers, c.processNextWorkItem, c.services.HasSynced, c.endpoints.HasSynced, c.slices.HasSynced)
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.syncEndpoints), c.log, "endpoints")
}

// syncEndpoints mirrors the Endpoints of one Service, or deletes the
// mirrored slices when there is nothing (any more) to mirror.
func (c *Controller) syncEndpoints(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	existing := c.slices.GetStore().ByIndex(indexByService, key)
	if c.stale(key, existing) {
		return errStaleCache
	}
	svc, ok := c.services.GetStore().Get(ns, name)
	if !ok {
		// The Service is gone: its Endpoints' ownerReference lets the
		// garbage collector delete the slices.
		c.forget(key)
		return nil
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	ep, ok := c.endpoints.GetStore().Get(ns, name)
	if svc.Spec.Selector != nil || !ok || !shouldMirror(ep) {
		return c.deleteSlices(ctx, key, existing)
	}
	return c.reconcile(ctx, key, ep, existing)
}

// shouldMirror leaves out Endpoints marked skip-mirror and leader-election
// locks. Upstream: Controller.shouldMirror.
func shouldMirror(ep *corev1.Endpoints) bool {
	if ep.Labels[discoveryv1.LabelSkipMirror] == "true" {
		return false
	}
	_, leader := ep.Annotations[leaderAnnotation]
	return !leader
}

func (c *Controller) deleteSlices(ctx context.Context, key string, slices []*discoveryv1.EndpointSlice) error {
	for _, s := range slices {
		c.wrote(key, s.Name, false)
		if err := rest.Delete[discoveryv1.EndpointSlice](ctx, c.client, s.Namespace, s.Name, nil); err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// wrote records a slice created (true) or deleted (false) by this
// controller, until the informer shows it.
func (c *Controller) wrote(key, slice string, created bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[key] == nil {
		c.pending[key] = map[string]bool{}
	}
	c.pending[key][slice] = created
}

// observed: the informer showed an add, update or delete of slice.
func (c *Controller) observed(key, slice string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending[key], slice)
}

// stale: a slice this controller created is not yet in the cache, or one
// it deleted still is.
func (c *Controller) stale(key string, cached []*discoveryv1.EndpointSlice) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	have := map[string]bool{}
	for _, s := range cached {
		have[s.Name] = true
	}
	for name, created := range c.pending[key] {
		if created != have[name] {
			return true
		}
		delete(c.pending[key], name)
	}
	return false
}

func (c *Controller) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, key)
}
