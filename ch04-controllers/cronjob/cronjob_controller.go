// Package cronjob is the CronJob controller of kube-controller-manager: it
// creates a Job each time a CronJob's schedule comes due.
//
// The loop, in plain words. A CronJob's key is queued when the CronJob or
// one of its Jobs changes, and again — by the queue's AddAfter — at the
// CronJob's next scheduled time. syncCronJob then:
//
//  1. reconciles status.active with the Jobs the CronJob owns: a finished
//     Job leaves the list (event SawCompletedJob) and sets
//     lastSuccessfulTime if it completed;
//  2. unless suspended, finds the most recent scheduled time that has no Job
//     yet (mostRecentScheduleTime); too late for startingDeadlineSeconds →
//     skipped (MissSchedule);
//  3. applies concurrencyPolicy: Allow runs side by side, Forbid skips the
//     run while a Job is active (JobAlreadyActive), Replace deletes the
//     active Jobs first;
//  4. creates the Job "<cronjob>-<scheduled time in minutes since the
//     epoch>" — the name makes a second create for the same time fail, so
//     a run is never started twice — and records it in status.active and
//     lastScheduleTime;
//  5. deletes the oldest finished Jobs beyond successfulJobsHistoryLimit and
//     failedJobsHistoryLimit;
//  6. asks to be woken at the next scheduled time.
//
// The clock is injected (workqueue.Clock), so the tests move time by hand.
//
// Upstream: pkg/controller/cronjob (cronjob_controllerv2.go, utils.go).
package cronjob

import (
	"context"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
	"log/slog"
	"time"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// ControllerName is upstream's component name in events.
const ControllerName = "cronjob-controller"

// CronJobController is upstream's ControllerV2.
type CronJobController struct {
	client   *rest.Client
	cronJobs *cache.Informer[batchv1.CronJob, *batchv1.CronJob]
	jobs     *cache.Informer[batchv1.Job, *batchv1.Job]
	queue    *workqueue.RateLimitingQueue[string]
	recorder *record.Recorder
	clock    workqueue.Clock
	log      *slog.Logger
}

// NewCronJobController asks for the CronJob and Job informers. Upstream:
// NewControllerV2.
func NewCronJobController(cc *controller.ControllerContext) (*CronJobController, error) {
	return newController(cc, workqueue.RealClock{}), nil
}

const indexByControllerUID = "cronjob-controller/controllerUID"

func newController(cc *controller.ControllerContext, clock workqueue.Clock) *CronJobController {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", ControllerName)
	c := &CronJobController{client: cc.Client, clock: clock, log: log,
		cronJobs: controller.InformerFor[batchv1.CronJob](cc.Informers),
		jobs:     controller.InformerFor[batchv1.Job](cc.Informers),
		queue:    workqueue.NewRateLimitingWithClock(workqueue.DefaultControllerRateLimiter[string](), clock),
		recorder: record.NewRecorder(cc.Client, ControllerName, log),
	}
	c.jobs.AddIndexers(cache.Indexers[batchv1.Job]{indexByControllerUID: func(j *batchv1.Job) []string {
		if ref := metav1.GetControllerOf(&j.ObjectMeta); ref != nil && ref.Kind == "CronJob" {
			return []string{string(ref.UID)}
		}
		return nil
	}})
	enqueue := func(cj *batchv1.CronJob) { c.queue.Add(cache.MetaNamespaceKeyFunc(cj)) }
	c.cronJobs.AddEventHandler(cache.ResourceEventHandlerFuncs[batchv1.CronJob]{
		AddFunc: enqueue, UpdateFunc: func(_, cj *batchv1.CronJob) { enqueue(cj) }})
	jobChanged := func(j *batchv1.Job) {
		if ref := metav1.GetControllerOf(&j.ObjectMeta); ref != nil && ref.Kind == "CronJob" {
			c.queue.Add(j.Namespace + "/" + ref.Name)
		}
	}
	c.jobs.AddEventHandler(cache.ResourceEventHandlerFuncs[batchv1.Job]{
		AddFunc: jobChanged, UpdateFunc: func(_, j *batchv1.Job) { jobChanged(j) }, DeleteFunc: jobChanged})
	return c
}

// Run waits for the caches and runs workers until ctx ends.
func (c *CronJobController) Run(ctx context.Context, workers int) {
	go c.recorder.Run(ctx)
	worker.RunWorkers(ctx, c.queue, workers, c.processNextWorkItem, c.cronJobs.HasSynced, c.jobs.HasSynced)
}

func (c *CronJobController) processNextWorkItem(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	requeueAfter, err := c.sync(ctx, key)
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn("syncing cronjob failed; retrying", "cronjob", key, "err", err)
		}
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	if requeueAfter != nil {
		c.queue.AddAfter(key, *requeueAfter)
	}
	return true
}

// nextScheduleTimeDuration is how long until the next run after now, plus
// 100ms so that the sync happens after, not just before, the time.
func nextScheduleTimeDuration(sched *Schedule, now time.Time) *time.Duration {
	next := sched.Next(now)
	if next.IsZero() {
		return nil
	}
	d := next.Sub(now) + 100*time.Millisecond
	return &d
}
