package job

import (
	"slices"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// TestJobSuspendKeepsStartTime: as upstream v1.35 (whose clearing of
// StartTime on suspension sits behind the alpha gate
// MutableSchedulingDirectivesForSuspendedJobs), suspending a Job keeps
// status.startTime — kubectl get job still prints a DURATION — and resuming
// it resets startTime to now, so activeDeadlineSeconds counts only the time
// the Job has been running since.
func TestJobSuspendKeepsStartTime(t *testing.T) {
	f := setup(t)
	f.create(t, newJob("pi", 1, 1, 6))
	got := f.sync(t, "pi")
	if got.Status.StartTime == nil || got.Status.Active != 1 {
		t.Fatalf("a running Job wants a startTime and an active pod: %+v", got.Status)
	}
	started := got.Status.StartTime.Time
	pod := f.pods(t, got)[0]

	setSuspend := func(suspend bool) {
		t.Helper()
		j, err := rest.Get[batchv1.Job](f.Ctx, f.Admin, "default", "pi")
		if err != nil {
			t.Fatal(err)
		}
		j.Spec.Suspend = &suspend
		if _, err := rest.Update(f.Ctx, f.Admin, j); err != nil {
			t.Fatal(err)
		}
	}
	setSuspend(true)
	got = f.sync(t, "pi")
	f.ExpectWrites(t, "delete pods default/"+pod.Name, statusUpdate("pi"))
	if want := []string{"Suspended=True/JobSuspended/Job suspended"}; !slices.Equal(conditions(got), want) {
		t.Fatalf("conditions %v, want %v", conditions(got), want)
	}
	if got.Status.StartTime == nil || !got.Status.StartTime.Time.Equal(started) {
		t.Fatalf("suspending changed startTime from %v to %v", started, got.Status.StartTime)
	}

	f.clock.Step(time.Hour)
	setSuspend(false)
	got = f.sync(t, "pi")
	// A new pod; the pod deleted at the suspension released (its finalizer
	// off, between the two status writes of upstream's order).
	f.ExpectWrites(t, "create pods default", statusUpdate("pi"), "patch pods default/"+pod.Name, statusUpdate("pi"))
	if want := []string{"Suspended=False/JobResumed/Job resumed"}; !slices.Equal(conditions(got), want) {
		t.Fatalf("conditions %v, want %v", conditions(got), want)
	}
	if got.Status.StartTime == nil || got.Status.StartTime.Time.Sub(started) < time.Hour-time.Second {
		t.Fatalf("resuming an hour later left startTime at %v (started %v)", got.Status.StartTime, started)
	}
}
