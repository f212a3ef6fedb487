package job

import (
	"context"
	"encoding/json"
	"fmt"
	"kubik/ch04-controllers/record"
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

// Messages of the conditions, as upstream.
const (
	msgBackoffLimitExceeded = "Job has reached the specified backoff limit"
	msgDeadlineExceeded     = "Job was active longer than specified deadline"
	msgCompletionsReached   = "Reached expected number of succeeded pods"
)

// syncJob reconciles one Job (see the package comment). It returns how long
// to wait before looking again when time alone will change something (a
// back-off ends, a deadline passes). Upstream: Controller.syncJob.
func (c *JobController) syncJob(ctx context.Context, key string) (time.Duration, error) {
	ns, name := cache.SplitMetaNamespaceKey(key)
	cached, ok := c.jobs.GetStore().Get(ns, name)
	if !ok {
		// Deleted: let its pods go (orphan pods would otherwise keep the finalizer forever).
		return 0, c.removeOrphanFinalizers(ctx, key)
	}
	if m := cached.Spec.ManagedBy; m != nil && *m != JobControllerManagedBy {
		return 0, nil // another controller syncs this Job
	}
	job := metav1.DeepCopy(cached)
	pods := c.pods.GetStore().ByIndex(indexByControllerUID, string(job.UID))
	if isJobFinished(job) {
		return 0, c.removeTrackingFinalizers(ctx, key, job, pods)
	}
	if !c.expectations.SatisfiedExpectations(key) || !c.finalizersSatisfied(key) {
		return 0, nil // our last actions are not in the cache yet; their events requeue us
	}
	pods, err := c.getPodsForJob(ctx, job)
	if err != nil {
		return 0, err
	}

	now := c.clock.Now()
	st := &job.Status
	suspended := job.Spec.Suspend != nil && *job.Spec.Suspend
	if st.StartTime == nil && !suspended {
		t := metav1.NewTime(now)
		st.StartTime = &t
	}
	jc := &syncJobCtx{job: job, pods: pods, now: now}
	jc.countPods()

	var requeue time.Duration
	// Is the Job over? An interim condition already written decides.
	if cond := findCondition(st.Conditions, batchv1.JobFailureTarget); cond != nil && cond.Status == corev1.ConditionTrue {
		jc.finished = cond
	} else if cond := findCondition(st.Conditions, batchv1.JobSuccessCriteriaMet); cond != nil && cond.Status == corev1.ConditionTrue {
		jc.finished = cond
	}
	if jc.finished == nil {
		failed := st.Failed + int32(len(jc.uncountedFailed())) + int32(len(jc.newFailed))
		hasNewFailure := len(jc.newFailed) > 0
		if hasNewFailure && int32(len(jc.active)) != parallelism(job) && failed > backoffLimit(job) {
			jc.finished = newCondition(batchv1.JobFailureTarget, batchv1.JobReasonBackoffLimitExceeded, msgBackoffLimitExceeded, now)
		} else if d := job.Spec.ActiveDeadlineSeconds; d != nil && st.StartTime != nil && !suspended {
			left := time.Duration(*d)*time.Second - now.Sub(st.StartTime.Time)
			if left <= 0 {
				jc.finished = newCondition(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded, msgDeadlineExceeded, now)
			} else {
				requeue = left
			}
		}
	}

	var errs []error
	switch {
	case jc.finished != nil && jc.finished.Type == batchv1.JobFailureTarget:
		// Failing: no pod may keep running.
		errs = append(errs, c.deleteActivePods(ctx, key, jc))
	case suspended:
		errs = append(errs, c.deleteActivePods(ctx, key, jc))
		c.setSuspended(jc, true)
	default:
		c.setSuspended(jc, false)
		wait, err := c.manageJob(ctx, key, jc)
		errs = append(errs, err)
		if wait > 0 && (requeue == 0 || wait < requeue) {
			requeue = wait
		}
		if jc.finished == nil && jc.complete() {
			jc.finished = newCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonCompletionsReached, msgCompletionsReached, now)
		}
	}
	if err := c.trackJobStatusAndRemoveFinalizers(ctx, key, cached, jc); err != nil {
		errs = append(errs, err)
	}
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return requeue, nil
}

