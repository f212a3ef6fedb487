// Package resourcequota is the ResourceQuota controller of
// kube-controller-manager: it keeps every quota's status — status.hard a
// copy of spec.hard, status.used what the namespace's objects use of each
// hard resource, measured afresh from the informers' caches.
//
// The loop, in plain words. A quota is queued when it is created, when its
// spec.hard changes, every --resource-quota-sync-period (5 minutes), and
// whenever an object of a kind it counts is added, changed or deleted in
// its namespace (replenishment: a deleted pod gives its share back).
// syncResourceQuota then asks each evaluator for the names of hard it
// computes:
//
//   - pods: count/pods (every pod), and for pods not yet terminal
//     (QuotaV1Pod) pods, cpu/memory/ephemeral-storage and their requests.*
//     and limits.*, hugepages and extended resources;
//   - services: services, count/services, services.loadbalancers,
//     services.nodeports;
//   - persistentvolumeclaims: persistentvolumeclaims, requests.storage and
//     the per-storage-class names;
//   - configmaps, secrets, replicationcontrollers, resourcequotas: their
//     count and bare name; any other count/<resource>.<group>: the objects
//     of that resource, watched from the first quota that names it
//     (quotaMonitor).
//
// A quota's scopes (Terminating, NotTerminating, BestEffort,
// NotBestEffort, PriorityClass through scopeSelector,
// CrossNamespacePodAffinity) select pods; a scoped quota counts no other
// kind. The status is written only when it changed.
//
// The quota admission plugin in the apiserver charges a new object to
// status.used as it is created; this controller corrects the figures
// afterwards (and is the only one to give usage back).
//
// The evaluators are chapter 1's (package quota), the ones the admission
// plugin charges with.
//
// Upstream: pkg/controller/resourcequota (resource_quota_controller.go,
// resource_quota_monitor.go).
package resourcequota

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/quota"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/worker"
)

// ControllerName is upstream's name in logs.
const ControllerName = "resourcequota-controller"

// DefaultResyncPeriod is --resource-quota-sync-period's default.
const DefaultResyncPeriod = 5 * time.Minute

// DiscoverySyncPeriod is how often discovery is read again for the
// count/<resource>.<group> names no served resource matched yet. Upstream:
// the 30 s kube-controller-manager passes to the quota controller's Sync.
const DiscoverySyncPeriod = 30 * time.Second

// Options are the controller's settings.
type Options struct {
	// ResyncPeriod is how often every quota is recalculated (0: DefaultResyncPeriod).
	ResyncPeriod time.Duration
	// DiscoverySyncPeriod: 0 is DiscoverySyncPeriod.
	DiscoverySyncPeriod time.Duration
}

// Controller is upstream's resourcequota.Controller.
type Controller struct {
	client     *rest.Client
	rqs        *cache.Informer[corev1.ResourceQuota, *corev1.ResourceQuota]
	queue      *workqueue.RateLimitingQueue[string]
	evaluators []quota.Evaluator // the kinds known from the start
	listPods   quota.ListFuncByNamespace[corev1.Pod]
	monitor    *quotaMonitor
	synced     []func() bool
	resync     time.Duration
	// discoverySync is Sync's period.
	discoverySync time.Duration
	clock         workqueue.Clock
	log           *slog.Logger
}

// NewController asks for the ResourceQuota informer and those of the
// counted kinds. Upstream: NewController.
func NewController(cc *controller.ControllerContext, opts Options) (*Controller, error) {
	return newController(cc, opts, workqueue.RealClock{}), nil
}

