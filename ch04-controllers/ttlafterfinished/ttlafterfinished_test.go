package ttlafterfinished

import (
	"testing"
	"time"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/controllertest"
)

func TestTTLAfterFinished(t *testing.T) {
	env := controllertest.New(t)
	finished := time.Now().Truncate(time.Second)
	clock := workqueue.NewFakeClock(finished)
	c := newController(env.CC, clock)
	env.Start(t)
	ttl := int32(100)
	j, err := rest.Create(env.Ctx, env.Admin, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "done", Namespace: "default"},
		Spec: batchv1.JobSpec{TTLSecondsAfterFinished: &ttl, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "x"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	// Not finished: nothing to do.
	controllertest.Eventually(t, "job in cache", func() bool { _, ok := c.jobs.GetStore().Get("default", "done"); return ok })
	env.ClearActions()
	if after, err := c.processJob(env.Ctx, "default/done"); err != nil || after != 0 {
		t.Fatalf("unfinished: %v %v", after, err)
	}
	now := metav1.NewTime(finished)
	j.Status = batchv1.JobStatus{StartTime: &now, CompletionTime: &now, Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now}}}
	if _, err := rest.UpdateStatus(env.Ctx, env.Admin, j); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "finished job in cache", func() bool {
		x, _ := c.jobs.GetStore().Get("default", "done")
		return len(x.Status.Conditions) == 1
	})
	env.ExpectWrites(t)
	clock.Step(40 * time.Second)
	env.ClearActions()
	if after, err := c.processJob(env.Ctx, "default/done"); err != nil || after != 60*time.Second {
		t.Fatalf("before expiry: requeue after %v (want 60s), %v", after, err)
	}
	env.ExpectWrites(t) // not expired: requeued, nothing written
	clock.Step(60 * time.Second)
	env.ClearActions()
	if _, err := c.processJob(env.Ctx, "default/done"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t, "delete jobs default/done")
	got, err := rest.Get[batchv1.Job](env.Ctx, env.Admin, "default", "done")
	if !rest.IsNotFound(err) && (err != nil || got.DeletionTimestamp == nil) {
		t.Fatalf("expired job not deleted: %v %+v", err, got)
	}
}
