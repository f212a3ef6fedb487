// Package statefulset is the StatefulSet controller of
// kube-controller-manager: pods with a stable identity and stable storage.
//
// A StatefulSet of n replicas runs the pods <set>-<start> …
// <set>-<start+n-1> (start is spec.ordinals.start, 0 by default). Each is
// built from the template with the labels statefulset.kubernetes.io/pod-name
// (its name), apps.kubernetes.io/pod-index (its ordinal) and
// controller-revision-hash (its revision), hostname = its name and
// subdomain = spec.serviceName (so the headless Service gives it the DNS
// name <pod>.<service>), and before it, one PersistentVolumeClaim per
// volumeClaimTemplate, named <claim>-<pod>, which outlives the pod.
//
// One sync (stateful_set_control.go):
//
//  1. the revisions: each distinct template is a ControllerRevision
//     <set>-<hash> (numbered by .revision); the template's own is the update
//     revision, the one the pods came from the current revision
//     (status.currentRevision, status.updateRevision); a template equal to
//     an old revision (kubectl rollout undo) renumbers that revision;
//  2. the replicas in the ordinal range: a failed or succeeded pod is
//     deleted and recreated, a missing one created — with podManagementPolicy
//     OrderedReady one at a time, each only once its predecessors are
//     Running and Ready; with Parallel all at once;
//  3. the pods beyond the range are deleted, highest ordinal first
//     (OrderedReady: one at a time, once the others are healthy);
//  4. a RollingUpdate deletes the pods not at the update revision, highest
//     ordinal first, down to the partition, at most maxUnavailable
//     unavailable at a time; they come back at the update revision. OnDelete
//     leaves that to the user;
//  5. status: replicas, readyReplicas, availableReplicas (ready for
//     minReadySeconds), currentReplicas, updatedReplicas, the revisions,
//     collisionCount, observedGeneration; the oldest unused revisions beyond
//     revisionHistoryLimit are deleted.
//
// persistentVolumeClaimRetentionPolicy is carried out by ownerReferences
// on the claims, which the garbage collector follows: whenDeleted Delete
// makes the set their controller, whenScaled Delete makes a condemned pod
// the controller of its claims.
//
// Upstream: pkg/controller/statefulset (stateful_set.go,
// stateful_set_control.go, stateful_set_utils.go, stateful_pod_control.go,
// stateful_set_status_updater.go).
package statefulset

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/controller/history"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
)

// ControllerName is the event source and the reportingComponent.
const ControllerName = "statefulset-controller"

// StatefulSetController is upstream's StatefulSetController.
type StatefulSetController struct {
	client    *rest.Client
	control   *defaultStatefulSetControl
	sets      *cache.Informer[appsv1.StatefulSet, *appsv1.StatefulSet]
	pods      *cache.Informer[corev1.Pod, *corev1.Pod]
	claims    *cache.Informer[corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaim]
	revisions *cache.Informer[appsv1.ControllerRevision, *appsv1.ControllerRevision]
	queue     *workqueue.RateLimitingQueue[string]
	recorder  *record.Recorder
	log       *slog.Logger
}

// NewStatefulSetController asks for the StatefulSet, Pod,
// PersistentVolumeClaim and ControllerRevision informers and registers its
// handlers.
func NewStatefulSetController(cc *controller.ControllerContext) (*StatefulSetController, error) {
	log := cc.Log.With("controller", ControllerName)
	rec := record.NewRecorder(cc.Client, ControllerName, log)
	ssc := &StatefulSetController{
		client:    cc.Client,
		sets:      controller.InformerFor[appsv1.StatefulSet](cc.Informers),
		pods:      controller.InformerFor[corev1.Pod](cc.Informers),
		claims:    controller.InformerFor[corev1.PersistentVolumeClaim](cc.Informers),
		revisions: controller.InformerFor[appsv1.ControllerRevision](cc.Informers),
		queue:     workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		recorder:  rec,
		log:       log,
	}
	cache.AddNamespaceIndex(ssc.sets)
	cache.AddNamespaceIndex(ssc.pods)
	ssc.control = &defaultStatefulSetControl{
		podControl:        &StatefulPodControl{client: cc.Client, pods: ssc.pods, claims: ssc.claims, recorder: rec, log: log},
		statusUpdater:     &realStatefulSetStatusUpdater{client: cc.Client, sets: ssc.sets},
		controllerHistory: history.NewHistory(cc.Client, ssc.revisions),
		log:               log,
	}
	ssc.pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc: ssc.addPod, UpdateFunc: ssc.updatePod, DeleteFunc: ssc.deletePod,
	})
	ssc.sets.AddEventHandler(cache.ResourceEventHandlerFuncs[appsv1.StatefulSet]{
		AddFunc: ssc.enqueueStatefulSet,
		UpdateFunc: func(old, cur *appsv1.StatefulSet) {
			if old.Status.Replicas != cur.Status.Replicas {
				log.Debug("Observed updated replica count for StatefulSet", "statefulSet", cur.Namespace+"/"+cur.Name,
					"oldReplicas", old.Status.Replicas, "newReplicas", cur.Status.Replicas)
			}
			ssc.enqueueStatefulSet(cur)
		},
		DeleteFunc: ssc.enqueueStatefulSet,
	})
	return ssc, nil
}