func newController(cc *controller.ControllerContext, opts Options, clock workqueue.Clock) *Controller {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", ControllerName)
	if opts.ResyncPeriod <= 0 {
		opts.ResyncPeriod = DefaultResyncPeriod
	}
	if opts.DiscoverySyncPeriod <= 0 {
		opts.DiscoverySyncPeriod = DiscoverySyncPeriod
	}
	c := &Controller{client: cc.Client, clock: clock, log: log, resync: opts.ResyncPeriod,
		rqs:   controller.InformerFor[corev1.ResourceQuota](cc.Informers),
		queue: workqueue.NewRateLimitingWithClock(workqueue.DefaultControllerRateLimiter[string](), clock),
	}
	cache.AddNamespaceIndex(c.rqs)
	c.rqs.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.ResourceQuota]{
		AddFunc: c.enqueue,
		// Status writes are this controller's own: only a new spec.hard
		// asks for a recalculation.
		UpdateFunc: func(old, cur *corev1.ResourceQuota) {
			if !quota.Equals(old.Spec.Hard, cur.Spec.Hard) {
				c.enqueue(cur)
			}
		},
	})
	c.listPods = watched[corev1.Pod](c, cc, "pods")
	c.evaluators = quota.NewEvaluators(quota.Listers{
		Pods:                   c.listPods,
		Services:               watched[corev1.Service](c, cc, "services"),
		PersistentVolumeClaims: watched[corev1.PersistentVolumeClaim](c, cc, "persistentvolumeclaims"),
		ConfigMaps:             watched[corev1.ConfigMap](c, cc, "configmaps"),
		Secrets:                watched[corev1.Secret](c, cc, "secrets"),
		ReplicationControllers: watched[corev1.ReplicationController](c, cc, "replicationcontrollers"),
		// A quota counts itself too (count/resourcequotas).
		ResourceQuotas: listSynced("resourcequotas", c.rqs),
	}, clock.Now)
	c.rqs.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.ResourceQuota]{
		AddFunc:    func(q *corev1.ResourceQuota) { c.replenishQuota("resourcequotas", q.Namespace) },
		DeleteFunc: func(q *corev1.ResourceQuota) { c.replenishQuota("resourcequotas", q.Namespace) },
	})
	known := map[string]bool{}
	for _, e := range c.evaluators {
		known[e.GroupResource()] = true
	}
	c.monitor = newQuotaMonitor(cc.Client, log, known, c.replenishQuota, opts.DiscoverySyncPeriod)
	c.discoverySync = opts.DiscoverySyncPeriod
	return c
}

// watched is the shared informer of T, indexed by namespace, whose changes
// replenish the quotas of the object's namespace that count groupResource;
// it returns the evaluator's list function.
func watched[T any, PT rest.Object[T]](c *Controller, cc *controller.ControllerContext, groupResource string) quota.ListFuncByNamespace[T] {
	inf := controller.InformerFor[T, PT](cc.Informers)
	cache.AddNamespaceIndex(inf)
	ns := func(o *T) string { return PT(o).GetObjectMeta().Namespace }
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs[T]{
		AddFunc:    func(o *T) { c.replenishQuota(groupResource, ns(o)) },
		UpdateFunc: func(_, o *T) { c.replenishQuota(groupResource, ns(o)) },
		DeleteFunc: func(o *T) { c.replenishQuota(groupResource, ns(o)) },
	})
	c.synced = append(c.synced, inf.HasSynced)
	return listSynced(groupResource, inf)
}

// listSynced lists a namespace from the informer's cache, an error until
// it has listed. Upstream: generic.ListerFuncForResourceFunc's protectedLister.
func listSynced[T any, PT rest.Object[T]](groupResource string, inf *cache.Informer[T, PT]) quota.ListFuncByNamespace[T] {
	return func(namespace string) ([]*T, error) {
		if !inf.HasSynced() {
			return nil, fmt.Errorf("%s not yet synced", groupResource)
		}
		return inf.GetStore().ByIndex(cache.NamespaceIndex, namespace), nil
	}
}

func (c *Controller) enqueue(q *corev1.ResourceQuota) { c.queue.Add(cache.MetaNamespaceKeyFunc(q)) }

