// Package disruption is the disruption controller: it computes the status
// of every PodDisruptionBudget — how many of its pods are healthy
// (currentHealthy), how many must stay so (desiredHealthy), how many pods
// there should be (expectedPods, from the scale of the pods' controllers),
// how many may be evicted now (disruptionsAllowed) and the
// DisruptionAllowed condition — which the apiserver's eviction subresource
// reads to allow or refuse an eviction:
//
//	kubectl create pdb web --selector=app=web --min-available=2
//	kubectl get pdb web        # ALLOWED DISRUPTIONS
//
// An eviction the apiserver allowed notes the pod in status.disruptedPods;
// the controller keeps it there (not healthy) until the pod is seen being
// deleted or DeletionTimeout has passed.
//
// Upstream: pkg/controller/disruption (disruption.go) and
// k8s.io/component-helpers/apps/poddisruptionbudget.
package disruption

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
)

// DeletionTimeout is how long a pod stays in status.disruptedPods after its
// eviction was allowed, waiting to be seen deleted; after that it is
// assumed it will not be and counts again. Upstream: DeletionTimeout.
const DeletionTimeout = 2 * time.Minute

// EventSource is the component of the controller's events (upstream's
// "controllermanager").
const EventSource = "controllermanager"

// DisruptionController keeps the status of PodDisruptionBudgets.
type DisruptionController struct {
	client      *rest.Client
	pdbInformer *cache.Informer[policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudget]
	podInformer *cache.Informer[corev1.Pod, *corev1.Pod]
	rcInformer  *cache.Informer[corev1.ReplicationController, *corev1.ReplicationController]
	rsInformer  *cache.Informer[appsv1.ReplicaSet, *appsv1.ReplicaSet]
	dInformer   *cache.Informer[appsv1.Deployment, *appsv1.Deployment]
	ssInformer  *cache.Informer[appsv1.StatefulSet, *appsv1.StatefulSet]
	queue       *workqueue.RateLimitingQueue[string]
	recorder    *record.Recorder
	clock       workqueue.Clock
	log         *slog.Logger
}

// NewDisruptionController asks for the informers of PDBs, pods and the
// controllers whose scale it reads, and registers its handlers.
func NewDisruptionController(cc *controller.ControllerContext) (*DisruptionController, error) {
	return newDisruptionController(cc, workqueue.RealClock{}), nil
}

func newDisruptionController(cc *controller.ControllerContext, clock workqueue.Clock) *DisruptionController {
	log := cc.Log.With("controller", "disruption")
	dc := &DisruptionController{
		client:      cc.Client,
		pdbInformer: controller.InformerFor[policyv1.PodDisruptionBudget](cc.Informers),
		podInformer: controller.InformerFor[corev1.Pod](cc.Informers),
		rcInformer:  controller.InformerFor[corev1.ReplicationController](cc.Informers),
		rsInformer:  controller.InformerFor[appsv1.ReplicaSet](cc.Informers),
		dInformer:   controller.InformerFor[appsv1.Deployment](cc.Informers),
		ssInformer:  controller.InformerFor[appsv1.StatefulSet](cc.Informers),
		queue:       workqueue.NewRateLimitingWithClock(workqueue.DefaultControllerRateLimiter[string](), clock),
		recorder:    record.NewRecorder(cc.Client, EventSource, log),
		clock:       clock,
		log:         log,
	}
	cache.AddNamespaceIndex(dc.pdbInformer)
	cache.AddNamespaceIndex(dc.podInformer)
	dc.pdbInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[policyv1.PodDisruptionBudget]{
		AddFunc:    dc.enqueuePdb,
		UpdateFunc: func(_, cur *policyv1.PodDisruptionBudget) { dc.enqueuePdb(cur) },
		DeleteFunc: dc.enqueuePdb,
	})
	dc.podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc:    dc.podChanged,
		UpdateFunc: func(_, cur *corev1.Pod) { dc.podChanged(cur) },
		DeleteFunc: dc.podChanged,
	})
	return dc
}

// Run waits for the caches, then syncs PDBs until ctx ends.
func (dc *DisruptionController) Run(ctx context.Context, workers int) {
	go dc.recorder.Run(ctx)
	dc.log.Info("Starting controller", "name", "disruption")
	worker.RunWorkers(ctx, dc.queue, workers, dc.processNextWorkItem, dc.podInformer.HasSynced, dc.pdbInformer.HasSynced,
		dc.rcInformer.HasSynced, dc.rsInformer.HasSynced, dc.dInformer.HasSynced, dc.ssInformer.HasSynced)
}

func (dc *DisruptionController) processNextWorkItem(ctx context.Context) bool {
	return worker.ProcessNextWorkItem(ctx, dc.queue, dc.sync, dc.log, "poddisruptionbudget")
}

