// Package endpoint is the Endpoints controller of kube-controller-manager:
// it keeps, for every Service with a selector, an Endpoints object of the
// same name listing the IPs and ports of the pods the selector matches.
//
// The loop, in plain words. A Service's key is queued when the Service
// changes, when its Endpoints object is changed or deleted by someone
// else, and when a pod it selects (before or after the change) is added,
// changes or goes. syncService then lists the selected pods from the cache
// and builds the subsets:
//
//   - a pod without an IP, or finished, is left out; a pod being deleted is
//     left out unless the Service has publishNotReadyAddresses;
//   - a ready pod (or any pod, with publishNotReadyAddresses) goes to
//     addresses, the others to notReadyAddresses;
//   - each service port is resolved on each pod: a named targetPort ("http")
//     is looked up in that pod's containers, so pods of two versions may
//     serve one Service on different numbers;
//   - addresses with the same ports are packed into one subset.
//
// It writes the Endpoints only when they differ. Services without a
// selector are left alone: their Endpoints are written by someone else —
// for default/kubernetes, the apiserver's own endpoint reconciler.
//
// Upstream: pkg/controller/endpoint/endpoints_controller.go and
// pkg/api/v1/endpoints (RepackSubsets).
package endpoint

import (
	"context"
	"kubik/ch04-controllers/controller/endpointutil"
	"kubik/ch04-controllers/worker"
	"log/slog"
	"maps"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// ControllerName is upstream's component name.
const ControllerName = "endpoint-controller"

// LabelManagedBy marks the Endpoints this controller writes (upstream
// since 1.33, when v1 Endpoints were deprecated in favour of
// EndpointSlices), with value ControllerName.
const LabelManagedBy = "endpoints.kubernetes.io/managed-by"

// EndpointController is upstream's endpoint.Controller.
type EndpointController struct {
	client    *rest.Client
	services  *cache.Informer[corev1.Service, *corev1.Service]
	pods      *cache.Informer[corev1.Pod, *corev1.Pod]
	endpoints *cache.Informer[corev1.Endpoints, *corev1.Endpoints]
	queue     *workqueue.RateLimitingQueue[string]
	log       *slog.Logger
}

// NewEndpointController asks for the Service, Pod and Endpoints informers.
func NewEndpointController(cc *controller.ControllerContext) (*EndpointController, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &EndpointController{client: cc.Client, log: log.With("controller", ControllerName),
		services:  controller.InformerFor[corev1.Service](cc.Informers),
		pods:      controller.InformerFor[corev1.Pod](cc.Informers),
		endpoints: controller.InformerFor[corev1.Endpoints](cc.Informers),
		queue:     workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
	}
	cache.AddNamespaceIndex(c.pods)
	cache.AddNamespaceIndex(c.services)
	enqueue := func(s *corev1.Service) { c.queue.Add(cache.MetaNamespaceKeyFunc(s)) }
	c.services.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Service]{
		AddFunc: enqueue, UpdateFunc: func(_, s *corev1.Service) { enqueue(s) }, DeleteFunc: enqueue})
	c.pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc:    func(p *corev1.Pod) { c.enqueueServicesOf(p, nil) },
		UpdateFunc: func(old, p *corev1.Pod) { c.enqueueServicesOf(p, old) },
		DeleteFunc: func(p *corev1.Pod) { c.enqueueServicesOf(p, nil) },
	})
	// Someone changed or deleted our Endpoints: put them right.
	epChanged := func(e *corev1.Endpoints) {
		if _, ok := c.services.GetStore().Get(e.Namespace, e.Name); ok {
			c.queue.Add(cache.MetaNamespaceKeyFunc(e))
		}
	}
	c.endpoints.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Endpoints]{
		UpdateFunc: func(_, e *corev1.Endpoints) { epChanged(e) }, DeleteFunc: epChanged})
	return c, nil
}

// enqueueServicesOf queues the Services selecting p now or before (old).
func (c *EndpointController) enqueueServicesOf(p, old *corev1.Pod) {
	for _, key := range endpointutil.PodServiceMemberships(c.services.GetStore(), p, old) {
		c.queue.Add(key)
	}
}

// Run waits for the caches and runs workers until ctx ends.
func (c *EndpointController) Run(ctx context.Context, workers int) {
	worker.RunWorkers(ctx, c.queue, workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.syncService), c.log, "service")
	}, c.services.HasSynced, c.pods.HasSynced, c.endpoints.HasSynced)
}

func copyLabels(m map[string]string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	return out
}
