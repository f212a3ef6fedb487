// Package service is the cloud-controller-manager's service controller
// (service-lb-controller, alias "service"; its events come from
// "service-controller"): it gives every Service of type LoadBalancer a
// balancer in the cloud and writes the balancer's address back, which is
// what `kubectl get svc` shows as EXTERNAL-IP.
//
// In plain words. A Service wants a balancer when its type is LoadBalancer
// and spec.loadBalancerClass is unset (a class means another controller's
// balancer). For such a Service the controller
//
//  1. records the event EnsuringLoadBalancer,
//  2. adds the finalizer service.kubernetes.io/load-balancer-cleanup, so
//     the Service cannot disappear before its balancer does,
//  3. calls the cloud's EnsureLoadBalancer with the Service and the nodes
//     the balancer may send traffic to (all but those being deleted, those
//     labelled node.kubernetes.io/exclude-from-external-load-balancers and
//     those tainted ToBeDeletedByClusterAutoscaler),
//  4. records EnsuredLoadBalancer and patches status.loadBalancer.ingress
//     with what the cloud answered.
//
// When the Service no longer wants one (another type, or being deleted
// with the finalizer on), the controller deletes the balancer
// (DeletingLoadBalancer, DeletedLoadBalancer), removes the finalizer and
// clears the status. A failure is the Warning event SyncLoadBalancerFailed
// "Error syncing load balancer: ..." and a retry after 5 s, doubling up to
// 5 min.
//
// Nodes come and go: each Node change that can alter the set above puts a
// marker in a second queue, whose single worker calls UpdateLoadBalancer
// for every balancer whose node set did change (event UpdatedLoadBalancer).
// Readiness is not part of the set, as upstream since 1.27: the cloud's
// balancer checks the nodes itself, and a node flapping would otherwise
// rewrite every balancer.
//
// Upstream: k8s.io/cloud-provider/controllers/service (controller.go).
package service

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/record"
	"kubik/ch08-full-cluster/cloudprovider"
)

// ControllerName is the source of the controller's events.
const ControllerName = "service-controller"

const (
	// How long to wait before retrying a Service: 5 s, doubling to 5 min.
	minRetryDelay = 5 * time.Second
	maxRetryDelay = 300 * time.Second
	// ToBeDeletedTaint is the cluster autoscaler's taint on a node it is
	// about to remove; such a node gets no new balancer traffic.
	ToBeDeletedTaint = "ToBeDeletedByClusterAutoscaler"
	// maxNodeNamesToLog caps the node names in an event.
	maxNodeNamesToLog = 20
)

// Controller keeps the cloud's balancers in step with the Services.
// Upstream: service.Controller.
type Controller struct {
	cloud       cloudprovider.Interface
	balancer    cloudprovider.LoadBalancer
	client      *rest.Client
	clusterName string
	services    *cache.Informer[corev1.Service, *corev1.Service]
	nodes       *cache.Informer[corev1.Node, *corev1.Node]
	recorder    *record.Recorder
	log         *slog.Logger
	// cache remembers the last state of every Service it saw wanting a
	// balancer, for node syncs and for a Service deleted without the
	// finalizer.
	cache *serviceCache
	// serviceQueue holds Service keys; nodeQueue a marker per Node change.
	serviceQueue *workqueue.RateLimitingQueue[string]
	nodeQueue    *workqueue.RateLimitingQueue[string]

	// lastSyncedNodes is each Service's node set as last given to the
	// cloud, by Service key.
	lastSyncedNodesLock sync.Mutex
	lastSyncedNodes     map[string][]*corev1.Node
}

