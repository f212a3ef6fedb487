// Package replicaset is the ReplicaSet controller: it keeps
// spec.replicas pods matching a ReplicaSet's selector alive, creating pods
// from spec.template when there are too few and deleting the least
// valuable ones when there are too many, and reports what it sees in
// status (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
// observedGeneration, the ReplicaFailure condition).
//
// A ReplicaSet owns its pods through an ownerReference with
// controller=true: it adopts matching orphans and releases pods whose labels
// no longer match (controller.ControllerRefManager). Expectations
// (controller.UIDTrackingControllerExpectations) keep it from acting on a
// cache that has not yet seen its own creations and deletions.
//
// NewBaseController builds the same controller for another kind seen as
// ReplicaSets (a Source and a GroupVersionKind): package replication runs
// ReplicationControllers through it, as upstream.
//
// Upstream: pkg/controller/replicaset/replica_set.go and
// replica_set_utils.go.
package replicaset

import (
	"context"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
	"log/slog"
	"sort"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

const (
	// BurstReplicas is how many pods one sync creates or deletes at most;
	// the rest wait for the next sync. Upstream: BurstReplicas.
	BurstReplicas = 500
	// statusUpdateRetries: how often a status update is retried on a
	// conflict, with a fresh read each time.
	statusUpdateRetries = 1
	// ControllerName is the event source and the reportingComponent.
	ControllerName = "replicaset-controller"
)

// ReplicaSetController is the controller of ReplicaSets.
type ReplicaSetController struct {
	// gvk is the kind controlled (ReplicaSet or ReplicationController),
	// name its controller's, for logs.
	gvk           GroupVersionKind
	name          string
	client        *rest.Client
	rsLister      Source
	podInformer   *cache.Informer[corev1.Pod, *corev1.Pod]
	queue         *workqueue.RateLimitingQueue[string]
	expectations  *controller.UIDTrackingControllerExpectations
	podControl    controller.PodControl
	recorder      *record.Recorder
	burstReplicas int
	log           *slog.Logger
}

// NewReplicaSetController asks for the ReplicaSet and Pod informers and
// registers its handlers.
func NewReplicaSetController(cc *controller.ControllerContext) (*ReplicaSetController, error) {
	rsInformer := controller.InformerFor[appsv1.ReplicaSet](cc.Informers)
	cache.AddNamespaceIndex(rsInformer)
	return NewBaseController(cc, informerSource{client: cc.Client, informer: rsInformer}, controllerKind, "replicaset", ControllerName), nil
}

// NewBaseController is the controller of the objects src holds, of kind
// gvk; name is its name in logs, eventSource its events' component.
// Upstream: NewBaseController.
func NewBaseController(cc *controller.ControllerContext, src Source, gvk GroupVersionKind, name, eventSource string) *ReplicaSetController {
	log := cc.Log.With("controller", eventSource)
	rec := record.NewRecorder(cc.Client, eventSource, log)
	c := &ReplicaSetController{
		gvk:           gvk,
		name:          name,
		client:        cc.Client,
		rsLister:      src,
		podInformer:   controller.InformerFor[corev1.Pod](cc.Informers),
		queue:         workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		expectations:  controller.NewUIDTrackingControllerExpectations(controller.NewControllerExpectations()),
		podControl:    controller.PodControl{Client: cc.Client, Recorder: rec},
		recorder:      rec,
		burstReplicas: BurstReplicas,
		log:           log,
	}
	cache.AddNamespaceIndex(c.podInformer)
	src.AddEventHandler(cache.ResourceEventHandlerFuncs[appsv1.ReplicaSet]{
		AddFunc:    c.addRS,
		UpdateFunc: c.updateRS,
		DeleteFunc: c.deleteRS,
	})
	c.podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc:    c.addPod,
		UpdateFunc: c.updatePod,
		DeleteFunc: c.deletePod,
	})
	return c
}

// Run waits for the caches, then runs workers until ctx ends.
func (c *ReplicaSetController) Run(ctx context.Context, workers int) {
	go c.recorder.Run(ctx)
	c.log.Info("Starting controller", "name", c.name)
	worker.RunWorkers(ctx, c.queue, workers, c.processNextWorkItem, c.rsLister.HasSynced, c.podInformer.HasSynced)
}

func (c *ReplicaSetController) processNextWorkItem(ctx context.Context) bool {
	return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.syncReplicaSet), c.log, c.name)
}

// Sync is one sync of key, what a worker runs for it (package
// replication's tests call it). Upstream: the syncHandler field.
func (c *ReplicaSetController) Sync(ctx context.Context, key string) error {
	return c.syncReplicaSet(ctx, key)
}

