// Package deployment is the Deployment controller. A Deployment does not
// manage pods itself: it manages ReplicaSets, one per version of its pod
// template, each named <deployment>-<pod-template-hash>. A rollout scales
// the new ReplicaSet up and the old ones down, within maxSurge extra and
// maxUnavailable missing pods (RollingUpdate), or all old ones to zero
// before the new one starts (Recreate). The ReplicaSet controller then
// makes the pods.
//
// Its bookkeeping is what kubectl reads:
//
//	deployment.kubernetes.io/revision      on the Deployment and each ReplicaSet: rollout history
//	deployment.kubernetes.io/revision-history  revisions a ReplicaSet had before a rollback reused it
//	deployment.kubernetes.io/desired-replicas, max-replicas  for proportional scaling mid-rollout
//	status.conditions Progressing, Available, ReplicaFailure  `kubectl rollout status`
//	events ScalingReplicaSet                `kubectl describe deployment`
//
// Rollback (`kubectl rollout undo`) is done by kubectl itself: it copies an
// old ReplicaSet's template into the Deployment, and this controller sees a
// template change like any other (finding the old ReplicaSet and giving it
// a new revision).
//
// Upstream: pkg/controller/deployment (deployment_controller.go, sync.go,
// rolling.go, recreate.go, progress.go, util/).
package deployment

import (
	"context"
	"fmt"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
	"log/slog"
	"reflect"
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

// ControllerName is the event source and the reportingComponent.
const ControllerName = "deployment-controller"

// maxRetries: a Deployment failing this many syncs in a row is dropped
// from the queue (until its next change).
const maxRetries = 15

// DeploymentController is the controller of Deployments.
type DeploymentController struct {
	client      *rest.Client
	dInformer   *cache.Informer[appsv1.Deployment, *appsv1.Deployment]
	rsInformer  *cache.Informer[appsv1.ReplicaSet, *appsv1.ReplicaSet]
	podInformer *cache.Informer[corev1.Pod, *corev1.Pod]
	queue       *workqueue.RateLimitingQueue[string]
	recorder    *record.Recorder
	log         *slog.Logger
}

// NewDeploymentController asks for the Deployment, ReplicaSet and Pod
// informers and registers its handlers.
func NewDeploymentController(cc *controller.ControllerContext) (*DeploymentController, error) {
	log := cc.Log.With("controller", ControllerName)
	dc := &DeploymentController{
		client:      cc.Client,
		dInformer:   controller.InformerFor[appsv1.Deployment](cc.Informers),
		rsInformer:  controller.InformerFor[appsv1.ReplicaSet](cc.Informers),
		podInformer: controller.InformerFor[corev1.Pod](cc.Informers),
		queue:       workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		recorder:    record.NewRecorder(cc.Client, ControllerName, log),
		log:         log,
	}
	cache.AddNamespaceIndex(dc.dInformer)
	cache.AddNamespaceIndex(dc.rsInformer)
	cache.AddNamespaceIndex(dc.podInformer)
	dc.dInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[appsv1.Deployment]{
		AddFunc:    dc.enqueue,
		UpdateFunc: func(_, cur *appsv1.Deployment) { dc.enqueue(cur) },
		DeleteFunc: dc.enqueue,
	})
	dc.rsInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[appsv1.ReplicaSet]{
		AddFunc:    dc.addReplicaSet,
		UpdateFunc: dc.updateReplicaSet,
		DeleteFunc: dc.deleteReplicaSet,
	})
	dc.podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{DeleteFunc: dc.deletePod})
	return dc, nil
}

// Run waits for the caches, then runs workers until ctx ends.
func (dc *DeploymentController) Run(ctx context.Context, workers int) {
	go dc.recorder.Run(ctx)
	dc.log.Info("Starting controller", "name", "deployment")
	worker.RunWorkers(ctx, dc.queue, workers, dc.processNextWorkItem, dc.dInformer.HasSynced, dc.rsInformer.HasSynced, dc.podInformer.HasSynced)
}

func (dc *DeploymentController) processNextWorkItem(ctx context.Context) bool {
	key, quit := dc.queue.Get()
	if quit {
		return false
	}
	defer dc.queue.Done(key)
	err := dc.syncDeployment(ctx, key)
	switch {
	case err == nil || ctx.Err() != nil:
		dc.queue.Forget(key)
	case dc.queue.NumRequeues(key) < maxRetries:
		dc.log.Info("Error syncing deployment", "deployment", key, "err", err)
		dc.queue.AddRateLimited(key)
	default:
		dc.log.Info("Dropping deployment out of the queue", "deployment", key, "err", err)
		dc.queue.Forget(key)
	}
	return true
}