// New builds the controller; it fails when the cloud has no balancers
// (the manager then skips it, as upstream's does).
func New(cloud cloudprovider.Interface, cc *controller.ControllerContext, clusterName string) (*Controller, error) {
	if cloud == nil {
		return nil, fmt.Errorf("WARNING: no cloud provider provided, services of type LoadBalancer will fail")
	}
	balancer, ok := cloud.LoadBalancer()
	if !ok {
		return nil, fmt.Errorf("the cloud provider does not support external load balancers")
	}
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", ControllerName)
	limiter := func() workqueue.RateLimiter[string] {
		return workqueue.NewItemExponentialFailureRateLimiter[string](minRetryDelay, maxRetryDelay)
	}
	c := &Controller{
		cloud: cloud, balancer: balancer, client: cc.Client, clusterName: clusterName, log: log,
		services:        controller.InformerFor[corev1.Service](cc.Informers),
		nodes:           controller.InformerFor[corev1.Node](cc.Informers),
		recorder:        record.NewRecorder(cc.Client, ControllerName, log),
		cache:           &serviceCache{serviceMap: map[string]*corev1.Service{}},
		serviceQueue:    workqueue.NewRateLimiting(limiter()),
		nodeQueue:       workqueue.NewRateLimiting(limiter()),
		lastSyncedNodes: map[string][]*corev1.Node{},
	}
	c.services.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Service]{
		// needsCleanup on add: what a crashed manager left half done.
		AddFunc: func(svc *corev1.Service) {
			if wantsLoadBalancer(svc) || needsCleanup(svc) {
				c.enqueueService(svc)
			}
		},
		UpdateFunc: func(old, cur *corev1.Service) {
			if needsUpdate(old, cur, c.log) || needsCleanup(cur) {
				c.enqueueService(cur)
			}
		},
		// No DeleteFunc: with the finalizer, a deletion is an update
		// (deletionTimestamp set) first.
	})
	c.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc: func(n *corev1.Node) { c.nodeQueue.Add(n.Name) },
		UpdateFunc: func(old, cur *corev1.Node) {
			if shouldSyncUpdatedNode(old, cur) {
				c.nodeQueue.Add(cur.Name)
			}
		},
		DeleteFunc: func(n *corev1.Node) { c.nodeQueue.Add(n.Name) },
	})
	return c, nil
}

func (c *Controller) enqueueService(svc *corev1.Service) {
	c.serviceQueue.Add(cache.MetaNamespaceKeyFunc(svc))
}

// Run waits for the caches, then runs workers Service workers and one node
// worker until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer c.serviceQueue.ShutDown()
	defer c.nodeQueue.ShutDown()
	go c.recorder.Run(ctx)
	c.log.Info("Starting service controller")
	defer c.log.Info("Shutting down service controller")
	if !cache.WaitForCacheSync(ctx, c.services.HasSynced, c.nodes.HasSynced) {
		return
	}
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for c.processNextServiceItem(ctx) {
			}
		})
	}
	// One node worker: one node change at a time.
	wg.Go(func() {
		for c.processNextNodeItem(ctx, workers) {
		}
	})
	<-ctx.Done()
	c.serviceQueue.ShutDown()
	c.nodeQueue.ShutDown()
	wg.Wait()
}

func (c *Controller) processNextServiceItem(ctx context.Context) bool {
	key, quit := c.serviceQueue.Get()
	if quit {
		return false
	}
	defer c.serviceQueue.Done(key)
	if err := c.syncService(ctx, key); err != nil {
		if ctx.Err() == nil {
			c.log.Warn("error processing service (retrying with exponential backoff)", "service", key, "err", err)
		}
		c.serviceQueue.AddRateLimited(key)
		return true
	}
	c.serviceQueue.Forget(key)
	return true
}

func (c *Controller) processNextNodeItem(ctx context.Context, workers int) bool {
	key, quit := c.nodeQueue.Get()
	if quit {
		return false
	}
	defer c.nodeQueue.Done(key)
	for _, svc := range c.syncNodes(ctx, workers) {
		c.serviceQueue.Add(svc)
	}
	c.nodeQueue.Forget(key)
	return true
}

// syncService reconciles the Service of key with its balancer.
func (c *Controller) syncService(ctx context.Context, key string) error {
	start := time.Now()
	defer func() { c.log.Debug("Finished syncing service", "service", key, "duration", time.Since(start)) }()
	ns, name := cache.SplitMetaNamespaceKey(key)
	svc, ok := c.services.GetStore().Get(ns, name)
	if !ok {
		// Gone from the cache: the balancer of a Service deleted without
		// the finalizer, if the cache remembers one.
		return c.processServiceDeletion(ctx, key)
	}
	return c.processServiceCreateOrUpdate(ctx, metav1.DeepCopy(svc), key)
}