// replenishQuota queues the quotas of namespace that track a resource of
// groupResource. Upstream: replenishQuota.
func (c *Controller) replenishQuota(groupResource, namespace string) {
	for _, q := range c.rqs.GetStore().ByIndex(cache.NamespaceIndex, namespace) {
		if c.tracks(q, groupResource) {
			c.enqueue(q)
		}
	}
}

// tracks: one of q's hard names is computed by groupResource's evaluator.
func (c *Controller) tracks(q *corev1.ResourceQuota, groupResource string) bool {
	names := quota.ResourceNames(q.Status.Hard)
	for _, e := range c.evaluators {
		if e.GroupResource() == groupResource {
			return len(e.MatchingResources(names)) > 0
		}
	}
	_, ok := q.Status.Hard[quota.ObjectCountQuotaResourceNameFor(groupResource)]
	return ok
}

// Run waits for the caches, then runs workers and the periodic full resync
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.monitor.Run(ctx)
	go func() {
		t := time.NewTicker(c.resync)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				for _, q := range c.rqs.GetStore().List() {
					c.enqueue(q)
				}
			}
		}
	}()
	go c.Sync(ctx, c.discoverySync)
	worker.RunWorkers(ctx, c.queue, workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.syncResourceQuotaFromKey), c.log, "resourcequota")
	}, append([]func() bool{c.rqs.HasSynced}, c.synced...)...)
}

// Sync reads discovery again every period while some quota names a
// count/ resource not measured yet, and recalculates the quotas naming one
// that is now served. Upstream: Controller.Sync.
func (c *Controller) Sync(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		wanted := map[string]bool{}
		quotas := c.rqs.GetStore().List()
		for _, q := range quotas {
			for n := range q.Spec.Hard {
				if gr, ok := strings.CutPrefix(string(n), "count/"); ok && !c.monitor.measured(gr) {
					wanted[gr] = true
				}
			}
		}
		if len(wanted) == 0 {
			continue
		}
		served, err := c.monitor.newlyServed(ctx, wanted)
		if err != nil {
			c.log.Info("failed to discover resources", "err", err)
			continue
		}
		for _, q := range quotas {
			for _, gr := range served {
				if _, ok := q.Spec.Hard[corev1.ResourceName("count/"+gr)]; ok {
					c.enqueue(q)
					break
				}
			}
		}
	}
}

func (c *Controller) syncResourceQuotaFromKey(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	q, ok := c.rqs.GetStore().Get(ns, name)
	if !ok {
		return nil
	}
	return c.syncResourceQuota(ctx, q)
}

// syncResourceQuota recalculates one quota and writes its status if it
// changed; a resource whose informer has not listed yet keeps its old
// figure and the sync is retried. Upstream: syncResourceQuota.
func (c *Controller) syncResourceQuota(ctx context.Context, q *corev1.ResourceQuota) error {
	hard := quota.Add(corev1.ResourceList{}, q.Spec.Hard)
	dirty := !quota.Equals(q.Spec.Hard, q.Status.Hard)
	used := quota.Add(corev1.ResourceList{}, q.Status.Used)

	evaluators, err := c.monitor.evaluatorsFor(ctx, quota.ResourceNames(hard))
	if err != nil {
		return err
	}
	newUsage, usageErr := quota.CalculateUsage(q.Namespace, q.Spec.Scopes, hard, append(evaluators, c.evaluators...), q.Spec.ScopeSelector)
	if usageErr != nil {
		return usageErr
	}
	for k, v := range newUsage {
		used[k] = v
	}
	used = quota.Mask(used, quota.ResourceNames(hard))
	dirty = dirty || !quota.Equals(used, q.Status.Used)
	if !dirty {
		return nil
	}
	upd := metav1.DeepCopy(q)
	upd.Status = corev1.ResourceQuotaStatus{Hard: hard, Used: used}
	_, err = rest.UpdateStatus(ctx, c.client, upd)
	return err
}