// syncJobCtx is what one sync knows about a Job. Upstream: syncJobCtx.
type syncJobCtx struct {
	job  *batchv1.Job
	pods []*corev1.Pod
	now  time.Time

	active      []*corev1.Pod // not finished, not being deleted
	terminating int32         // being deleted, not finished
	ready       int32
	// Finished pods that still carry the finalizer and are not yet in
	// status.uncountedTerminatedPods.
	newSucceeded, newFailed []*corev1.Pod
	finished                *batchv1.JobCondition // the interim or terminal condition decided, if any
	deleted                 int32                 // active pods deleted in this sync
}

func (jc *syncJobCtx) uncountedSucceeded() []string {
	if u := jc.job.Status.UncountedTerminatedPods; u != nil {
		return u.Succeeded
	}
	return nil
}

func (jc *syncJobCtx) uncountedFailed() []string {
	if u := jc.job.Status.UncountedTerminatedPods; u != nil {
		return u.Failed
	}
	return nil
}

func (jc *syncJobCtx) countPods() {
	for _, p := range jc.pods {
		terminal := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		switch {
		case !terminal && p.DeletionTimestamp == nil:
			jc.active = append(jc.active, p)
			if controller.IsPodReady(p) {
				jc.ready++
			}
		case !terminal:
			jc.terminating++
		}
		if !hasJobTrackingFinalizer(p) {
			continue
		}
		uid := string(p.UID)
		switch {
		case p.Status.Phase == corev1.PodSucceeded:
			if !slices.Contains(jc.uncountedSucceeded(), uid) && !slices.Contains(jc.uncountedFailed(), uid) {
				jc.newSucceeded = append(jc.newSucceeded, p)
			}
		case isPodFailed(p):
			if !slices.Contains(jc.uncountedFailed(), uid) {
				jc.newFailed = append(jc.newFailed, p)
			}
		}
	}
}

// isPodFailed: Failed, or deleted before it could succeed (an orphan or
// evicted pod never reaches Failed). Upstream: isPodFailed.
func isPodFailed(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || (p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded)
}

// succeeded counts every success, counted or not yet.
func (jc *syncJobCtx) succeeded() int32 {
	if isIndexedJob(jc.job) {
		return int32(len(jc.succeededIndexes()))
	}
	return jc.job.Status.Succeeded + int32(len(jc.uncountedSucceeded())) + int32(len(jc.newSucceeded))
}

// complete: enough pods succeeded and none runs. With no completions set,
// one success ends the Job once the others have stopped.
func (jc *syncJobCtx) complete() bool {
	active := int32(len(jc.active)) - jc.deleted
	if c := jc.job.Spec.Completions; c != nil {
		return jc.succeeded() >= *c && active == 0
	}
	return jc.succeeded() > 0 && active == 0
}

// manageJob creates or deletes pods so that the wanted number is active.
// Upstream: Controller.manageJob (NonIndexed).
func (c *JobController) manageJob(ctx context.Context, key string, jc *syncJobCtx) (time.Duration, error) {
	job := jc.job
	active := int32(len(jc.active))
	succeeded := jc.succeeded()
	want := parallelism(job)
	if comp := job.Spec.Completions; comp != nil {
		want = min(want, max(*comp-succeeded, 0))
	} else if succeeded > 0 {
		want = min(active, want) // one success: no new pods, let the others finish
	}
	ref := record.RefFor(&job.ObjectMeta, "batch/v1", "Job")
	switch {
	case active > want:
		// Delete the pods that are least far along first.
		victims := slices.Clone(jc.active)
		sort.Sort(controller.ActivePods(victims))
		victims = victims[:min(int(active-want), MaxPodCreateDeletePerSync)]
		c.expectations.ExpectDeletions(key, len(victims))
		var firstErr error
		for _, p := range victims {
			if err := c.podCtl.DeletePod(ctx, p.Namespace, p.Name, ref); err != nil {
				c.expectations.DeletionObserved(key)
				if !rest.IsNotFound(err) && firstErr == nil {
					firstErr = err
				}
				continue
			}
			jc.deleted++
		}
		return 0, firstErr
	case active < want:
		if wait := newBackoffRecord(jc.pods).getRemainingTime(jc.now, DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff); wait > 0 {
			return wait, nil
		}
		diff := min(int(want-active), MaxPodCreateDeletePerSync)
		tmpl := metav1.DeepCopy(&job.Spec.Template)
		if !slices.Contains(tmpl.Finalizers, batchv1.JobTrackingFinalizer) {
			tmpl.Finalizers = append(tmpl.Finalizers, batchv1.JobTrackingFinalizer)
		}
		ownerRef := controller.NewControllerRef(&job.ObjectMeta, "batch/v1", "Job")
		if isIndexedJob(job) {
			return 0, c.createIndexedPods(ctx, key, jc, tmpl, &ownerRef, jc.indexesToCreate(diff))
		}
		c.expectations.ExpectCreations(key, diff)
		for range diff {
			p, err := c.podCtl.CreatePods(ctx, job.Namespace, tmpl, ref, &ownerRef)
			if err != nil {
				c.expectations.CreationObserved(key) // never to be seen
				return 0, err
			}
			jc.active = append(jc.active, p)
		}
	}
	return 0, nil
}