func (dc *DisruptionController) enqueuePdb(pdb *policyv1.PodDisruptionBudget) {
	dc.queue.Add(cache.MetaNamespaceKeyFunc(pdb))
}

// podChanged: a pod was added, changed or deleted; the PDB that selects
// it looks again.
func (dc *DisruptionController) podChanged(pod *corev1.Pod) {
	if pdb := dc.getPdbForPod(pod); pdb != nil {
		dc.enqueuePdb(pdb)
	}
}

// getPdbForPod is the first PDB of the pod's namespace that selects it
// (an empty selector selects every pod; several: a warning event on the
// pod).
func (dc *DisruptionController) getPdbForPod(pod *corev1.Pod) *policyv1.PodDisruptionBudget {
	var pdbs []*policyv1.PodDisruptionBudget
	for _, pdb := range dc.pdbInformer.GetStore().ByIndex(cache.NamespaceIndex, pod.Namespace) {
		sel, err := selection.FromLabelSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(pod.Labels) {
			continue
		}
		pdbs = append(pdbs, pdb)
	}
	if len(pdbs) == 0 {
		return nil
	}
	if len(pdbs) > 1 {
		msg := fmt.Sprintf("Pod %q/%q matches multiple PodDisruptionBudgets.  Chose %q arbitrarily.", pod.Namespace, pod.Name, pdbs[0].Name)
		dc.recorder.Eventf(record.RefFor(&pod.ObjectMeta, "v1", "Pod"), corev1.EventTypeWarning, "MultiplePodDisruptionBudgets", "%s", msg)
	}
	return pdbs[0]
}

// getPodsForPdb are the pods of the PDB's namespace its selector selects
// (no selector: none).
func (dc *DisruptionController) getPodsForPdb(pdb *policyv1.PodDisruptionBudget) ([]*corev1.Pod, error) {
	sel, err := selection.FromLabelSelector(pdb.Spec.Selector)
	if err != nil {
		return nil, err
	}
	var pods []*corev1.Pod
	for _, p := range dc.podInformer.GetStore().ByIndex(cache.NamespaceIndex, pdb.Namespace) {
		if sel.Matches(p.Labels) {
			pods = append(pods, p)
		}
	}
	return pods, nil
}

// sync computes the status of one PDB. A failure other than a conflict
// still tries to write disruptionsAllowed 0 (failSafe): an eviction is
// then refused rather than allowed on a stale count.
func (dc *DisruptionController) sync(ctx context.Context, key string) (time.Duration, error) {
	ns, name := cache.SplitMetaNamespaceKey(key)
	pdb, ok := dc.pdbInformer.GetStore().Get(ns, name)
	if !ok {
		return 0, nil
	}
	recheck, err := dc.trySync(ctx, pdb)
	if rest.IsConflict(err) {
		return 0, err
	}
	if err != nil {
		dc.log.Error("Failed to sync PDB", "podDisruptionBudget", key, "err", err)
		return 0, dc.failSafe(ctx, pdb, err)
	}
	return recheck, nil
}

func (dc *DisruptionController) trySync(ctx context.Context, pdb *policyv1.PodDisruptionBudget) (time.Duration, error) {
	ref := record.RefFor(&pdb.ObjectMeta, "policy/v1", "PodDisruptionBudget")
	pods, err := dc.getPodsForPdb(pdb)
	if err != nil {
		dc.recorder.Eventf(ref, corev1.EventTypeWarning, "NoPods", "Failed to get pods: %v", err)
		return 0, err
	}
	if len(pods) == 0 {
		dc.recorder.Eventf(ref, corev1.EventTypeNormal, "NoPods", "No matching pods found")
	}
	expectedCount, desiredHealthy, unmanagedPods, err := dc.getExpectedPodCount(pdb, pods)
	if err != nil {
		dc.recorder.Eventf(ref, corev1.EventTypeWarning, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: %v", err)
		return 0, err
	}
	if len(unmanagedPods) > 0 {
		dc.recorder.Eventf(ref, corev1.EventTypeWarning, "UnmanagedPods", "Pods selected by this PodDisruptionBudget (selector: %v) were found "+
			"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
			"To account for these pods please set \".spec.minAvailable\" "+
			"field of the PDB to an integer value.", selectorString(pdb.Spec.Selector))
	}
	now := dc.clock.Now()
	disruptedPods, recheckTime := dc.buildDisruptedPodMap(pods, pdb, now)
	currentHealthy := countHealthyPods(pods, disruptedPods, now)
	if err := dc.updatePdbStatus(ctx, pdb, currentHealthy, desiredHealthy, expectedCount, disruptedPods); err != nil {
		return 0, err
	}
	if recheckTime != nil {
		return recheckTime.Sub(now), nil
	}
	return 0, nil
}

// countHealthyPods counts the ready pods that are neither being deleted
// nor waiting for an allowed eviction.
func countHealthyPods(pods []*corev1.Pod, disruptedPods map[string]metav1.Time, now time.Time) int32 {
	var n int32
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if t, found := disruptedPods[p.Name]; found && t.Add(DeletionTimeout).After(now) {
			continue
		}
		if controller.IsPodReady(p) {
			n++
		}
	}
	return n
}

