// Package job is the Job controller of kube-controller-manager: it runs a
// Job's pods to completion.
//
// The loop, in plain words. Every change of a Job or of one of its pods puts
// the Job's key in a work queue; a worker takes the key and syncJob makes
// the world match the Job:
//
//  1. Claim the Job's pods (claim.go): those whose controller
//     ownerReference is the Job, after adopting the orphans its selector
//     matches and releasing those it no longer matches; count them: active,
//     ready, terminating, and the newly finished ones.
//  2. Decide whether the Job is over: too many failures (backoffLimit), too
//     long active (activeDeadlineSeconds), or enough successes
//     (completions). As upstream since 1.31 an interim condition comes first
//     (FailureTarget or SuccessCriteriaMet); the terminal one (Failed or
//     Complete) is written only once no pod of the Job is left running.
//  3. Otherwise create or delete pods so that min(parallelism, completions
//     left) run — after an exponential back-off once pods have failed (10 s,
//     20 s, 40 s ... at most 10 min).
//  4. Account for finished pods without losing any: every pod carries the
//     finalizer batch.kubernetes.io/job-tracking, so it cannot vanish before
//     it is counted. A finished pod's UID is first written to
//     status.uncountedTerminatedPods, then the finalizer is removed, then
//     the UID moves into status.succeeded/failed. A crash between any two
//     steps loses nothing and counts nothing twice.
//
// Upstream: pkg/controller/job (job_controller.go, tracking_utils.go,
// backoff_utils.go).
package job

import (
	"context"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
	"log/slog"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

const (
	// ControllerName is upstream's name in --controllers and in events.
	ControllerName = "job-controller"
	// JobControllerManagedBy is the spec.managedBy value of Jobs this
	// controller syncs (also when spec.managedBy is unset).
	JobControllerManagedBy = "kubernetes.io/job-controller"
)

var (
	// DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff bound the
	// delay before a failed pod is replaced. Upstream: the same names.
	DefaultJobPodFailureBackOff = 10 * time.Second
	MaxJobPodFailureBackOff     = 10 * time.Minute
	// MaxPodCreateDeletePerSync caps the pods created or deleted in one sync.
	MaxPodCreateDeletePerSync = 500
)

// indexByControllerUID indexes pods by the UID of their controller.
const indexByControllerUID = "job-controller/controllerUID"

// JobController is the Job controller. Upstream: job.Controller.
type JobController struct {
	client   *rest.Client
	jobs     *cache.Informer[batchv1.Job, *batchv1.Job]
	pods     *cache.Informer[corev1.Pod, *corev1.Pod]
	queue    *workqueue.RateLimitingQueue[string]
	recorder *record.Recorder
	podCtl   controller.PodControl
	clock    workqueue.Clock
	log      *slog.Logger

	// expectations: pod creations and deletions not yet seen by the informer.
	expectations *controller.ControllerExpectations
	// finalizerExpectations: pods (UIDs) whose tracking finalizer this
	// controller removed and whose update the informer has not shown yet.
	// Upstream: uidTrackingExpectations.
	mu                    sync.Mutex
	finalizerExpectations map[string]map[string]bool // job key -> pod UIDs
}

// NewJobController asks for the Job and Pod informers and registers its
// handlers. Upstream: job.NewController.
func NewJobController(cc *controller.ControllerContext) (*JobController, error) {
	return newJobController(cc, workqueue.RealClock{}), nil
}

func newJobController(cc *controller.ControllerContext, clock workqueue.Clock) *JobController {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", ControllerName)
	rec := record.NewRecorder(cc.Client, ControllerName, log)
	c := &JobController{
		client: cc.Client, recorder: rec, podCtl: controller.PodControl{Client: cc.Client, Recorder: rec},
		jobs:  controller.InformerFor[batchv1.Job](cc.Informers),
		pods:  controller.InformerFor[corev1.Pod](cc.Informers),
		queue: workqueue.NewRateLimitingWithClock(workqueue.DefaultControllerRateLimiter[string](), clock),
		clock: clock, log: log,
		expectations:          controller.NewControllerExpectations(),
		finalizerExpectations: map[string]map[string]bool{},
	}
	c.pods.AddIndexers(cache.Indexers[corev1.Pod]{indexByControllerUID: func(p *corev1.Pod) []string {
		if ref := metav1.GetControllerOf(&p.ObjectMeta); ref != nil && ref.Kind == "Job" {
			return []string{string(ref.UID)}
		}
		return nil
	}})
	cache.AddNamespaceIndex(c.jobs)
	cache.AddNamespaceIndex(c.pods)
	c.jobs.AddEventHandler(cache.ResourceEventHandlerFuncs[batchv1.Job]{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, j *batchv1.Job) { c.enqueue(j) },
		DeleteFunc: func(j *batchv1.Job) {
			key := cache.MetaNamespaceKeyFunc(j)
			c.expectations.DeleteExpectations(key)
			c.enqueue(j) // its pods still need their finalizers removed
		},
	})
	c.pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc:    c.addPod,
		UpdateFunc: c.updatePod,
		DeleteFunc: c.deletePod,
	})
	return c
}

