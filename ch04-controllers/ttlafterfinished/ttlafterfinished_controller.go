// Package ttlafterfinished deletes finished Jobs once their
// spec.ttlSecondsAfterFinished has passed.
//
// The loop, in plain words: every Job that is added or changes and has a TTL
// and a Complete or Failed condition is queued. The worker computes when
// the Job expires (the condition's lastTransitionTime + TTL); before that it
// puts the key back for the time left. When it is due, it reads the Job
// afresh from the apiserver (the TTL may have been changed meanwhile) and
// deletes it with propagationPolicy Foreground, so its pods go first, and a
// UID precondition, so a new Job of the same name is never touched.
//
// Upstream: pkg/controller/ttlafterfinished/ttlafterfinished_controller.go.
package ttlafterfinished

import (
	"context"
	"kubik/ch04-controllers/worker"
	"log/slog"
	"time"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// ControllerName is upstream's name ("ttl-after-finished" in --controllers).
const ControllerName = "ttl-after-finished-controller"

// TTLAfterFinishedController deletes expired finished Jobs.
type TTLAfterFinishedController struct {
	client *rest.Client
	jobs   *cache.Informer[batchv1.Job, *batchv1.Job]
	queue  *workqueue.RateLimitingQueue[string]
	clock  workqueue.Clock
	log    *slog.Logger
}

// NewTTLAfterFinishedController asks for the Job informer. Upstream: New.
func NewTTLAfterFinishedController(cc *controller.ControllerContext) (*TTLAfterFinishedController, error) {
	return newController(cc, workqueue.RealClock{}), nil
}

func newController(cc *controller.ControllerContext, clock workqueue.Clock) *TTLAfterFinishedController {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &TTLAfterFinishedController{client: cc.Client, jobs: controller.InformerFor[batchv1.Job](cc.Informers),
		queue: workqueue.NewRateLimitingWithClock(workqueue.DefaultControllerRateLimiter[string](), clock),
		clock: clock, log: log.With("controller", ControllerName)}
	enqueue := func(j *batchv1.Job) {
		if j.DeletionTimestamp == nil && needsCleanup(j) {
			c.queue.Add(cache.MetaNamespaceKeyFunc(j))
		}
	}
	c.jobs.AddEventHandler(cache.ResourceEventHandlerFuncs[batchv1.Job]{
		AddFunc: enqueue, UpdateFunc: func(_, j *batchv1.Job) { enqueue(j) }})
	return c
}

// Run waits for the cache and runs workers until ctx ends.
func (c *TTLAfterFinishedController) Run(ctx context.Context, workers int) {
	worker.RunWorkers(ctx, c.queue, workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, c.queue, c.processJob, c.log, "job")
	}, c.jobs.HasSynced)
}

// processJob deletes the Job if it has expired, or says how long to wait.
func (c *TTLAfterFinishedController) processJob(ctx context.Context, key string) (time.Duration, error) {
	ns, name := cache.SplitMetaNamespaceKey(key)
	j, ok := c.jobs.GetStore().Get(ns, name)
	if !ok {
		return 0, nil
	}
	if left, expired := timeLeft(j, c.clock.Now()); !expired {
		return left, nil
	}
	// The cache may be old: check again on the newest Job before deleting.
	fresh, err := rest.Get[batchv1.Job](ctx, c.client, ns, name)
	if rest.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if left, expired := timeLeft(fresh, c.clock.Now()); !expired {
		return left, nil
	}
	policy := metav1.DeletePropagationForeground
	uid := fresh.UID
	c.log.Info("cleaning up job", "job", key)
	err = rest.Delete[batchv1.Job](ctx, c.client, ns, name, &metav1.DeleteOptions{PropagationPolicy: &policy,
		Preconditions: &metav1.Preconditions{UID: &uid}})
	if rest.IsNotFound(err) || rest.IsConflict(err) {
		return 0, nil
	}
	return 0, err
}

func needsCleanup(j *batchv1.Job) bool {
	_, ok := finishTime(j)
	return j.Spec.TTLSecondsAfterFinished != nil && ok
}

// finishTime is when the Job got its Complete or Failed condition.
func finishTime(j *batchv1.Job) (time.Time, bool) {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time, true
		}
	}
	return time.Time{}, false
}

// timeLeft: how long until the Job expires, or expired.
func timeLeft(j *batchv1.Job, now time.Time) (time.Duration, bool) {
	if j.DeletionTimestamp != nil || !needsCleanup(j) {
		return 0, false
	}
	finished, _ := finishTime(j)
	expireAt := finished.Add(time.Duration(*j.Spec.TTLSecondsAfterFinished) * time.Second)
	if left := expireAt.Sub(now); left > 0 {
		return left, false
	}
	return 0, true
}
