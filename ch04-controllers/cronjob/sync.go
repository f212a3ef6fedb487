package cronjob

import (
	"context"
	"encoding/json"
	"fmt"
	"kubik/ch04-controllers/record"
	"maps"
	"slices"
	"sort"
	"time"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
)

// CronJobScheduledTimestampAnnotation is put on each Job: the time it was
// scheduled for, in the CronJob's time zone. Upstream: batch/v1's constant.
const CronJobScheduledTimestampAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"

// sync is syncCronJob plus the status write. It returns when to look again.
func (c *CronJobController) sync(ctx context.Context, key string) (*time.Duration, error) {
	ns, name := cache.SplitMetaNamespaceKey(key)
	cached, ok := c.cronJobs.GetStore().Get(ns, name)
	if !ok {
		return nil, nil
	}
	cj := metav1.DeepCopy(cached)
	jobs := c.jobs.GetStore().ByIndex(indexByControllerUID, string(cj.UID))
	requeue, err := c.syncCronJob(ctx, cj, jobs)
	if err != nil {
		return nil, err
	}
	if !statusEqual(&cached.Status, &cj.Status) {
		if _, err := rest.UpdateStatus(ctx, c.client, cj); err != nil {
			return nil, err
		}
	}
	if err := c.cleanupFinishedJobs(ctx, cj, jobs); err != nil {
		return nil, err
	}
	return requeue, nil
}

func (c *CronJobController) ref(cj *batchv1.CronJob) record.ObjectRef {
	return record.RefFor(&cj.ObjectMeta, "batch/v1", "CronJob")
}

// syncCronJob changes cj.Status and creates or deletes Jobs. Upstream:
// ControllerV2.syncCronJob.
func (c *CronJobController) syncCronJob(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) (*time.Duration, error) {
	now := c.clock.Now()
	// 1. status.active against the Jobs that exist.
	childByUID := map[string]*batchv1.Job{}
	for _, j := range jobs {
		childByUID[string(j.UID)] = j
		finished, cond := isJobFinished(j)
		inActive := slices.ContainsFunc(cj.Status.Active, func(r corev1.ObjectReference) bool { return r.UID == j.UID })
		switch {
		case !finished && !inActive && cj.Status.LastScheduleTime != nil && j.CreationTimestamp.After(cj.Status.LastScheduleTime.Time.Add(-time.Second)):
			// Created by us, the status write lost: take it back in.
			cj.Status.Active = append(cj.Status.Active, jobRef(j))
		case finished && inActive:
			cj.Status.Active = slices.DeleteFunc(cj.Status.Active, func(r corev1.ObjectReference) bool { return r.UID == j.UID })
			c.recorder.Eventf(c.ref(cj), corev1.EventTypeNormal, "SawCompletedJob", "Saw completed job: %s, condition: %v", j.Name, cond)
		}
		if finished && cond == batchv1.JobComplete {
			if ct := j.Status.CompletionTime; ct != nil && (cj.Status.LastSuccessfulTime == nil || ct.After(cj.Status.LastSuccessfulTime.Time)) {
				t := *ct
				cj.Status.LastSuccessfulTime = &t
			}
		}
	}
	// A Job in the list that no longer exists (deleted by someone).
	cj.Status.Active = slices.DeleteFunc(cj.Status.Active, func(r corev1.ObjectReference) bool {
		if _, ok := childByUID[string(r.UID)]; ok {
			return false
		}
		_, err := rest.Get[batchv1.Job](ctx, c.client, r.Namespace, r.Name)
		if rest.IsNotFound(err) {
			c.recorder.Eventf(c.ref(cj), corev1.EventTypeNormal, "MissingJob", "Active job went missing: %v", r.Name)
			return true
		}
		return false
	})

	if cj.DeletionTimestamp != nil || (cj.Spec.Suspend != nil && *cj.Spec.Suspend) {
		return nil, nil
	}
	loc := time.Local
	if tz := cj.Spec.TimeZone; tz != nil {
		l, err := time.LoadLocation(*tz)
		if err != nil {
			c.recorder.Eventf(c.ref(cj), corev1.EventTypeWarning, "UnknownTimeZone", "invalid timeZone: %q: %s", *tz, err)
			return nil, nil
		}
		loc = l
	}
	sched, err := ParseStandard(cj.Spec.Schedule)
	if err != nil {
		c.recorder.Eventf(c.ref(cj), corev1.EventTypeWarning, "UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return nil, nil
	}
	now = now.In(loc)

	// 2. The most recent unmet scheduled time.
	scheduledTime, missed := mostRecentScheduleTime(cj, now, sched)
	next := nextScheduleTimeDuration(sched, now)
	if scheduledTime == nil {
		return next, nil
	}
	if missed > 100 {
		c.recorder.Eventf(c.ref(cj), corev1.EventTypeWarning, "TooManyMissedTimes",
			"too many missed start times: %d. Set or decrease .spec.startingDeadlineSeconds or check clock skew", missed)
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && scheduledTime.Add(time.Duration(*d)*time.Second).Before(now) {
		c.recorder.Eventf(c.ref(cj), corev1.EventTypeWarning, "MissSchedule", "Missed scheduled time to start a job: %s",
			scheduledTime.UTC().Format(time.RFC1123Z))
		return next, nil
	}
	jobName := getJobName(cj, *scheduledTime)
	if slices.ContainsFunc(cj.Status.Active, func(r corev1.ObjectReference) bool { return r.Name == jobName }) {
		return next, nil
	}
	// 3. Concurrency.
	switch cj.Spec.ConcurrencyPolicy {
	case batchv1.ForbidConcurrent:
		if len(cj.Status.Active) > 0 {
			c.recorder.Eventf(c.ref(cj), corev1.EventTypeNormal, "JobAlreadyActive",
				"Not starting job because prior execution is running and concurrency policy is Forbid")
			return next, nil
		}
	case batchv1.ReplaceConcurrent:
		for _, r := range cj.Status.Active {
			if err := c.deleteJob(ctx, cj, r.Namespace, r.Name); err != nil {
				return nil, err
			}
		}
		cj.Status.Active = nil
	}
	// 4. The Job.
	job := getJobFromTemplate(cj, jobName, *scheduledTime)
	created, err := rest.Create(ctx, c.client, job)
	switch {
	case rest.IsAlreadyExists(err):
		// Created before (the cache is behind): nothing to do for this time.
		return next, nil
	case err != nil:
		c.recorder.Eventf(c.ref(cj), corev1.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
		return nil, err
	}
	c.log.Info("created job", "cronjob", cj.Namespace+"/"+cj.Name, "job", created.Name)
	c.recorder.Eventf(c.ref(cj), corev1.EventTypeNormal, "SuccessfulCreate", "Created job %v", created.Name)
	cj.Status.Active = append(cj.Status.Active, jobRef(created))
	t := metav1.NewTime(*scheduledTime)
	cj.Status.LastScheduleTime = &t
	return next, nil
}

// mostRecentScheduleTime is the latest scheduled time in (earliest, now],
// where earliest is the last run (or the CronJob's creation), no earlier
// than startingDeadlineSeconds ago; nil if none. missed counts the times in
// that interval. Upstream: utils.go mostRecentScheduleTime.
func mostRecentScheduleTime(cj *batchv1.CronJob, now time.Time, sched *Schedule) (*time.Time, int) {
	earliest := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if s := now.Add(-time.Duration(*d) * time.Second); s.After(earliest) {
			earliest = s
		}
	}
	var last *time.Time
	missed := 0
	for t := sched.Next(earliest.In(now.Location())); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		tt := t
		last = &tt
		missed++
	}
	return last, missed
}

// getJobName is "<cronjob>-<minutes since the epoch>". Upstream:
// getJobName / getTimeHashInMinutes.
func getJobName(cj *batchv1.CronJob, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
}

// getJobFromTemplate is the Job of one run. Upstream: getJobFromTemplate2.
func getJobFromTemplate(cj *batchv1.CronJob, name string, scheduled time.Time) *batchv1.Job {
	tmpl := metav1.DeepCopy(&cj.Spec.JobTemplate)
	annotations := maps.Clone(tmpl.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[CronJobScheduledTimestampAnnotation] = scheduled.Format(time.RFC3339)
	ref := controller.NewControllerRef(&cj.ObjectMeta, "batch/v1", "CronJob")
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: cj.Namespace, Labels: maps.Clone(tmpl.Labels),
			Annotations: annotations, OwnerReferences: []metav1.OwnerReference{ref}},
		Spec: tmpl.Spec,
	}
}