// deleteActivePods deletes every running pod of a failing or suspended Job.
func (c *JobController) deleteActivePods(ctx context.Context, key string, jc *syncJobCtx) error {
	if len(jc.active) == 0 {
		return nil
	}
	ref := record.RefFor(&jc.job.ObjectMeta, "batch/v1", "Job")
	c.expectations.ExpectDeletions(key, len(jc.active))
	var firstErr error
	for _, p := range jc.active {
		if err := c.podCtl.DeletePod(ctx, p.Namespace, p.Name, ref); err != nil {
			c.expectations.DeletionObserved(key)
			if !rest.IsNotFound(err) && firstErr == nil {
				firstErr = err
			}
			continue
		}
		jc.deleted++
	}
	return firstErr
}

// setSuspended keeps the Suspended condition in step with spec.suspend.
func (c *JobController) setSuspended(jc *syncJobCtx, suspended bool) {
	st := &jc.job.Status
	cond := findCondition(st.Conditions, batchv1.JobSuspended)
	ref := record.RefFor(&jc.job.ObjectMeta, "batch/v1", "Job")
	switch {
	case suspended && (cond == nil || cond.Status != corev1.ConditionTrue):
		// StartTime stays: upstream clears it only behind the alpha gate
		// MutableSchedulingDirectivesForSuspendedJobs (off in v1.35), so
		// kubectl get job keeps printing a DURATION for a suspended Job.
		st.Conditions = setCondition(st.Conditions, *newCondition(batchv1.JobSuspended, "JobSuspended", "Job suspended", jc.now))
		c.recorder.Eventf(ref, corev1.EventTypeNormal, "Suspended", "Job suspended")
	case !suspended && cond != nil && cond.Status == corev1.ConditionTrue:
		resumed := newCondition(batchv1.JobSuspended, "JobResumed", "Job resumed", jc.now)
		resumed.Status = corev1.ConditionFalse
		st.Conditions = setCondition(st.Conditions, *resumed)
		// A resumed Job starts its activeDeadlineSeconds afresh: the time
		// it was suspended does not count.
		t := metav1.NewTime(jc.now)
		st.StartTime = &t
		c.recorder.Eventf(ref, corev1.EventTypeNormal, "Resumed", "Job resumed")
	}
}