func (c *ReplicaSetController) enqueue(rs *appsv1.ReplicaSet) {
	c.queue.Add(cache.MetaNamespaceKeyFunc(rs))
}

// syncReplicaSet brings one ReplicaSet towards its spec: claim its pods,
// create or delete pods if the expectations allow, then write status.
func (c *ReplicaSetController) syncReplicaSet(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	cached, ok := c.rsLister.Get(ns, name)
	if !ok {
		c.expectations.DeleteExpectations(key)
		return nil
	}
	rsNeedsSync := c.expectations.SatisfiedExpectations(key)
	selector, err := selection.FromLabelSelector(cached.Spec.Selector)
	if err != nil {
		c.log.Error("invalid selector", "replicaset", key, "err", err)
		return nil // the user must fix the ReplicaSet; retrying will not help
	}
	rs := metav1.DeepCopy(cached)

	// The active pods of the namespace; ours after claiming.
	allPods := c.podInformer.GetStore().ByIndex(cache.NamespaceIndex, ns)
	filteredPods, err := c.claimPods(ctx, rs, selector, controller.FilterActivePods(allPods))
	if err != nil {
		return err
	}

	// Pods of ours being deleted: reported, not counted (upstream's
	// DeploymentReplicaSetTerminatingReplicas, beta and on in 1.35).
	terminatingPods := filterClaimedPods(rs, selector, controller.FilterTerminatingPods(allPods))

	var manageReplicasErr error
	if rsNeedsSync && rs.DeletionTimestamp == nil {
		manageReplicasErr = c.manageReplicas(ctx, filteredPods, rs)
	}
	newStatus := calculateStatus(rs, filteredPods, terminatingPods, manageReplicasErr)
	if c.gvk != controllerKind {
		newStatus.TerminatingReplicas = nil // not a field of a ReplicationController's status
	}
	updated, err := updateReplicaSetStatus(ctx, c.rsLister, rs, newStatus)
	if err != nil {
		return err
	}
	// Pods that became ready count as available only after minReadySeconds:
	// look again then.
	if manageReplicasErr == nil && updated.Spec.MinReadySeconds > 0 &&
		updated.Status.ReadyReplicas == replicas(updated) && updated.Status.AvailableReplicas != replicas(updated) {
		c.queue.AddAfter(key, time.Duration(updated.Spec.MinReadySeconds)*time.Second)
	}
	return manageReplicasErr
}

func (c *ReplicaSetController) claimPods(ctx context.Context, rs *appsv1.ReplicaSet, selector selection.LabelSelector, pods []*corev1.Pod) ([]*corev1.Pod, error) {
	m := &controller.ControllerRefManager[corev1.Pod, *corev1.Pod]{
		Client: c.client, Controller: &rs.ObjectMeta, APIVersion: c.gvk.APIVersion, Kind: c.gvk.Kind, Selector: selector,
		CanAdoptFunc: controller.RecheckDeletionTimestamp(func(ctx context.Context) (*metav1.ObjectMeta, error) {
			fresh, err := c.rsLister.Fetch(ctx, rs.Namespace, rs.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		}, rs.UID),
	}
	return m.Claim(ctx, pods)
}

// filterClaimedPods are the pods rs already owns that its selector matches
// (no adoption: terminating pods are never adopted).
func filterClaimedPods(rs *appsv1.ReplicaSet, selector selection.LabelSelector, pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if ref := metav1.GetControllerOf(&p.ObjectMeta); ref != nil && ref.UID == rs.UID && selector.Matches(p.Labels) {
			out = append(out, p)
		}
	}
	return out
}