// processServiceCreateOrUpdate ensures or deletes the balancer as the
// Service asks, recording SyncLoadBalancerFailed when that fails.
func (c *Controller) processServiceCreateOrUpdate(ctx context.Context, service *corev1.Service, key string) error {
	if cached := c.cache.get(key); cached != nil && cached.UID != service.UID {
		// Deleted and created again under the same name, without the
		// finalizer: the old one's balancer goes first.
		if err := c.processLoadBalancerDelete(ctx, cached); err != nil {
			return err
		}
	}
	c.cache.set(key, service)
	op, err := c.syncLoadBalancerIfNeeded(ctx, service, key)
	if err != nil {
		c.recorder.Eventf(serviceRef(service), corev1.EventTypeWarning, "SyncLoadBalancerFailed", "Error syncing load balancer: %v", err)
		return err
	}
	if op == deleteLoadBalancer {
		c.cache.delete(key)
	}
	return nil
}

type loadBalancerOperation int

const (
	deleteLoadBalancer loadBalancerOperation = iota
	ensureLoadBalancer
)

// syncLoadBalancerIfNeeded creates or updates the balancer of a Service
// that wants one, deletes that of a Service that does not, and writes the
// status.
func (c *Controller) syncLoadBalancerIfNeeded(ctx context.Context, service *corev1.Service, key string) (loadBalancerOperation, error) {
	previousStatus := service.Status.LoadBalancer
	var newStatus *corev1.LoadBalancerStatus
	var op loadBalancerOperation
	ref := serviceRef(service)

	if !wantsLoadBalancer(service) || needsCleanup(service) {
		op = deleteLoadBalancer
		newStatus = &corev1.LoadBalancerStatus{}
		_, exists, err := c.balancer.GetLoadBalancer(ctx, c.clusterName, service)
		if err != nil {
			return op, fmt.Errorf("failed to check if load balancer exists before cleanup: %v", err)
		}
		if exists {
			c.log.Info("Deleting existing load balancer for service", "service", key)
			c.recorder.Eventf(ref, corev1.EventTypeNormal, "DeletingLoadBalancer", "Deleting load balancer")
			if err := c.balancer.EnsureLoadBalancerDeleted(ctx, c.clusterName, service); err != nil {
				if err != cloudprovider.ImplementedElsewhere {
					return op, fmt.Errorf("failed to delete load balancer: %v", err)
				}
				c.log.Debug("LoadBalancer implemented by a different controller, ignoring error on deletion", "service", key, "provider", c.cloud.ProviderName())
			}
		}
		// The finalizer goes once the balancer is gone: the Service may
		// then disappear.
		if err := c.removeFinalizer(ctx, service); err != nil {
			return op, fmt.Errorf("failed to remove load balancer cleanup finalizer: %v", err)
		}
		c.recorder.Eventf(ref, corev1.EventTypeNormal, "DeletedLoadBalancer", "Deleted load balancer")
	} else {
		op = ensureLoadBalancer
		c.log.Info("Ensuring load balancer for service", "service", key)
		c.recorder.Eventf(ref, corev1.EventTypeNormal, "EnsuringLoadBalancer", "Ensuring load balancer")
		// The finalizer comes before the balancer: no balancer without it.
		if err := c.addFinalizer(ctx, service); err != nil {
			return op, fmt.Errorf("failed to add load balancer cleanup finalizer: %v", err)
		}
		var err error
		newStatus, err = c.ensureLoadBalancer(ctx, service)
		if err != nil {
			if err == cloudprovider.ImplementedElsewhere {
				c.log.Debug("LoadBalancer implemented by a different controller, ignoring error", "service", key, "provider", c.cloud.ProviderName())
				return op, nil
			}
			return op, fmt.Errorf("failed to ensure load balancer: %w", err)
		}
		if newStatus == nil {
			return op, fmt.Errorf("service status returned by EnsureLoadBalancer is nil")
		}
		c.recorder.Eventf(ref, corev1.EventTypeNormal, "EnsuredLoadBalancer", "Ensured load balancer")
	}

	if err := c.patchStatus(ctx, service, &previousStatus, newStatus); err != nil {
		// NotFound: the Service went right after its finalizer did.
		if !rest.IsNotFound(err) {
			return op, fmt.Errorf("failed to update load balancer status: %v", err)
		}
	}
	return op, nil
}