func (dc *DeploymentController) enqueue(d *appsv1.Deployment) {
	dc.queue.Add(cache.MetaNamespaceKeyFunc(d))
}

func (dc *DeploymentController) enqueueAfter(d *appsv1.Deployment, after time.Duration) {
	dc.queue.AddAfter(cache.MetaNamespaceKeyFunc(d), after)
}

// ---- handlers: find the Deployment a ReplicaSet or pod belongs to ----

func (dc *DeploymentController) resolveControllerRef(namespace string, ref *metav1.OwnerReference) *appsv1.Deployment {
	if ref.Kind != "Deployment" {
		return nil
	}
	d, ok := dc.dInformer.GetStore().Get(namespace, ref.Name)
	if !ok || d.UID != ref.UID {
		return nil
	}
	return d
}

// getDeploymentsForReplicaSet are the Deployments whose selector matches an
// orphan ReplicaSet.
func (dc *DeploymentController) getDeploymentsForReplicaSet(rs *appsv1.ReplicaSet) []*appsv1.Deployment {
	var out []*appsv1.Deployment
	for _, d := range dc.dInformer.GetStore().ByIndex(cache.NamespaceIndex, rs.Namespace) {
		sel, err := selection.FromLabelSelector(d.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(rs.Labels) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func (dc *DeploymentController) addReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.DeletionTimestamp != nil {
		dc.deleteReplicaSet(rs)
		return
	}
	if ref := metav1.GetControllerOf(&rs.ObjectMeta); ref != nil {
		if d := dc.resolveControllerRef(rs.Namespace, ref); d != nil {
			dc.enqueue(d)
		}
		return
	}
	for _, d := range dc.getDeploymentsForReplicaSet(rs) {
		dc.enqueue(d)
	}
}

func (dc *DeploymentController) updateReplicaSet(old, cur *appsv1.ReplicaSet) {
	if cur.ResourceVersion == old.ResourceVersion {
		return
	}
	curRef, oldRef := metav1.GetControllerOf(&cur.ObjectMeta), metav1.GetControllerOf(&old.ObjectMeta)
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		if d := dc.resolveControllerRef(old.Namespace, oldRef); d != nil {
			dc.enqueue(d)
		}
	}
	if curRef != nil {
		if d := dc.resolveControllerRef(cur.Namespace, curRef); d != nil {
			dc.enqueue(d)
		}
		return
	}
	if refChanged || !reflect.DeepEqual(cur.Labels, old.Labels) {
		for _, d := range dc.getDeploymentsForReplicaSet(cur) {
			dc.enqueue(d)
		}
	}
}

func (dc *DeploymentController) deleteReplicaSet(rs *appsv1.ReplicaSet) {
	if ref := metav1.GetControllerOf(&rs.ObjectMeta); ref != nil {
		if d := dc.resolveControllerRef(rs.Namespace, ref); d != nil {
			dc.enqueue(d)
		}
	}
}

// deletePod matters only to Recreate, which waits for every old pod to be
// gone before it starts the new ReplicaSet.
func (dc *DeploymentController) deletePod(pod *corev1.Pod) {
	ref := metav1.GetControllerOf(&pod.ObjectMeta)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs, ok := dc.rsInformer.GetStore().Get(pod.Namespace, ref.Name)
	if !ok || rs.UID != ref.UID {
		return
	}
	dref := metav1.GetControllerOf(&rs.ObjectMeta)
	if dref == nil {
		return
	}
	if d := dc.resolveControllerRef(rs.Namespace, dref); d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		dc.enqueue(d)
	}
}

// ---- the sync ----

