package job

import (
	"slices"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/controllertest"
)

func ptr[T any](v T) *T { return &v }

func newJob(name string, completions, parallelism, backoff int32) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.JobSpec{Completions: &completions, Parallelism: &parallelism, BackoffLimit: &backoff,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"true"}}}}}},
	}
}

type fixture struct {
	*controllertest.Env
	c     *JobController
	clock *workqueue.FakeClock
}

func setup(t *testing.T) *fixture {
	env := controllertest.New(t)
	clock := workqueue.NewFakeClock(time.Now())
	c := newJobController(env.CC, clock)
	go c.recorder.Run(env.Ctx)
	env.Start(t)
	return &fixture{Env: env, c: c, clock: clock}
}

func (f *fixture) create(t *testing.T, j *batchv1.Job) *batchv1.Job {
	t.Helper()
	created, err := rest.Create(f.Ctx, f.Admin, j)
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "job in cache", func() bool { _, ok := f.c.jobs.GetStore().Get("default", j.Name); return ok })
	return created
}

// sync runs syncJob once the cache shows the controller's last actions, and
// returns the Job as the apiserver has it; ExpectWrites then checks what
// the sync wrote.
func (f *fixture) sync(t *testing.T, name string) *batchv1.Job {
	t.Helper()
	key := "default/" + name
	controllertest.Eventually(t, "expectations satisfied", func() bool {
		return f.c.expectations.SatisfiedExpectations(key) && f.c.finalizersSatisfied(key)
	})
	j, err := rest.Get[batchv1.Job](f.Ctx, f.Admin, "default", name)
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "job cache current", func() bool {
		c, ok := f.c.jobs.GetStore().Get("default", name)
		return ok && c.ResourceVersion == j.ResourceVersion
	})
	f.ClearActions()
	if _, err := f.c.syncJob(f.Ctx, key); err != nil {
		t.Fatal(err)
	}
	j, err = rest.Get[batchv1.Job](f.Ctx, f.Admin, "default", name)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func (f *fixture) pods(t *testing.T, j *batchv1.Job) []corev1.Pod {
	t.Helper()
	l, err := rest.List[corev1.Pod](f.Ctx, f.Admin, "default", rest.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + j.Name})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// finish reports a pod Succeeded or Failed, as a kubelet would.
func (f *fixture) finish(t *testing.T, p corev1.Pod, phase corev1.PodPhase) {
	t.Helper()
	p.Status.Phase = phase
	exit := int32(0)
	if phase == corev1.PodFailed {
		exit = 1
	}
	now := metav1.NewTime(f.clock.Now())
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", Image: "busybox",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, FinishedAt: now}}}}
	if _, err := rest.UpdateStatus(f.Ctx, f.Admin, &p); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "pod status in cache", func() bool {
		c, ok := f.c.pods.GetStore().Get(p.Namespace, p.Name)
		return ok && c.Status.Phase == phase
	})
}

// statusUpdate is the write of Job default/<name>'s status.
func statusUpdate(name string) string { return "update jobs/status default/" + name }

func conditions(j *batchv1.Job) []string {
	var out []string
	for _, c := range j.Status.Conditions {
		out = append(out, string(c.Type)+"="+string(c.Status)+"/"+c.Reason+"/"+c.Message)
	}
	return out
}