// ensureLoadBalancer hands the Service and the stable node set to the cloud.
func (c *Controller) ensureLoadBalancer(ctx context.Context, service *corev1.Service) (*corev1.LoadBalancerStatus, error) {
	nodes := filterWithPredicates(c.nodes.GetStore().List(), stableNodeSetPredicates...)
	if len(nodes) == 0 {
		c.recorder.Eventf(serviceRef(service), corev1.EventTypeWarning, "UnAvailableLoadBalancer", "There are no available nodes for LoadBalancer")
	}
	c.storeLastSyncedNodes(service, nodes)
	return c.balancer.EnsureLoadBalancer(ctx, c.clusterName, service, nodes)
}

// processServiceDeletion: the Service is gone; delete the balancer the
// cache remembers for it, if any.
func (c *Controller) processServiceDeletion(ctx context.Context, key string) error {
	cached := c.cache.get(key)
	if cached == nil {
		return nil // no balancer made for it, or already deleted
	}
	c.log.Info("Service has been deleted. Attempting to cleanup load balancer resources", "service", key)
	if err := c.processLoadBalancerDelete(ctx, cached); err != nil {
		return err
	}
	c.cache.delete(key)
	return nil
}

func (c *Controller) processLoadBalancerDelete(ctx context.Context, service *corev1.Service) error {
	if !wantsLoadBalancer(service) {
		return nil
	}
	ref := serviceRef(service)
	c.recorder.Eventf(ref, corev1.EventTypeNormal, "DeletingLoadBalancer", "Deleting load balancer")
	if err := c.balancer.EnsureLoadBalancerDeleted(ctx, c.clusterName, service); err != nil {
		c.recorder.Eventf(ref, corev1.EventTypeWarning, "DeleteLoadBalancerFailed", "Error deleting load balancer: %v", err)
		return err
	}
	c.recorder.Eventf(ref, corev1.EventTypeNormal, "DeletedLoadBalancer", "Deleted load balancer")
	return nil
}

// addFinalizer and removeFinalizer patch metadata.finalizers as a
// strategic merge patch (a list with the merge strategy: the patch adds
// or deletes the one item and keeps the others). Upstream sends it to the
// status subresource, whose strategy there resets only the spec; Kubik's
// apiserver keeps metadata.finalizers on /status, so the patch goes to the
// Service itself (the ClusterRole grants patch on services).
func (c *Controller) addFinalizer(ctx context.Context, service *corev1.Service) error {
	if cloudprovider.HasLBFinalizer(service) {
		return nil
	}
	c.log.Info("Adding finalizer to service", "service", service.Namespace+"/"+service.Name)
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": []string{cloudprovider.LoadBalancerCleanupFinalizer}}})
	_, err := rest.Patch[corev1.Service](ctx, c.client, service.Namespace, service.Name, rest.StrategicMergePatchType, patch, "")
	return err
}

func (c *Controller) removeFinalizer(ctx context.Context, service *corev1.Service) error {
	if !cloudprovider.HasLBFinalizer(service) {
		return nil
	}
	c.log.Info("Removing finalizer from service", "service", service.Namespace+"/"+service.Name)
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"$deleteFromPrimitiveList/finalizers": []string{cloudprovider.LoadBalancerCleanupFinalizer}}})
	_, err := rest.Patch[corev1.Service](ctx, c.client, service.Namespace, service.Name, rest.StrategicMergePatchType, patch, "")
	return err
}

// patchStatus writes status.loadBalancer when it changed. The ingress list
// is replaced as a whole (it has no merge key); an empty one is null.
func (c *Controller) patchStatus(ctx context.Context, service *corev1.Service, previous, status *corev1.LoadBalancerStatus) error {
	if cloudprovider.LoadBalancerStatusEqual(previous, status) {
		return nil
	}
	var ingress any // null: remove the field
	if len(status.Ingress) > 0 {
		ingress = status.Ingress
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}})
	if err != nil {
		return err
	}
	c.log.Info("Patching status for service", "service", service.Namespace+"/"+service.Name)
	_, err = rest.Patch[corev1.Service](ctx, c.client, service.Namespace, service.Name, rest.StrategicMergePatchType, patch, "status")
	return err
}

func serviceRef(s *corev1.Service) record.ObjectRef {
	return record.RefFor(&s.ObjectMeta, "v1", "Service")
}