func replicas(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// manageReplicas creates or deletes pods so that filteredPods (the
// ReplicaSet's active pods) becomes spec.replicas, at most burstReplicas
// per sync.
func (c *ReplicaSetController) manageReplicas(ctx context.Context, filteredPods []*corev1.Pod, rs *appsv1.ReplicaSet) error {
	diff := len(filteredPods) - int(replicas(rs))
	key := cache.MetaNamespaceKeyFunc(rs)
	ref := record.RefFor(&rs.ObjectMeta, c.gvk.APIVersion, c.gvk.Kind)
	switch {
	case diff < 0:
		diff = min(-diff, c.burstReplicas)
		// Expect the creations before making them: the pod informer may
		// see a new pod before CreatePods returns.
		c.expectations.ExpectCreations(key, diff)
		c.log.Debug("Too few replicas", "replicaset", key, "need", replicas(rs), "creating", diff)
		controllerRef := controller.NewControllerRef(&rs.ObjectMeta, c.gvk.APIVersion, c.gvk.Kind)
		successes, err := slowStartBatch(diff, SlowStartInitialBatchSize, func() error {
			_, err := c.podControl.CreatePods(ctx, rs.Namespace, &rs.Spec.Template, ref, &controllerRef)
			if err != nil && rest.IsForbidden(err) && controller.IsNamespaceTerminating(err) {
				return nil // the namespace is going away: do not retry
			}
			return err
		})
		// The pods not created will never be observed.
		for range diff - successes {
			c.expectations.CreationObserved(key)
		}
		return err
	case diff > 0:
		diff = min(diff, c.burstReplicas)
		c.log.Debug("Too many replicas", "replicaset", key, "need", replicas(rs), "deleting", diff)
		podsToDelete := getPodsToDelete(filteredPods, c.getIndirectlyRelatedPods(rs), diff)
		keys := make([]string, len(podsToDelete))
		for i, p := range podsToDelete {
			keys[i] = cache.MetaNamespaceKeyFunc(p)
		}
		c.expectations.ExpectDeletions(key, keys)
		errCh := make(chan error, diff)
		var wg sync.WaitGroup
		for _, p := range podsToDelete {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := c.podControl.DeletePod(ctx, rs.Namespace, p.Name, ref); err != nil {
					// Never observed: lower the expectations ourselves.
					c.expectations.DeletionObserved(key, cache.MetaNamespaceKeyFunc(p))
					if !rest.IsNotFound(err) {
						errCh <- err
					}
				}
			}()
		}
		wg.Wait()
		select {
		case err := <-errCh:
			return err
		default:
		}
	}
	return nil
}

// SlowStartInitialBatchSize is the first batch of slowStartBatch.
const SlowStartInitialBatchSize = 1

// slowStartBatch calls fn count times in batches of 1, 2, 4, 8 ... calls
// in parallel, and stops at the first batch with an error: a ReplicaSet
// whose pods are all refused (quota, admission) makes one failing call, not
// 500. Returns how many calls succeeded. Upstream: slowStartBatch.
func slowStartBatch(count, initialBatchSize int, fn func() error) (int, error) {
	remaining := count
	successes := 0
	for batchSize := min(remaining, initialBatchSize); batchSize > 0; batchSize = min(2*batchSize, remaining) {
		errCh := make(chan error, batchSize)
		var wg sync.WaitGroup
		for range batchSize {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := fn(); err != nil {
					errCh <- err
				}
			}()
		}
		wg.Wait()
		successes += batchSize - len(errCh)
		if len(errCh) > 0 {
			return successes, <-errCh
		}
		remaining -= batchSize
	}
	return successes, nil
}

// getIndirectlyRelatedPods are the pods of every ReplicaSet with the same
// controller as rs (a Deployment's old and new ReplicaSets): deletion
// prefers pods on nodes crowded with them.
func (c *ReplicaSetController) getIndirectlyRelatedPods(rs *appsv1.ReplicaSet) []*corev1.Pod {
	owners := map[string]bool{rs.UID: true}
	if ref := metav1.GetControllerOf(&rs.ObjectMeta); ref != nil {
		for _, other := range c.rsLister.List(rs.Namespace) {
			if r := metav1.GetControllerOf(&other.ObjectMeta); r != nil && r.UID == ref.UID {
				owners[other.UID] = true
			}
		}
	}
	var related []*corev1.Pod
	for _, p := range c.podInformer.GetStore().ByIndex(cache.NamespaceIndex, rs.Namespace) {
		if r := metav1.GetControllerOf(&p.ObjectMeta); r != nil && owners[r.UID] {
			related = append(related, p)
		}
	}
	return related
}

// getPodsToDelete picks diff pods of filteredPods, the least valuable
// first (controller.ActivePodsWithRanks).
func getPodsToDelete(filteredPods, relatedPods []*corev1.Pod, diff int) []*corev1.Pod {
	if diff < len(filteredPods) {
		ranked := getPodsRankedByRelatedPodsOnSameNode(filteredPods, relatedPods)
		sort.Sort(ranked)
	}
	return filteredPods[:diff]
}

// getPodsRankedByRelatedPodsOnSameNode ranks each pod by the number of
// active related pods on its node.
func getPodsRankedByRelatedPodsOnSameNode(podsToRank, relatedPods []*corev1.Pod) controller.ActivePodsWithRanks {
	podsOnNode := map[string]int{}
	for _, p := range relatedPods {
		if controller.IsPodActive(p) {
			podsOnNode[p.Spec.NodeName]++
		}
	}
	ranks := make([]int, len(podsToRank))
	for i, p := range podsToRank {
		ranks[i] = podsOnNode[p.Spec.NodeName]
	}
	return controller.ActivePodsWithRanks{Pods: podsToRank, Rank: ranks, Now: metav1.Now()}
}