// trackJobStatusAndRemoveFinalizers writes the status in the order that
// loses no pod (see the package comment): new UIDs into
// uncountedTerminatedPods (with the interim condition, if any), finalizers
// off, UIDs into the counters, and the terminal condition once nothing
// runs. Upstream: trackJobStatusAndRemoveFinalizers.
func (c *JobController) trackJobStatusAndRemoveFinalizers(ctx context.Context, key string, orig *batchv1.Job, jc *syncJobCtx) error {
	job := jc.job
	st := &job.Status
	st.Active = int32(len(jc.active)) - jc.deleted
	st.Ready = &jc.ready
	term := jc.terminating + jc.deleted
	st.Terminating = &term
	failing := jc.finished != nil && (jc.finished.Type == batchv1.JobFailureTarget || jc.finished.Type == batchv1.JobFailed)

	// 1. Which pods lose their finalizer, and which UIDs are new.
	u := st.UncountedTerminatedPods
	if u == nil {
		u = &batchv1.UncountedTerminatedPods{}
	}
	var release []*corev1.Pod
	needsFlush := false
	for _, p := range jc.pods {
		if !hasJobTrackingFinalizer(p) {
			continue
		}
		uid := string(p.UID)
		terminal := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		if terminal || isPodFailed(p) || jc.finished != nil {
			release = append(release, p)
		}
		switch {
		case p.Status.Phase == corev1.PodSucceeded:
			if !slices.Contains(u.Succeeded, uid) && !slices.Contains(u.Failed, uid) {
				u.Succeeded = append(u.Succeeded, uid)
				needsFlush = true
			}
		case isPodFailed(p) || failing:
			// A failing Job's pods that have not succeeded count as failed.
			if !slices.Contains(u.Failed, uid) {
				u.Failed = append(u.Failed, uid)
				needsFlush = true
			}
		}
	}
	st.UncountedTerminatedPods = u
	// The interim condition is written with the UIDs, before any finalizer goes.
	if jc.finished != nil && findCondition(st.Conditions, jc.finished.Type) == nil {
		st.Conditions = append(st.Conditions, *jc.finished)
		needsFlush = true
	}
	if needsFlush {
		updated, err := c.updateStatus(ctx, job)
		if err != nil {
			return err
		}
		job.ResourceVersion = updated.ResourceVersion
	}

	// 2. Finalizers off.
	removed := map[string]bool{}
	var firstErr error
	for _, p := range release {
		c.expectFinalizerRemovals(key, []string{string(p.UID)})
		if err := removeTrackingFinalizer(ctx, c.client, p); err != nil && !rest.IsNotFound(err) {
			c.finalizerRemovalObserved(key, string(p.UID))
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		removed[string(p.UID)] = true
	}

	// 3. Counted: the UIDs whose pods no longer hold the finalizer.
	holds := map[string]bool{}
	for _, p := range jc.pods {
		if hasJobTrackingFinalizer(p) && !removed[string(p.UID)] {
			holds[string(p.UID)] = true
		}
	}
	move := func(uids []string, counter *int32) []string {
		var keep []string
		for _, uid := range uids {
			if holds[uid] {
				keep = append(keep, uid)
			} else {
				*counter++
			}
		}
		return keep
	}
	u.Succeeded = move(u.Succeeded, &st.Succeeded)
	u.Failed = move(u.Failed, &st.Failed)
	if isIndexedJob(job) {
		// Succeeded counts indexes, not pods: the counted succeeded pods' indexes.
		done := parseIndexesFromString(st.CompletedIndexes, int(*job.Spec.Completions))
		for _, p := range jc.pods {
			if ix := getCompletionIndex(p); p.Status.Phase == corev1.PodSucceeded && !holds[string(p.UID)] &&
				ix != unknownCompletionIndex && ix < int(*job.Spec.Completions) {
				done[ix] = true
			}
		}
		st.CompletedIndexes = formatIndexes(done)
		st.Succeeded = int32(len(done))
	}

	// 4. The terminal condition, once every pod is counted and none runs.
	var finishedNow *batchv1.JobCondition
	if jc.finished != nil && len(u.Succeeded)+len(u.Failed) == 0 && term == 0 {
		final := *jc.finished
		final.LastProbeTime, final.LastTransitionTime = metav1.NewTime(jc.now), metav1.NewTime(jc.now)
		if final.Type == batchv1.JobFailureTarget {
			final.Type = batchv1.JobFailed
		} else {
			final.Type = batchv1.JobComplete
			t := metav1.NewTime(jc.now)
			st.CompletionTime = &t
		}
		if findCondition(st.Conditions, final.Type) == nil {
			st.Conditions = append(st.Conditions, final)
			finishedNow = &final
		}
	}
	if !statusEqual(&orig.Status, st) {
		if _, err := c.updateStatus(ctx, job); err != nil {
			return err
		}
		if finishedNow != nil {
			ref := record.RefFor(&job.ObjectMeta, "batch/v1", "Job")
			if finishedNow.Type == batchv1.JobComplete {
				c.recorder.Eventf(ref, corev1.EventTypeNormal, "Completed", "Job completed")
			} else {
				c.recorder.Eventf(ref, corev1.EventTypeWarning, finishedNow.Reason, "%s", finishedNow.Message)
			}
		}
	}
	return firstErr
}

func (c *JobController) updateStatus(ctx context.Context, job *batchv1.Job) (*batchv1.Job, error) {
	return rest.UpdateStatus(ctx, c.client, job)
}

// removeTrackingFinalizers lets the pods of a finished Job go.
func (c *JobController) removeTrackingFinalizers(ctx context.Context, key string, _ *batchv1.Job, pods []*corev1.Pod) error {
	var firstErr error
	for _, p := range pods {
		if !hasJobTrackingFinalizer(p) {
			continue
		}
		c.expectFinalizerRemovals(key, []string{string(p.UID)})
		if err := removeTrackingFinalizer(ctx, c.client, p); err != nil && !rest.IsNotFound(err) {
			c.finalizerRemovalObserved(key, string(p.UID))
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	return firstErr
}

// removeOrphanFinalizers lets go the pods of a deleted Job.
func (c *JobController) removeOrphanFinalizers(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	var orphans []*corev1.Pod
	for _, p := range c.pods.GetStore().List() {
		if p.Namespace == ns && hasJobTrackingFinalizer(p) {
			if ref := metav1.GetControllerOf(&p.ObjectMeta); ref != nil && ref.Kind == "Job" && ref.Name == name {
				orphans = append(orphans, p)
			}
		}
	}
	return c.removeTrackingFinalizers(ctx, key, nil, orphans)
}

// removeTrackingFinalizer patches the finalizer away, guarded by the pod's
// UID. Upstream: removeTrackingFinalizerPatch (a strategic merge patch).
func removeTrackingFinalizer(ctx context.Context, c *rest.Client, p *corev1.Pod) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"$deleteFromPrimitiveList/finalizers": []string{batchv1.JobTrackingFinalizer},
		"uid":                                 p.UID,
	}})
	_, err := rest.Patch[corev1.Pod](ctx, c, p.Namespace, p.Name, rest.StrategicMergePatchType, patch, "")
	return err
}