// syncDeployment brings one Deployment towards its spec.
func (dc *DeploymentController) syncDeployment(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	cached, ok := dc.dInformer.GetStore().Get(ns, name)
	if !ok {
		return nil // deleted; the garbage collector removes its ReplicaSets
	}
	d := metav1.DeepCopy(cached)

	if d.Spec.Selector == nil || (len(d.Spec.Selector.MatchLabels) == 0 && len(d.Spec.Selector.MatchExpressions) == 0) {
		dc.recorder.Eventf(dc.ref(d), corev1.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			_, _ = rest.UpdateStatus(ctx, dc.client, d)
		}
		return nil
	}
	rsList, err := dc.getReplicaSetsForDeployment(ctx, d)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		return dc.syncStatusOnly(ctx, d, rsList)
	}
	if err := dc.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused {
		return dc.sync(ctx, d, rsList)
	}
	if dc.isScalingEvent(ctx, d, rsList) {
		return dc.sync(ctx, d, rsList)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return dc.rolloutRecreate(ctx, d, rsList, dc.getPodMapForDeployment(d, rsList))
	case appsv1.RollingUpdateDeploymentStrategyType:
		return dc.rolloutRolling(ctx, d, rsList)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

func (dc *DeploymentController) ref(d *appsv1.Deployment) record.ObjectRef {
	return record.RefFor(&d.ObjectMeta, "apps/v1", "Deployment")
}

// getReplicaSetsForDeployment claims the ReplicaSets of d: adopts matching
// orphans, releases owned ones that no longer match.
func (dc *DeploymentController) getReplicaSetsForDeployment(ctx context.Context, d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	sel, err := selection.FromLabelSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s has invalid label selector: %v", d.Namespace, d.Name, err)
	}
	m := &controller.ControllerRefManager[appsv1.ReplicaSet, *appsv1.ReplicaSet]{
		Client: dc.client, Controller: &d.ObjectMeta, APIVersion: "apps/v1", Kind: "Deployment", Selector: sel,
		CanAdoptFunc: controller.RecheckDeletionTimestamp(func(ctx context.Context) (*metav1.ObjectMeta, error) {
			fresh, err := rest.Get[appsv1.Deployment](ctx, dc.client, d.Namespace, d.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		}, d.UID),
	}
	// Copies: the sync changes them (annotations, replicas) before writing.
	var rss []*appsv1.ReplicaSet
	for _, rs := range dc.rsInformer.GetStore().ByIndex(cache.NamespaceIndex, d.Namespace) {
		rss = append(rss, metav1.DeepCopy(rs))
	}
	return m.Claim(ctx, rss)
}

// getPodMapForDeployment groups d's pods by the UID of their ReplicaSet.
func (dc *DeploymentController) getPodMapForDeployment(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) map[string][]*corev1.Pod {
	sel, err := selection.FromLabelSelector(d.Spec.Selector)
	if err != nil {
		return nil
	}
	podMap := map[string][]*corev1.Pod{}
	for _, rs := range rsList {
		podMap[rs.UID] = nil
	}
	for _, p := range dc.podInformer.GetStore().ByIndex(cache.NamespaceIndex, d.Namespace) {
		if !sel.Matches(p.Labels) {
			continue
		}
		if ref := metav1.GetControllerOf(&p.ObjectMeta); ref != nil {
			if _, ok := podMap[ref.UID]; ok {
				podMap[ref.UID] = append(podMap[ref.UID], p)
			}
		}
	}
	return podMap
}

// checkPausedConditions sets Progressing=Unknown DeploymentPaused when a
// Deployment is paused and DeploymentResumed when it resumes, so the
// progress deadline does not count the paused time.
func (dc *DeploymentController) checkPausedConditions(ctx context.Context, d *appsv1.Deployment) error {
	if !HasProgressDeadline(d) {
		return nil
	}
	cond := GetDeploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == TimedOutReason {
		return nil // a timed-out Deployment stays so until a new rollout
	}
	pausedCondExists := cond != nil && cond.Reason == PausedDeployReason
	switch {
	case d.Spec.Paused && !pausedCondExists:
		SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, PausedDeployReason, "Deployment is paused"))
	case !d.Spec.Paused && pausedCondExists:
		SetDeploymentCondition(&d.Status, *NewDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ResumedDeployReason, "Deployment is resumed"))
	default:
		return nil
	}
	return dc.updateStatus(ctx, d)
}

// updateStatus writes d's status (and annotations) and keeps d current
// with what was stored, so a later write in the same sync does not conflict.
func (dc *DeploymentController) updateStatus(ctx context.Context, d *appsv1.Deployment) error {
	updated, err := rest.UpdateStatus(ctx, dc.client, d)
	if err != nil {
		return err
	}
	*d = *updated
	return nil
}

func (dc *DeploymentController) key(d *appsv1.Deployment) string {
	return cache.MetaNamespaceKeyFunc(d)
}