// Run waits for the caches, then runs workers until ctx ends.
func (ssc *StatefulSetController) Run(ctx context.Context, workers int) {
	go ssc.recorder.Run(ctx)
	ssc.log.Info("Starting stateful set controller")
	defer ssc.log.Info("Shutting down statefulset controller")
	worker.RunWorkers(ctx, ssc.queue, workers, ssc.processNextWorkItem,
		ssc.pods.HasSynced, ssc.sets.HasSynced, ssc.claims.HasSynced, ssc.revisions.HasSynced)
}

func (ssc *StatefulSetController) processNextWorkItem(ctx context.Context) bool {
	return worker.ProcessNextWorkItem(ctx, ssc.queue, worker.SyncErr(ssc.sync), ssc.log, "statefulSet")
}

func (ssc *StatefulSetController) enqueueStatefulSet(set *appsv1.StatefulSet) {
	ssc.queue.Add(cache.MetaNamespaceKeyFunc(set))
}

func (ssc *StatefulSetController) enqueueSSAfter(set *appsv1.StatefulSet, d time.Duration) {
	ssc.queue.AddAfter(cache.MetaNamespaceKeyFunc(set), d)
}

// addPod: a pod of a set (or an orphan some set may adopt) appeared.
func (ssc *StatefulSetController) addPod(pod *corev1.Pod) {
	if pod.DeletionTimestamp != nil {
		ssc.deletePod(pod)
		return
	}
	if ref := metav1.GetControllerOf(&pod.ObjectMeta); ref != nil {
		if set := ssc.resolveControllerRef(pod.Namespace, ref); set != nil {
			ssc.enqueueStatefulSet(set)
		}
		return
	}
	for _, set := range ssc.getStatefulSetsForPod(pod) {
		ssc.enqueueStatefulSet(set)
	}
}

// updatePod: the old and the new controller sync; a pod that became ready
// syncs again after minReadySeconds (it is available then).
func (ssc *StatefulSetController) updatePod(old, cur *corev1.Pod) {
	if cur.ResourceVersion == old.ResourceVersion {
		return
	}
	labelChanged := !maps.Equal(cur.Labels, old.Labels)
	curRef, oldRef := metav1.GetControllerOf(&cur.ObjectMeta), metav1.GetControllerOf(&old.ObjectMeta)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if set := ssc.resolveControllerRef(old.Namespace, oldRef); set != nil {
			ssc.enqueueStatefulSet(set)
		}
	}
	if curRef != nil {
		set := ssc.resolveControllerRef(cur.Namespace, curRef)
		if set == nil {
			return
		}
		ssc.enqueueStatefulSet(set)
		if !controller.IsPodReady(old) && controller.IsPodReady(cur) && set.Spec.MinReadySeconds > 0 {
			ssc.enqueueSSAfter(set, time.Duration(set.Spec.MinReadySeconds)*time.Second+time.Second)
		}
		return
	}
	if labelChanged || refChanged {
		for _, set := range ssc.getStatefulSetsForPod(cur) {
			ssc.enqueueStatefulSet(set)
		}
	}
}

// deletePod: the pod's set syncs (to recreate it, or take the next step).
func (ssc *StatefulSetController) deletePod(pod *corev1.Pod) {
	ref := metav1.GetControllerOf(&pod.ObjectMeta)
	if ref == nil {
		return
	}
	if set := ssc.resolveControllerRef(pod.Namespace, ref); set != nil {
		ssc.enqueueStatefulSet(set)
	}
}

func sameRef(a, b *metav1.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID && a.Name == b.Name && a.Kind == b.Kind && a.APIVersion == b.APIVersion
}

// resolveControllerRef is the set ref points to, if it is still that one.
func (ssc *StatefulSetController) resolveControllerRef(namespace string, ref *metav1.OwnerReference) *appsv1.StatefulSet {
	if ref.Kind != controllerKind.Kind {
		return nil
	}
	set, ok := ssc.sets.GetStore().Get(namespace, ref.Name)
	if !ok || set.UID != ref.UID {
		return nil
	}
	return set
}