func hasJobTrackingFinalizer(p *corev1.Pod) bool {
	return slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer)
}

func isJobFinished(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func findCondition(conds []batchv1.JobCondition, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

func setCondition(conds []batchv1.JobCondition, c batchv1.JobCondition) []batchv1.JobCondition {
	if old := findCondition(conds, c.Type); old != nil {
		*old = c
		return conds
	}
	return append(conds, c)
}

func newCondition(t batchv1.JobConditionType, reason, message string, now time.Time) *batchv1.JobCondition {
	n := metav1.NewTime(now)
	return &batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message,
		LastProbeTime: n, LastTransitionTime: n}
}

func parallelism(j *batchv1.Job) int32 {
	if j.Spec.Parallelism != nil {
		return *j.Spec.Parallelism
	}
	return 1
}

func backoffLimit(j *batchv1.Job) int32 {
	if j.Spec.BackoffLimit != nil {
		return *j.Spec.BackoffLimit
	}
	return 6
}

func statusEqual(a, b *batchv1.JobStatus) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// createIndexedPods creates the pods of the given indexes, named
// "<job>-<index>-xxxxx". Upstream: manageJob with podGenerateNameWithIndex.
func (c *JobController) createIndexedPods(ctx context.Context, key string, jc *syncJobCtx, tmpl *corev1.PodTemplateSpec, ownerRef *metav1.OwnerReference, indexes []int) error {
	job := jc.job
	ref := record.RefFor(&job.ObjectMeta, "batch/v1", "Job")
	c.expectations.ExpectCreations(key, len(indexes))
	for _, ix := range indexes {
		parent := &metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", job.Name, ix), Namespace: job.Namespace}
		pod, err := controller.GetPodFromTemplate(indexedPodTemplate(job, tmpl, ix), parent, ownerRef)
		if err == nil {
			pod, err = rest.Create(ctx, c.client, pod)
		}
		if err != nil {
			c.expectations.CreationObserved(key)
			c.recorder.Eventf(ref, corev1.EventTypeWarning, controller.FailedCreatePodReason, "Error creating: %v", err)
			return err
		}
		c.recorder.Eventf(ref, corev1.EventTypeNormal, controller.SuccessfulCreatePodReason, "Created pod: %v", pod.Name)
		jc.active = append(jc.active, pod)
	}
	return nil
}