// syncNodes updates the balancers of every known Service to the current
// node set; it returns the Services to retry.
func (c *Controller) syncNodes(ctx context.Context, workers int) []string {
	services := c.cache.allServices()
	c.log.Debug("Syncing backends for all LB services")
	var (
		mu    sync.Mutex
		retry []string
		wg    sync.WaitGroup
		sem   = make(chan struct{}, max(workers, 1))
	)
	for _, svc := range services {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if c.nodeSyncService(ctx, svc) {
				mu.Lock()
				retry = append(retry, svc.Namespace+"/"+svc.Name)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	c.log.Debug("Updated load balancers to direct traffic to the updated set of nodes", "services", len(services), "failed", len(retry))
	return retry
}

// nodeSyncService points one Service's balancer at the current node set
// if the set changed; true means retry it.
func (c *Controller) nodeSyncService(ctx context.Context, svc *corev1.Service) bool {
	if svc == nil || !wantsLoadBalancer(svc) {
		return false
	}
	newNodes := filterWithPredicates(c.nodes.GetStore().List(), stableNodeSetPredicates...)
	oldNodes := filterWithPredicates(c.getLastSyncedNodes(svc), stableNodeSetPredicates...)
	// Stored at once: a failure is retried through the Service queue.
	c.storeLastSyncedNodes(svc, newNodes)
	if nodesSufficientlyEqual(oldNodes, newNodes) {
		return false
	}
	if err := c.lockedUpdateLoadBalancerHosts(ctx, svc, newNodes); err != nil {
		c.log.Warn("failed to update load balancer hosts", "service", svc.Namespace+"/"+svc.Name, "err", err)
		return true
	}
	return false
}

// lockedUpdateLoadBalancerHosts calls UpdateLoadBalancer and records the
// outcome.
func (c *Controller) lockedUpdateLoadBalancerHosts(ctx context.Context, service *corev1.Service, hosts []*corev1.Node) error {
	names := loggableNodeNames(hosts)
	c.log.Info("Updating backends for load balancer", "service", service.Namespace+"/"+service.Name, "nodes", len(hosts), "names", names)
	ref := serviceRef(service)
	err := c.balancer.UpdateLoadBalancer(ctx, c.clusterName, service, hosts)
	if err == nil {
		if len(hosts) == 0 {
			c.recorder.Eventf(ref, corev1.EventTypeWarning, "UnAvailableLoadBalancer", "There are no available nodes for LoadBalancer")
		} else {
			c.recorder.Eventf(ref, corev1.EventTypeNormal, "UpdatedLoadBalancer", "Updated load balancer with new hosts")
		}
		return nil
	}
	if err == cloudprovider.ImplementedElsewhere {
		return nil
	}
	// Only an error if the balancer still exists.
	if _, exists, gerr := c.balancer.GetLoadBalancer(ctx, c.clusterName, service); gerr != nil {
		c.log.Warn("failed to check if load balancer exists", "service", service.Namespace+"/"+service.Name, "err", gerr)
	} else if !exists {
		return nil
	}
	c.recorder.Eventf(ref, corev1.EventTypeWarning, "UpdateLoadBalancerFailed",
		"Error updating load balancer with new hosts %v [node names limited, total number of nodes: %d], error: %v", names, len(hosts), err)
	return err
}

func (c *Controller) storeLastSyncedNodes(svc *corev1.Service, nodes []*corev1.Node) {
	c.lastSyncedNodesLock.Lock()
	defer c.lastSyncedNodesLock.Unlock()
	c.lastSyncedNodes[cache.MetaNamespaceKeyFunc(svc)] = nodes
}

func (c *Controller) getLastSyncedNodes(svc *corev1.Service) []*corev1.Node {
	c.lastSyncedNodesLock.Lock()
	defer c.lastSyncedNodesLock.Unlock()
	return c.lastSyncedNodes[cache.MetaNamespaceKeyFunc(svc)]
}

// serviceCache is the last state of each Service with a balancer.
type serviceCache struct {
	mu         sync.RWMutex
	serviceMap map[string]*corev1.Service
}

func (s *serviceCache) get(key string) *corev1.Service {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.serviceMap[key]
}

func (s *serviceCache) set(key string, svc *corev1.Service) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.serviceMap[key] = svc
}

func (s *serviceCache) delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.serviceMap, key)
}

func (s *serviceCache) allServices() []*corev1.Service {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*corev1.Service, 0, len(s.serviceMap))
	for _, svc := range s.serviceMap {
		out = append(out, svc)
	}
	return out
}