func (c *JobController) enqueue(j *batchv1.Job) { c.queue.Add(cache.MetaNamespaceKeyFunc(j)) }

// jobKeyOf returns the key of the Job controlling p, or "".
func jobKeyOf(p *corev1.Pod) string {
	ref := metav1.GetControllerOf(&p.ObjectMeta)
	if ref == nil || ref.Kind != "Job" {
		return ""
	}
	return p.Namespace + "/" + ref.Name
}

func (c *JobController) addPod(p *corev1.Pod) {
	key := jobKeyOf(p)
	if key == "" {
		if metav1.GetControllerOf(&p.ObjectMeta) == nil && p.DeletionTimestamp == nil {
			c.enqueueOrphanCandidates(p)
		}
		return
	}
	c.expectations.CreationObserved(key)
	c.queue.Add(key)
}

func (c *JobController) updatePod(old, p *corev1.Pod) {
	key := jobKeyOf(p)
	if oldKey := jobKeyOf(old); oldKey != "" && oldKey != key {
		c.queue.Add(oldKey) // released (or given to another controller)
	}
	if key == "" {
		if metav1.GetControllerOf(&p.ObjectMeta) == nil && (labelsChanged(old, p) || jobKeyOf(old) != "") {
			c.enqueueOrphanCandidates(p)
		}
		return
	}

	if old.DeletionTimestamp == nil && p.DeletionTimestamp != nil {
		c.expectations.DeletionObserved(key)
	}
	if !hasJobTrackingFinalizer(p) {
		c.finalizerRemovalObserved(key, string(p.UID))
	}
	c.queue.Add(key)
}

func (c *JobController) deletePod(p *corev1.Pod) {
	key := jobKeyOf(p)
	if key == "" {
		return
	}
	if p.DeletionTimestamp == nil {
		c.expectations.DeletionObserved(key)
	}
	c.finalizerRemovalObserved(key, string(p.UID))
	c.queue.Add(key)
}

func (c *JobController) expectFinalizerRemovals(key string, uids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finalizerExpectations[key] == nil {
		c.finalizerExpectations[key] = map[string]bool{}
	}
	for _, u := range uids {
		c.finalizerExpectations[key][u] = true
	}
}

func (c *JobController) finalizerRemovalObserved(key, uid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.finalizerExpectations[key], uid)
	if len(c.finalizerExpectations[key]) == 0 {
		delete(c.finalizerExpectations, key)
	}
}

func (c *JobController) finalizersSatisfied(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.finalizerExpectations[key]) == 0
}

// Run waits for the caches and runs workers until ctx ends.
func (c *JobController) Run(ctx context.Context, workers int) {
	go c.recorder.Run(ctx)
	c.log.Info("starting job controller")
	worker.RunWorkers(ctx, c.queue, workers, c.processNextWorkItem, c.jobs.HasSynced, c.pods.HasSynced)
}

func (c *JobController) processNextWorkItem(ctx context.Context) bool {
	return worker.ProcessNextWorkItem(ctx, c.queue, c.syncJob, c.log, "job")
}
