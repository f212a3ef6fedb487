package job

import (
	"context"
	"maps"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
)

// getPodsForJob claims the Job's pods among its namespace's: it adopts the
// orphans its selector matches (adding the ownerReference and the tracking
// finalizer) and releases the pods it owns that no longer match (removing
// both). Upstream: Controller.getPodsForJob with a PodControllerRefManager.
func (c *JobController) getPodsForJob(ctx context.Context, job *batchv1.Job) ([]*corev1.Pod, error) {
	selector, err := selection.FromLabelSelector(job.Spec.Selector)
	if err != nil {
		return nil, err
	}
	m := &controller.ControllerRefManager[corev1.Pod, *corev1.Pod]{
		Client: c.client, Controller: &job.ObjectMeta, APIVersion: "batch/v1", Kind: "Job", Selector: selector,
		Finalizers: []string{batchv1.JobTrackingFinalizer},
		CanAdoptFunc: controller.RecheckDeletionTimestamp(func(ctx context.Context) (*metav1.ObjectMeta, error) {
			fresh, err := rest.Get[batchv1.Job](ctx, c.client, job.Namespace, job.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		}, job.UID),
	}
	pods, err := m.Claim(ctx, c.pods.GetStore().ByIndex(cache.NamespaceIndex, job.Namespace))
	// An adopted pod has the finalizer now, not yet in the cache's copy.
	for i, p := range pods {
		if metav1.GetControllerOf(&p.ObjectMeta) == nil && !hasJobTrackingFinalizer(p) {
			adopted := metav1.DeepCopy(p)
			adopted.Finalizers = append(adopted.Finalizers, batchv1.JobTrackingFinalizer)
			pods[i] = adopted
		}
	}
	return pods, err
}

// getPodJobs are the Jobs of the pod's namespace whose selector matches
// it: the ones that may adopt an orphan. Upstream: jobLister.GetPodJobs.
func (c *JobController) getPodJobs(p *corev1.Pod) []*batchv1.Job {
	var out []*batchv1.Job
	for _, j := range c.jobs.GetStore().ByIndex(cache.NamespaceIndex, p.Namespace) {
		sel, err := selection.FromLabelSelector(j.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(p.Labels) {
			continue
		}
		out = append(out, j)
	}
	return out
}

// enqueueOrphanCandidates puts in the queue the Jobs that may adopt an
// orphan pod.
func (c *JobController) enqueueOrphanCandidates(p *corev1.Pod) {
	for _, j := range c.getPodJobs(p) {
		c.enqueue(j)
	}
}

func labelsChanged(old, cur *corev1.Pod) bool { return !maps.Equal(old.Labels, cur.Labels) }
