package cronjob

import (
	"fmt"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/controllertest"
)

func TestScheduleNext(t *testing.T) {
	utc := func(s string) time.Time {
		tt, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return tt
	}
	for _, tc := range []struct{ spec, from, want string }{
		{"* * * * *", "2026-03-01 10:00", "2026-03-01 10:01"},
		{"*/15 * * * *", "2026-03-01 10:07", "2026-03-01 10:15"},
		{"0 * * * *", "2026-03-01 10:00", "2026-03-01 11:00"},
		{"@hourly", "2026-03-01 23:30", "2026-03-02 00:00"},
		{"@daily", "2026-12-31 12:00", "2027-01-01 00:00"},
		{"@weekly", "2026-03-04 12:00", "2026-03-08 00:00"}, // a Sunday
		{"@monthly", "2026-02-15 00:00", "2026-03-01 00:00"},
		{"@yearly", "2026-02-15 00:00", "2027-01-01 00:00"},
		{"30 9-17/4 * * mon-fri", "2026-03-06 17:31", "2026-03-09 09:30"}, // Friday evening -> Monday
		{"0 0 1,15 * *", "2026-03-02 00:00", "2026-03-15 00:00"},
		{"0 0 13 * 5", "2026-03-01 00:00", "2026-03-06 00:00"}, // dom OR dow: Friday the 6th comes first
		{"0 0 29 2 *", "2026-03-01 00:00", "2028-02-29 00:00"},
		{"5/20 * * * *", "2026-03-01 10:06", "2026-03-01 10:25"},
		{"0 12 * jan,JUL 7", "2026-01-05 00:00", "2026-01-11 12:00"}, // 7 is Sunday
	} {
		s, err := ParseStandard(tc.spec)
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		if got := s.Next(utc(tc.from)); !got.Equal(utc(tc.want)) {
			t.Errorf("%q after %s: %s, want %s", tc.spec, tc.from, got.Format("2006-01-02 15:04 Mon"), tc.want)
		}
	}
	if s, _ := ParseStandard("0 0 30 2 *"); !s.Next(utc("2026-01-01 00:00")).IsZero() {
		t.Error("Feb 30 should never come")
	}
	for _, bad := range []string{"* * * *", "60 * * * *", "* * * * 8", "*/0 * * * *", "@fortnightly", "TZ=UTC * * * * *", "a * * * *", "5-1 * * * *"} {
		if _, err := ParseStandard(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestScheduleTimeZone(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	s, _ := ParseStandard("0 9 * * *")
	got := s.Next(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).In(tokyo)) // 09:00 in Tokyo has just passed
	if want := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("got %s, want %s", got.UTC(), want)
	}
}

func newCronJob(name, schedule string, policy batchv1.ConcurrencyPolicy) *batchv1.CronJob {
	return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.CronJobSpec{Schedule: schedule, ConcurrencyPolicy: policy,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}}}
}

func TestCronJobCreatesJobs(t *testing.T) {
	env := controllertest.New(t)
	cj, err := rest.Create(env.Ctx, env.Admin, newCronJob("tick", "* * * * *", batchv1.ForbidConcurrent))
	if err != nil {
		t.Fatal(err)
	}
	// The controller's clock starts at the creation time: the next "* * * * *"
	// run is the following minute boundary, whatever second it was created at.
	clock := workqueue.NewFakeClock(cj.CreationTimestamp.Time)
	c := newController(env.CC, clock)
	go c.recorder.Run(env.Ctx)
	env.Start(t)
	sync := func() *batchv1.CronJob {
		t.Helper()
		cur, _ := rest.Get[batchv1.CronJob](env.Ctx, env.Admin, "default", "tick")
		controllertest.Eventually(t, "cronjob cache current", func() bool {
			x, ok := c.cronJobs.GetStore().Get("default", "tick")
			return ok && x.ResourceVersion == cur.ResourceVersion
		})
		env.ClearActions()
		if _, err := c.sync(env.Ctx, "default/tick"); err != nil {
			t.Fatal(err)
		}
		cur, _ = rest.Get[batchv1.CronJob](env.Ctx, env.Admin, "default", "tick")
		return cur
	}
	// Not due yet (the first minute after creation has not come).
	if got := sync(); len(got.Status.Active) != 0 || got.Status.LastScheduleTime != nil {
		t.Fatalf("before the schedule: %+v", got.Status)
	}
	env.ExpectWrites(t)
	due := cj.CreationTimestamp.Time.Truncate(time.Minute).Add(time.Minute)
	clock.Step(due.Sub(cj.CreationTimestamp.Time) + time.Second)
	got := sync()
	wantName := fmt.Sprintf("tick-%d", due.Unix()/60)
	env.ExpectWrites(t, "create jobs default/"+wantName, statusUpdate) // the Job, then one status update
	if len(got.Status.Active) != 1 || got.Status.Active[0].Name != wantName || !got.Status.LastScheduleTime.Equal(due) {
		t.Fatalf("status %+v, want active %s", got.Status, wantName)
	}
	j, err := rest.Get[batchv1.Job](env.Ctx, env.Admin, "default", wantName)
	if err != nil {
		t.Fatal(err)
	}
	if j.Annotations[CronJobScheduledTimestampAnnotation] == "" || j.OwnerReferences[0].Name != "tick" {
		t.Errorf("job metadata %+v", j.ObjectMeta)
	}
	controllertest.Eventually(t, "job in cache", func() bool { _, ok := c.jobs.GetStore().Get("default", wantName); return ok })

	// Forbid: the next minute is skipped while the Job runs.
	clock.Step(time.Minute)
	if got := sync(); len(got.Status.Active) != 1 {
		t.Fatalf("Forbid: %+v", got.Status)
	}
	env.ExpectWrites(t)
	// The Job completes: it leaves the active list, lastSuccessfulTime is set.
	now := metav1.NewTime(clock.Now())
	j.Status = batchv1.JobStatus{StartTime: &now, CompletionTime: &now, Succeeded: 1, Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now}}}
	if _, err := rest.UpdateStatus(env.Ctx, env.Admin, j); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "job status in cache", func() bool {
		x, ok := c.jobs.GetStore().Get("default", wantName)
		return ok && len(x.Status.Conditions) == 2
	})
	got = sync()
	// The next run and, in the same status update, lastSuccessfulTime.
	env.ExpectWrites(t, fmt.Sprintf("create jobs default/tick-%d", due.Unix()/60+1), statusUpdate)
	if got.Status.LastSuccessfulTime == nil || len(got.Status.Active) != 1 || got.Status.Active[0].Name == wantName {
		t.Fatalf("after completion (and the next run): %+v", got.Status)
	}
}

// statusUpdate is the write of the CronJob's status.
const statusUpdate = "update cronjobs/status default/tick"

func TestMostRecentScheduleTime(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	cj := newCronJob("x", "*/10 * * * *", "")
	cj.CreationTimestamp = metav1.NewTime(t0)
	s, _ := ParseStandard(cj.Spec.Schedule)
	if got, n := mostRecentScheduleTime(cj, t0.Add(5*time.Minute), s); got != nil || n != 0 {
		t.Errorf("none due: %v %d", got, n)
	}
	got, n := mostRecentScheduleTime(cj, t0.Add(35*time.Minute), s)
	if got == nil || !got.Equal(time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)) || n != 3 {
		t.Errorf("three due: %v %d", got, n)
	}
	deadline := int64(60)
	cj.Spec.StartingDeadlineSeconds = &deadline
	if got, _ := mostRecentScheduleTime(cj, t0.Add(35*time.Minute), s); got != nil {
		t.Errorf("past the starting deadline: %v", got)
	}
}