func jobRef(j *batchv1.Job) corev1.ObjectReference {
	return corev1.ObjectReference{Kind: "Job", APIVersion: "batch/v1", Namespace: j.Namespace, Name: j.Name,
		UID: j.UID, ResourceVersion: j.ResourceVersion}
}

func (c *CronJobController) deleteJob(ctx context.Context, cj *batchv1.CronJob, ns, name string) error {
	policy := metav1.DeletePropagationBackground
	err := rest.Delete[batchv1.Job](ctx, c.client, ns, name, &metav1.DeleteOptions{PropagationPolicy: &policy})
	if err != nil && !rest.IsNotFound(err) {
		c.recorder.Eventf(c.ref(cj), corev1.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
		return err
	}
	c.recorder.Eventf(c.ref(cj), corev1.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", name)
	return nil
}

// cleanupFinishedJobs keeps the newest successfulJobsHistoryLimit completed
// and failedJobsHistoryLimit failed Jobs. Upstream: cleanupFinishedJobs.
func (c *CronJobController) cleanupFinishedJobs(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) error {
	if cj.DeletionTimestamp != nil {
		return nil
	}
	var succeeded, failed []*batchv1.Job
	for _, j := range jobs {
		if j.DeletionTimestamp != nil {
			continue
		}
		switch finished, cond := isJobFinished(j); {
		case finished && cond == batchv1.JobComplete:
			succeeded = append(succeeded, j)
		case finished && cond == batchv1.JobFailed:
			failed = append(failed, j)
		}
	}
	for _, l := range []struct {
		jobs  []*batchv1.Job
		limit *int32
	}{{succeeded, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if l.limit == nil || len(l.jobs) <= int(*l.limit) {
			continue
		}
		// Oldest first, by start time (then name).
		sort.Slice(l.jobs, func(i, k int) bool {
			a, b := startTime(l.jobs[i]), startTime(l.jobs[k])
			if a.Equal(b) {
				return l.jobs[i].Name < l.jobs[k].Name
			}
			return a.Before(b)
		})
		for _, j := range l.jobs[:len(l.jobs)-int(*l.limit)] {
			if err := c.deleteJob(ctx, cj, j.Namespace, j.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func startTime(j *batchv1.Job) time.Time {
	if j.Status.StartTime != nil {
		return j.Status.StartTime.Time
	}
	return j.CreationTimestamp.Time
}

func isJobFinished(j *batchv1.Job) (bool, batchv1.JobConditionType) {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true, c.Type
		}
	}
	return false, ""
}

func statusEqual(a, b *batchv1.CronJobStatus) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