func TestJobCompletes(t *testing.T) {
	f := setup(t)
	j := f.create(t, newJob("pi", 2, 2, 6))
	got := f.sync(t, "pi")
	pods := f.pods(t, j)
	f.ExpectWrites(t, "create pods default", "create pods default", statusUpdate("pi")) // parallelism 2
	if len(pods) != 2 || got.Status.Active != 2 || got.Status.StartTime == nil {
		t.Fatalf("want 2 active pods and a startTime; pods %d, status %+v", len(pods), got.Status)
	}
	for _, p := range pods {
		ref := metav1.GetControllerOf(&p.ObjectMeta)
		if !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) || ref == nil || ref.UID != j.UID ||
			p.Labels[batchv1.ControllerUidLabel] != string(j.UID) || p.Labels[batchv1.LegacyJobNameLabel] != "pi" {
			t.Errorf("pod %s: finalizers %v, owner %v, labels %v", p.Name, p.Finalizers, ref, p.Labels)
		}
	}
	f.finish(t, pods[0], corev1.PodSucceeded)
	got = f.sync(t, "pi")
	// Upstream's order, which loses no pod: the UID into
	// uncountedTerminatedPods, the finalizer off, the UID counted. No
	// replacement: 2 completions, 1 done, 1 running.
	f.ExpectWrites(t, statusUpdate("pi"), "patch pods default/"+pods[0].Name, statusUpdate("pi"))
	if got.Status.Succeeded != 1 || got.Status.Active != 1 || len(got.Status.Conditions) != 0 {
		t.Fatalf("after one success: %+v", got.Status)
	}
	f.finish(t, pods[1], corev1.PodSucceeded)
	// One sync: the UID and SuccessCriteriaMet, the finalizer off, then
	// counted and Complete.
	f.sync(t, "pi")
	f.ExpectWrites(t, statusUpdate("pi"), "patch pods default/"+pods[1].Name, statusUpdate("pi"))
	got = f.sync(t, "pi")
	f.ExpectWrites(t) // finished: nothing more to write
	want := []string{
		"SuccessCriteriaMet=True/CompletionsReached/Reached expected number of succeeded pods",
		"Complete=True/CompletionsReached/Reached expected number of succeeded pods",
	}
	if c := conditions(got); !slices.Equal(c, want) || got.Status.Succeeded != 2 || got.Status.CompletionTime == nil {
		t.Fatalf("conditions %q (want %q), status %+v", c, want, got.Status)
	}
	for _, p := range f.pods(t, j) {
		if slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
			t.Errorf("pod %s still has the tracking finalizer", p.Name)
		}
	}
	if u := got.Status.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		t.Errorf("uncounted: %+v", u)
	}
}

func TestJobBackoffLimitExceeded(t *testing.T) {
	f := setup(t)
	j := f.create(t, newJob("fail", 1, 1, 1))
	f.sync(t, "fail")
	first := f.pods(t, j)[0]
	f.finish(t, first, corev1.PodFailed)
	got := f.sync(t, "fail")
	f.ExpectWrites(t, statusUpdate("fail"), "patch pods default/"+first.Name, statusUpdate("fail")) // counted, not replaced
	if got.Status.Failed != 1 || len(f.pods(t, j)) != 1 {
		t.Fatalf("first failure: want failed 1 and no replacement during back-off; status %+v", got.Status)
	}
	// The replacement waits 10s after the failure (the fake clock).
	f.clock.Step(DefaultJobPodFailureBackOff)
	f.sync(t, "fail")
	f.ExpectWrites(t, "create pods default", statusUpdate("fail"))
	pods := f.pods(t, j)
	if len(pods) != 2 {
		t.Fatalf("after the back-off: %d pods, want 2", len(pods))
	}
	for _, p := range pods {
		if p.Status.Phase == "" || p.Status.Phase == corev1.PodPending {
			f.finish(t, p, corev1.PodFailed)
		}
	}
	f.sync(t, "fail")
	got = f.sync(t, "fail")
	f.ExpectWrites(t) // failed: nothing more to write
	want := []string{
		"FailureTarget=True/BackoffLimitExceeded/Job has reached the specified backoff limit",
		"Failed=True/BackoffLimitExceeded/Job has reached the specified backoff limit",
	}
	if c := conditions(got); !slices.Equal(c, want) || got.Status.Failed != 2 || got.Status.Active != 0 {
		t.Fatalf("conditions %q (want %q), status %+v", c, want, got.Status)
	}
}

func TestJobActiveDeadline(t *testing.T) {
	f := setup(t)
	j := newJob("slow", 1, 1, 6)
	j.Spec.ActiveDeadlineSeconds = ptr(int64(30))
	j = f.create(t, j)
	f.sync(t, "slow")
	if n := len(f.pods(t, j)); n != 1 {
		t.Fatalf("%d pods", n)
	}
	pod := f.pods(t, j)[0]
	f.clock.Step(31 * time.Second)
	got := f.sync(t, "slow")
	// FailureTarget with the pod counted failed; the pod deleted and its
	// finalizer removed; the counters.
	f.ExpectWrites(t, "delete pods default/"+pod.Name, statusUpdate("slow"), "patch pods default/"+pod.Name, statusUpdate("slow"))
	if c := conditions(got); len(c) != 1 || c[0] != "FailureTarget=True/DeadlineExceeded/Job was active longer than specified deadline" {
		t.Fatalf("conditions %q", c)
	}
	// The pod was deleted and released: the Job fails once it is gone.
	controllertest.Eventually(t, "pod deleted", func() bool {
		for _, p := range f.pods(t, j) {
			if p.DeletionTimestamp == nil {
				return false
			}
		}
		return true
	})
	got = f.sync(t, "slow")
	f.ExpectWrites(t, statusUpdate("slow")) // Failed
	if c := conditions(got); len(c) != 2 || c[1] != "Failed=True/DeadlineExceeded/Job was active longer than specified deadline" || got.Status.Failed != 1 {
		t.Fatalf("conditions %q, status %+v", c, got.Status)
	}
}

