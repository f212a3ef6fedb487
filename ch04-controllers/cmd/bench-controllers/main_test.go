package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
)

func TestRolloutEndConditions(t *testing.T) {
	d := &appsv1.Deployment{}
	d.Generation = 2
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 10, UpdatedReplicas: 10, AvailableReplicas: 10,
		Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}}}
	if !available(10)(d) || !rolledOut(10)(d) {
		t.Fatalf("complete Deployment not done: %s", describe(d))
	}
	for name, mutate := range map[string]func(s *appsv1.Deployment){
		"old generation":      func(d *appsv1.Deployment) { d.Status.ObservedGeneration = 1 },
		"one unavailable":     func(d *appsv1.Deployment) { d.Status.AvailableReplicas = 9 },
		"old pod left":        func(d *appsv1.Deployment) { d.Status.Replicas = 11 },
		"one not updated":     func(d *appsv1.Deployment) { d.Status.UpdatedReplicas = 9 },
		"Available=False":     func(d *appsv1.Deployment) { d.Status.Conditions[0].Status = corev1.ConditionFalse },
		"no Available at all": func(d *appsv1.Deployment) { d.Status.Conditions = nil },
	} {
		c := *d
		c.Status.Conditions = append([]appsv1.DeploymentCondition(nil), d.Status.Conditions...)
		mutate(&c)
		// available ignores replicas/updatedReplicas (T1 has no old
		// pods); rolledOut ignores the condition (as kubectl rollout status).
		wantAvailable := name == "old pod left" || name == "one not updated"
		wantRolledOut := name == "Available=False" || name == "no Available at all"
		if got := available(10)(&c); got != wantAvailable {
			t.Errorf("%s: available = %v, want %v", name, got, wantAvailable)
		}
		if got := rolledOut(10)(&c); got != wantRolledOut {
			t.Errorf("%s: rolledOut = %v, want %v", name, got, wantRolledOut)
		}
	}
}

func TestLogProblems(t *testing.T) {
	log := `I1130 05:58:25.036587   30376 controllermanager.go:189] "Starting" version="v1.35.4"
E1130 05:58:27.007162   30376 replica_set.go:592] "Unhandled Error" err="boom"
E1130 05:58:28.007162   30376 replica_set.go:592] "Unhandled Error" err="boom"
W1130 05:58:29.000001   30376 reflector.go:1] "failed to list" err="not found"
time=2026-11-30T05:58:16.419Z level=INFO msg="Started controller"
time=2026-11-30T05:58:17.419Z level=ERROR msg="sync failed" err=x
`
	p := filepath.Join(t.TempDir(), "kcm.log")
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, total := logProblems(p)
	if total != 4 {
		t.Errorf("total = %d, want 4", total)
	}
	want := []string{`E replica_set.go:592] "Unhandled Error" err="boom"`, `W reflector.go:1] "failed to list" err="not found"`,
		`level=ERROR msg="sync failed" err=x`}
	if len(lines) != len(want) {
		t.Fatalf("distinct lines = %q, want %q", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i, lines[i], want[i])
		}
	}
}

// TestSmallRollout runs the whole measurement at a small scale with each
// controller manager there is (upstream's only when `make ref-build` has
// built it): both phases must finish.
func TestSmallRollout(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the cluster and the controller managers")
	}
	*replicasFlag, *nodesFlag, *timeout, *stall = 20, 3, 3*time.Minute, time.Minute
	*stsReplicas, *rcReplicas = 5, 20
	*refBin = filepath.Join("..", "..", "..", ".kubik", "ref", "bin")
	tmp := t.TempDir()
	ctx := context.Background()
	bins, err := build(ctx, tmp)
	if err != nil {
		t.Fatal(err)
	}
	kcms := []string{"kubik"}
	if bins.upstreamKCM != "" {
		kcms = append(kcms, "upstream")
	} else {
		t.Logf("upstream kube-controller-manager not built in %s: only ours", *refBin)
	}
	for _, which := range kcms {
		dir := filepath.Join(tmp, which)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r := runOne(ctx, which, 0, bins, dir)
		if r.err != nil {
			logs, _ := os.ReadFile(r.logPath)
			t.Fatalf("%s: %v\ncontroller manager log:\n%s", which, r.err, logs)
		}
		for i, m := range []milestones{r.t1, r.t2, r.t3, r.t4, r.t5} {
			if m.done <= 0 || m.created > m.done {
				t.Errorf("%s: milestones of T%d: %+v", which, i+1, m)
			}
		}
	}
}
