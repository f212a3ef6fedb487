// Package endpointslice is the EndpointSlice controller of
// kube-controller-manager: for every Service with a selector it keeps
// EndpointSlices (discovery.k8s.io/v1) listing the selected pods — what
// kube-proxy and DNS read today; v1 Endpoints are the legacy form.
//
// The loop, in plain words. A Service's key is queued when the Service
// changes, when a pod it selects changes, and when one of its slices is
// changed or deleted by someone else. syncService builds the wanted
// endpoints, one per pod with an IPv4 address that has not finished:
//
//   - conditions: serving = the pod is Ready; terminating = it is being
//     deleted; ready = serving and not terminating (always true with
//     publishNotReadyAddresses) — kube-proxy sends new connections to ready
//     endpoints and, as a last resort, to serving terminating ones;
//   - nodeName, the node's topology.kubernetes.io/zone label, the pod as
//     targetRef;
//
// then groups them by their resolved ports (a named targetPort may be a
// different number on different pods: one slice holds one port list) and
// cuts each group into slices of at most 100 endpoints
// (--max-endpoints-per-slice). Existing slices of the group are rewritten
// in place, missing ones created, surplus ones deleted; a slice is written
// only when it changes. A Service with no endpoints keeps one empty
// placeholder slice, as upstream. A sync that finds the informer behind
// this controller's own last writes (tracker.go) is retried instead: from
// a stale cache it would create a second slice next to the first.
//
// Every slice carries the labels kubernetes.io/service-name=<service> and
// endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io
// (slices of other managers are never touched) and an ownerReference to
// the Service.
//
// Upstream: pkg/controller/endpointslice (endpointslice_controller.go) and
// staging/src/k8s.io/endpointslice (reconciler.go, utils.go); upstream's
// reconciler also packs partially filled slices to minimise churn, which
// this one does not.
package endpointslice

import (
	"context"
	"kubik/ch04-controllers/controller/endpointutil"
	"kubik/ch04-controllers/worker"
	"log/slog"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

const (
	// ControllerName is the value of the managed-by label. Upstream: the same.
	ControllerName = "endpointslice-controller.k8s.io"
	// MaxEndpointsPerSlice is the default of --max-endpoints-per-slice.
	MaxEndpointsPerSlice = 100
)

const indexByService = "endpointslice-controller/service"

// EndpointSliceController is upstream's endpointslice.Controller.
type EndpointSliceController struct {
	client   *rest.Client
	services *cache.Informer[corev1.Service, *corev1.Service]
	pods     *cache.Informer[corev1.Pod, *corev1.Pod]
	nodes    *cache.Informer[corev1.Node, *corev1.Node]
	slices   *cache.Informer[discoveryv1.EndpointSlice, *discoveryv1.EndpointSlice]
	queue    *workqueue.RateLimitingQueue[string]
	tracker  *sliceTracker // this controller's writes the cache has not seen yet
	log      *slog.Logger
	// MaxEndpointsPerSlice may be lowered (tests, --max-endpoints-per-slice).
	MaxEndpointsPerSlice int
}

// NewEndpointSliceController asks for the Service, Pod, Node and
// EndpointSlice informers. Upstream: NewController.
func NewEndpointSliceController(cc *controller.ControllerContext) (*EndpointSliceController, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &EndpointSliceController{client: cc.Client, log: log.With("controller", "endpointslice-controller"),
		services:             controller.InformerFor[corev1.Service](cc.Informers),
		pods:                 controller.InformerFor[corev1.Pod](cc.Informers),
		nodes:                controller.InformerFor[corev1.Node](cc.Informers),
		slices:               controller.InformerFor[discoveryv1.EndpointSlice](cc.Informers),
		queue:                workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		tracker:              newSliceTracker(),
		MaxEndpointsPerSlice: MaxEndpointsPerSlice,
	}
	cache.AddNamespaceIndex(c.pods)
	cache.AddNamespaceIndex(c.services)
	c.slices.AddIndexers(cache.Indexers[discoveryv1.EndpointSlice]{indexByService: func(s *discoveryv1.EndpointSlice) []string {
		if s.Labels[discoveryv1.LabelManagedBy] != ControllerName || s.Labels[discoveryv1.LabelServiceName] == "" {
			return nil
		}
		return []string{s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName]}
	}})
	enqueue := func(s *corev1.Service) { c.queue.Add(cache.MetaNamespaceKeyFunc(s)) }
	c.services.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Service]{
		AddFunc: enqueue, UpdateFunc: func(_, s *corev1.Service) { enqueue(s) }, DeleteFunc: enqueue})
	c.pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc:    func(p *corev1.Pod) { c.enqueueServicesOf(p, nil) },
		UpdateFunc: func(old, p *corev1.Pod) { c.enqueueServicesOf(p, old) },
		DeleteFunc: func(p *corev1.Pod) { c.enqueueServicesOf(p, nil) },
	})
	sliceChanged := func(s *discoveryv1.EndpointSlice) {
		if s.Labels[discoveryv1.LabelManagedBy] == ControllerName && s.Labels[discoveryv1.LabelServiceName] != "" {
			c.queue.Add(s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName])
		}
	}
	c.slices.AddEventHandler(cache.ResourceEventHandlerFuncs[discoveryv1.EndpointSlice]{
		UpdateFunc: func(_, s *discoveryv1.EndpointSlice) { sliceChanged(s) },
		DeleteFunc: func(s *discoveryv1.EndpointSlice) {
			if s.Labels[discoveryv1.LabelManagedBy] == ControllerName && s.Labels[discoveryv1.LabelServiceName] != "" {
				c.tracker.deleted(s.Namespace+"/"+s.Labels[discoveryv1.LabelServiceName], s.Name)
			}
			sliceChanged(s)
		}})
	return c, nil
}

// enqueueServicesOf queues the Services selecting p now or before (old).
func (c *EndpointSliceController) enqueueServicesOf(p, old *corev1.Pod) {
	for _, key := range endpointutil.PodServiceMemberships(c.services.GetStore(), p, old) {
		c.queue.Add(key)
	}
}

// Run waits for the caches and runs workers until ctx ends.
func (c *EndpointSliceController) Run(ctx context.Context, workers int) {
	worker.RunWorkers(ctx, c.queue, workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.syncService), c.log, "service")
	}, c.services.HasSynced, c.pods.HasSynced, c.nodes.HasSynced, c.slices.HasSynced)
}