// buildDisruptedPodMap keeps the entries of status.disruptedPods whose pod
// exists, is not yet being deleted and whose DeletionTimeout has not
// passed (a pod past it gets a NotDeleted event); it returns when the
// earliest kept entry expires, to look again then.
func (dc *DisruptionController) buildDisruptedPodMap(pods []*corev1.Pod, pdb *policyv1.PodDisruptionBudget, now time.Time) (map[string]metav1.Time, *time.Time) {
	result := map[string]metav1.Time{}
	var recheckTime *time.Time
	if pdb.Status.DisruptedPods == nil {
		return result, nil
	}
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		t, found := pdb.Status.DisruptedPods[p.Name]
		if !found {
			continue
		}
		expectedDeletion := t.Add(DeletionTimeout)
		if expectedDeletion.Before(now) {
			dc.log.Info("pod was expected to be deleted but it wasn't, updating PDB", "pod", p.Namespace+"/"+p.Name, "podDisruptionBudget", pdb.Name)
			// Upstream's message names the namespace twice.
			dc.recorder.Eventf(record.RefFor(&p.ObjectMeta, "v1", "Pod"), corev1.EventTypeWarning, "NotDeleted",
				"Pod was expected by PDB %s/%s to be deleted but it wasn't", pdb.Namespace, pdb.Namespace)
			continue
		}
		if recheckTime == nil || expectedDeletion.Before(*recheckTime) {
			recheckTime = &expectedDeletion
		}
		result[p.Name] = t
	}
	return result, recheckTime
}

// failSafe writes disruptionsAllowed 0 and DisruptionAllowed=False
// (SyncFailed, the error as message).
func (dc *DisruptionController) failSafe(ctx context.Context, pdb *policyv1.PodDisruptionBudget, err error) error {
	newPdb := metav1.DeepCopy(pdb)
	newPdb.Status.DisruptionsAllowed = 0
	setStatusCondition(&newPdb.Status.Conditions, metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: "False",
		Reason: policyv1.SyncFailedReason, Message: err.Error(), ObservedGeneration: newPdb.Status.ObservedGeneration}, dc.clock.Now())
	_, uerr := rest.UpdateStatus(ctx, dc.client, newPdb)
	return uerr
}

// updatePdbStatus writes the new counts unless nothing changed.
// disruptionsAllowed is currentHealthy-desiredHealthy, and 0 while no pods
// are expected: a PDB whose first pods appear is safe until this
// controller has counted them.
func (dc *DisruptionController) updatePdbStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget, currentHealthy, desiredHealthy, expectedCount int32, disruptedPods map[string]metav1.Time) error {
	disruptionsAllowed := currentHealthy - desiredHealthy
	if expectedCount <= 0 || disruptionsAllowed <= 0 {
		disruptionsAllowed = 0
	}
	st := pdb.Status
	if st.CurrentHealthy == currentHealthy && st.DesiredHealthy == desiredHealthy && st.ExpectedPods == expectedCount &&
		st.DisruptionsAllowed == disruptionsAllowed && equalDisruptedPods(st.DisruptedPods, disruptedPods) &&
		st.ObservedGeneration == pdb.Generation && conditionsAreUpToDate(pdb) {
		return nil
	}
	newPdb := metav1.DeepCopy(pdb)
	newPdb.Status = policyv1.PodDisruptionBudgetStatus{
		CurrentHealthy:     currentHealthy,
		DesiredHealthy:     desiredHealthy,
		ExpectedPods:       expectedCount,
		DisruptionsAllowed: disruptionsAllowed,
		DisruptedPods:      disruptedPods,
		ObservedGeneration: pdb.Generation,
		Conditions:         newPdb.Status.Conditions,
	}
	updateDisruptionAllowedCondition(newPdb, dc.clock.Now())
	_, err := rest.UpdateStatus(ctx, dc.client, newPdb)
	return err
}

// equalDisruptedPods compares as upstream's semantic equality does: a nil
// and an empty map are equal.
func equalDisruptedPods(a, b map[string]metav1.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !v.Equal(w.Time) {
			return false
		}
	}
	return true
}