// getStatefulSetsForPod are the sets whose selector matches the pod.
func (ssc *StatefulSetController) getStatefulSetsForPod(pod *corev1.Pod) []*appsv1.StatefulSet {
	var out []*appsv1.StatefulSet
	for _, set := range ssc.sets.GetStore().ByIndex(cache.NamespaceIndex, pod.Namespace) {
		sel, err := selection.FromLabelSelector(set.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(pod.Labels) {
			continue
		}
		out = append(out, set)
	}
	if len(out) > 1 {
		names := make([]string, len(out))
		for i, s := range out {
			names[i] = s.Name
		}
		ssc.log.Error("user error: more than one StatefulSet is selecting pods", "labels", pod.Labels, "sets", names)
	}
	return out
}

// canAdoptFunc rechecks, with a read from the apiserver, that the set is
// not being deleted before anything is adopted.
func (ssc *StatefulSetController) canAdoptFunc(set *appsv1.StatefulSet) func(ctx context.Context) error {
	return controller.RecheckDeletionTimestamp(func(ctx context.Context) (*metav1.ObjectMeta, error) {
		fresh, err := rest.Get[appsv1.StatefulSet](ctx, ssc.client, set.Namespace, set.Name)
		if err != nil {
			return nil, err
		}
		if fresh.UID != set.UID {
			return nil, fmt.Errorf("original StatefulSet %v/%v is gone: got uid %v, wanted %v", set.Namespace, set.Name, fresh.UID, set.UID)
		}
		return &fresh.ObjectMeta, nil
	}, set.UID)
}

// adoptOrphanRevisions adopts the orphan revisions the set's selector matches.
func (ssc *StatefulSetController) adoptOrphanRevisions(ctx context.Context, set *appsv1.StatefulSet) error {
	revisions, err := ssc.control.ListRevisions(set)
	if err != nil {
		return err
	}
	var orphans []*appsv1.ControllerRevision
	for _, r := range revisions {
		if metav1.GetControllerOf(&r.ObjectMeta) == nil {
			orphans = append(orphans, r)
		}
	}
	if len(orphans) == 0 {
		return nil
	}
	if err := ssc.canAdoptFunc(set)(ctx); err != nil {
		return fmt.Errorf("can't adopt ControllerRevisions: %v", err)
	}
	return ssc.control.AdoptOrphanRevisions(ctx, set, orphans)
}

// getPodsForStatefulSet are the set's pods after adopting the orphans that
// match its selector and name and releasing its pods that no longer do.
func (ssc *StatefulSetController) getPodsForStatefulSet(ctx context.Context, set *appsv1.StatefulSet, selector selection.LabelSelector) ([]*corev1.Pod, error) {
	m := &controller.ControllerRefManager[corev1.Pod, *corev1.Pod]{
		Client: ssc.client, Controller: &set.ObjectMeta, APIVersion: controllerKind.APIVersion, Kind: controllerKind.Kind,
		Selector: selector, CanAdoptFunc: ssc.canAdoptFunc(set),
	}
	pods := ssc.pods.GetStore().ByIndex(cache.NamespaceIndex, set.Namespace)
	return m.Claim(ctx, pods, func(p *corev1.Pod) bool { return isMemberOf(set, p) })
}

// sync is one sync of the set of key.
func (ssc *StatefulSetController) sync(ctx context.Context, key string) error {
	start := time.Now()
	defer func() { ssc.log.Debug("Finished syncing statefulset", "key", key, "time", time.Since(start)) }()
	ns, name := cache.SplitMetaNamespaceKey(key)
	cached, ok := ssc.sets.GetStore().Get(ns, name)
	if !ok {
		ssc.log.Info("StatefulSet has been deleted", "key", key)
		return nil
	}
	set := metav1.DeepCopy(cached)
	selector, err := selection.FromLabelSelector(set.Spec.Selector)
	if err != nil {
		ssc.log.Error("error converting StatefulSet selector", "key", key, "err", err)
		return nil // not transient: the user must fix the set
	}
	if err := ssc.adoptOrphanRevisions(ctx, set); err != nil {
		return err
	}
	pods, err := ssc.getPodsForStatefulSet(ctx, set, selector)
	if err != nil {
		return err
	}
	return ssc.syncStatefulSet(ctx, set, pods)
}

func (ssc *StatefulSetController) syncStatefulSet(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod) error {
	ssc.log.Debug("Syncing StatefulSet with pods", "statefulSet", set.Namespace+"/"+set.Name, "pods", len(pods))
	status, err := ssc.control.UpdateStatefulSet(ctx, set, pods)
	if err != nil {
		return err
	}
	// Once more after minReadySeconds, for availableReplicas.
	if set.Spec.MinReadySeconds > 0 && status != nil && status.AvailableReplicas != int32(replicasOf(set)) {
		ssc.enqueueSSAfter(set, time.Duration(set.Spec.MinReadySeconds)*time.Second)
	}
	return nil
}