func TestBackoffRecord(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(phase corev1.PodPhase, at time.Time) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(at)}}}}}}
	}
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		now  time.Time
		want time.Duration
	}{
		{"no failure", nil, t0, 0},
		{"one failure: 10s", []*corev1.Pod{pod(corev1.PodFailed, t0)}, t0.Add(3 * time.Second), 7 * time.Second},
		{"three failures: 40s", []*corev1.Pod{pod(corev1.PodFailed, t0), pod(corev1.PodFailed, t0), pod(corev1.PodFailed, t0)}, t0, 40 * time.Second},
		{"a success resets", []*corev1.Pod{pod(corev1.PodFailed, t0), pod(corev1.PodSucceeded, t0.Add(time.Second))}, t0.Add(time.Second), 0},
		{"capped at 10m", slices.Repeat([]*corev1.Pod{pod(corev1.PodFailed, t0)}, 12), t0, 10 * time.Minute},
	} {
		if got := newBackoffRecord(tc.pods).getRemainingTime(tc.now, DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestIndexedJob(t *testing.T) {
	f := setup(t)
	j := newJob("idx", 3, 2, 6)
	mode := batchv1.IndexedCompletion
	j.Spec.CompletionMode = &mode
	j = f.create(t, j)
	f.sync(t, "idx")
	f.ExpectWrites(t, "create pods default", "create pods default", statusUpdate("idx")) // indexes 0 and 1
	index := func(p corev1.Pod) string { return p.Annotations[batchv1.JobCompletionIndexAnnotation] }
	pods := f.pods(t, j)
	var idx []string
	for _, p := range pods {
		idx = append(idx, index(p))
		if p.Labels[batchv1.JobCompletionIndexAnnotation] != index(p) || p.Spec.Hostname != "idx-"+index(p) ||
			len(p.Spec.Containers[0].Env) != 1 || p.Spec.Containers[0].Env[0].Name != "JOB_COMPLETION_INDEX" ||
			p.GenerateName != "idx-"+index(p)+"-" {
			t.Errorf("pod %s: labels %v hostname %q env %+v generateName %q", p.Name, p.Labels, p.Spec.Hostname, p.Spec.Containers[0].Env, p.GenerateName)
		}
	}
	slices.Sort(idx)
	if !slices.Equal(idx, []string{"0", "1"}) {
		t.Fatalf("indexes %v", idx)
	}
	var zero corev1.Pod
	for _, p := range pods {
		if index(p) == "0" {
			zero = p
			f.finish(t, p, corev1.PodSucceeded)
		}
	}
	got := f.sync(t, "idx")
	// Index 0 counted (upstream's order), index 2 created for the free slot.
	f.ExpectWrites(t, "create pods default", statusUpdate("idx"), "patch pods default/"+zero.Name, statusUpdate("idx"))
	if got.Status.CompletedIndexes != "0" || got.Status.Succeeded != 1 {
		t.Fatalf("after index 0: %+v", got.Status)
	}
	f.sync(t, "idx")
	f.ExpectWrites(t) // index 2 exists already
	pods = f.pods(t, j)
	if len(pods) != 3 {
		t.Fatalf("%d pods, want 3 (index 2 created)", len(pods))
	}
	for _, p := range pods {
		if p.Status.Phase != corev1.PodSucceeded {
			f.finish(t, p, corev1.PodSucceeded)
		}
	}
	f.sync(t, "idx")
	got = f.sync(t, "idx")
	f.ExpectWrites(t)
	if got.Status.CompletedIndexes != "0-2" || got.Status.Succeeded != 3 || len(conditions(got)) != 2 || got.Status.Conditions[1].Type != batchv1.JobComplete {
		t.Fatalf("final: %+v", got.Status)
	}
}

func TestFormatIndexes(t *testing.T) {
	set := parseIndexesFromString("0-2,5,7-8", 8)
	if got := formatIndexes(set); got != "0-2,5,7" {
		t.Errorf("%q", got)
	}
	if got := formatIndexes(map[int]bool{}); got != "" {
		t.Errorf("%q", got)
	}
}
