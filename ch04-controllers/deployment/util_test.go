package deployment

import (
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
)

func ios(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

// TestResolveFenceposts: upstream's table (deployment_util_test.go), plus
// the defaults of `kubectl create deployment` (25%/25%) at a few sizes:
// surge rounds up, unavailability down, never both zero.
func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		surge, unavailable *intstr.IntOrString
		desired            int32
		wantSurge, wantU   int32
		wantErr            bool
	}{
		{ios("0%"), ios("0%"), 0, 0, 1, false},
		{ios("39%"), ios("39%"), 10, 4, 3, false},
		{ios("oops"), ios("39%"), 10, 0, 0, true},
		{ios("55%"), ios("urg"), 10, 0, 0, true},
		{nil, ios("39%"), 10, 0, 3, false},
		{ios("39%"), nil, 10, 4, 0, false},
		{nil, nil, 10, 0, 1, false},
		{ios("25%"), ios("25%"), 1, 1, 0, false},
		{ios("25%"), ios("25%"), 3, 1, 0, false},
		{ios("25%"), ios("25%"), 4, 1, 1, false},
		{ios("25%"), ios("25%"), 5, 2, 1, false},
		{ios("25%"), ios("25%"), 10, 3, 2, false},
		{ios("2"), ios("0"), 10, 2, 0, false},
		{ios("0"), ios("0"), 10, 0, 1, false},
	}
	for _, tc := range tests {
		s, u, err := ResolveFenceposts(tc.surge, tc.unavailable, tc.desired)
		if (err != nil) != tc.wantErr || s != tc.wantSurge || u != tc.wantU {
			t.Errorf("ResolveFenceposts(%v, %v, %d) = %d, %d, %v; want %d, %d, err %v",
				tc.surge, tc.unavailable, tc.desired, s, u, err, tc.wantSurge, tc.wantU, tc.wantErr)
		}
	}
}

func deployment(replicas int32, strategy appsv1.DeploymentStrategyType, surge, unavailable string) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Strategy: appsv1.DeploymentStrategy{Type: strategy}}}
	if strategy == appsv1.RollingUpdateDeploymentStrategyType {
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ios(surge), MaxUnavailable: ios(unavailable)}
	}
	return d
}

func rs(name string, replicas, available int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas}, Status: appsv1.ReplicaSetStatus{Replicas: replicas, AvailableReplicas: available}}
}

func TestMaxSurgeMaxUnavailable(t *testing.T) {
	tests := []struct {
		d           *appsv1.Deployment
		surge, unav int32
	}{
		{deployment(10, appsv1.RollingUpdateDeploymentStrategyType, "25%", "25%"), 3, 2},
		{deployment(0, appsv1.RollingUpdateDeploymentStrategyType, "25%", "25%"), 0, 0},
		{deployment(2, appsv1.RollingUpdateDeploymentStrategyType, "1", "5"), 1, 2}, // unavailable capped at replicas
		{deployment(5, appsv1.RecreateDeploymentStrategyType, "", ""), 0, 0},
	}
	for _, tc := range tests {
		if s, u := MaxSurge(tc.d), MaxUnavailable(tc.d); s != tc.surge || u != tc.unav {
			t.Errorf("%d replicas %s: surge %d unavailable %d, want %d %d", *tc.d.Spec.Replicas, tc.d.Spec.Strategy.Type, s, u, tc.surge, tc.unav)
		}
	}
}

// TestNewRSNewReplicas: upstream's table (deployment_util_test.go).
func TestNewRSNewReplicas(t *testing.T) {
	tests := []struct {
		name                            string
		strategy                        appsv1.DeploymentStrategyType
		depReplicas, newRS, surge, oldR int32
		want                            int32
	}{
		{"can not scale up - to newRSReplicas", appsv1.RollingUpdateDeploymentStrategyType, 1, 5, 1, 5, 5},
		{"scale up - to depReplicas", appsv1.RollingUpdateDeploymentStrategyType, 6, 2, 10, 4, 6},
		{"recreate - to depReplicas", appsv1.RecreateDeploymentStrategyType, 3, 1, 1, 1, 3},
		{"first step of a 3-replica rollout: one surge pod", appsv1.RollingUpdateDeploymentStrategyType, 3, 0, 1, 3, 1},
	}
	for _, tc := range tests {
		d := deployment(tc.depReplicas, tc.strategy, "", "")
		if d.Spec.Strategy.RollingUpdate != nil {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ios(intstr.FromInt(int(tc.surge)).String())}
		}
		newRS, old := rs("new", tc.newRS, 0), rs("old", tc.oldR, 0)
		got, err := NewRSNewReplicas(d, []*appsv1.ReplicaSet{newRS, old}, newRS)
		if err != nil || got != tc.want {
			t.Errorf("%s: %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
}

// TestRollingUpdateSteps walks a rollout of 10 replicas with maxSurge 3 and
// maxUnavailable 2 through the controller's arithmetic, each step making
// the new pods available at once, and checks the fenceposts at every step.
func TestRollingUpdateSteps(t *testing.T) {
	d := deployment(10, appsv1.RollingUpdateDeploymentStrategyType, "25%", "25%")
	oldRS, newRS := rs("old", 10, 10), rs("new", 0, 0)
	minAvailable := *d.Spec.Replicas - MaxUnavailable(d)
	maxTotal := *d.Spec.Replicas + MaxSurge(d)
	var steps []string
	for i := 0; i < 20 && (*oldRS.Spec.Replicas > 0 || *newRS.Spec.Replicas < 10); i++ {
		all := []*appsv1.ReplicaSet{oldRS, newRS}
		// reconcileNewReplicaSet
		n, _ := NewRSNewReplicas(d, all, newRS)
		*newRS.Spec.Replicas = n
		newRS.Status.AvailableReplicas = n // the new pods become available
		// reconcileOldReplicaSets / scaleDownOldReplicaSetsForRollingUpdate
		maxScaledDown := GetReplicaCountForReplicaSets(all) - minAvailable - (*newRS.Spec.Replicas - newRS.Status.AvailableReplicas)
		if avail := GetAvailableReplicaCountForReplicaSets(all); maxScaledDown > 0 && avail > minAvailable {
			down := min(*oldRS.Spec.Replicas, avail-minAvailable)
			*oldRS.Spec.Replicas -= down
			oldRS.Status.AvailableReplicas = *oldRS.Spec.Replicas
		}
		total := GetReplicaCountForReplicaSets(all)
		available := GetAvailableReplicaCountForReplicaSets(all)
		if total > maxTotal || available < minAvailable {
			t.Fatalf("step %d: %d pods (max %d), %d available (min %d)", i, total, maxTotal, available, minAvailable)
		}
		steps = append(steps, intstr.FromInt(int(*oldRS.Spec.Replicas)).String()+"/"+intstr.FromInt(int(*newRS.Spec.Replicas)).String())
	}
	// old/new after each step: +3 surge, -5 down to minAvailable 8, ...
	want := "5/3 0/8 0/10"
	if got := join(steps); got != want {
		t.Errorf("steps (old/new): %s, want %s", got, want)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func TestGetProportion(t *testing.T) {
	// Scaling a 10-replica Deployment (maxSurge 3) to 20 in mid-rollout: an
	// RS of 5 made when max was 13 gets its share of the 10 more.
	d := deployment(20, appsv1.RollingUpdateDeploymentStrategyType, "3", "2")
	r := rs("a", 5, 5)
	r.Annotations = map[string]string{appsv1.MaxReplicasAnnotation: "13"}
	// 5*23/13 = 8.85 → 9: 4 more, within the 10 allowed.
	if got := GetProportion(r, d, 10, 0); got != 4 {
		t.Errorf("proportion %d, want 4", got)
	}
	// Never more than what is left to add.
	if got := GetProportion(r, d, 10, 8); got != 2 {
		t.Errorf("proportion with 8 already added: %d, want 2", got)
	}
}

func TestSetNewReplicaSetAnnotations(t *testing.T) {
	d := deployment(3, appsv1.RollingUpdateDeploymentStrategyType, "25%", "25%")
	d.Annotations = map[string]string{appsv1.ChangeCauseAnnotation: "kubectl set image", appsv1.RevisionAnnotation: "7"}
	r := rs("web-1", 0, 0)
	SetNewReplicaSetAnnotations(d, r, "1", false)
	if r.Annotations[appsv1.RevisionAnnotation] != "1" || r.Annotations[appsv1.ChangeCauseAnnotation] != "kubectl set image" ||
		r.Annotations[appsv1.DesiredReplicasAnnotation] != "3" || r.Annotations[appsv1.MaxReplicasAnnotation] != "4" {
		t.Errorf("new RS annotations: %v", r.Annotations)
	}
	// A rollback brings this ReplicaSet back as revision 3, then 5.
	SetNewReplicaSetAnnotations(d, r, "3", true)
	SetNewReplicaSetAnnotations(d, r, "5", true)
	if r.Annotations[appsv1.RevisionAnnotation] != "5" || r.Annotations[appsv1.RevisionHistoryAnnotation] != "1,3" {
		t.Errorf("after two rollbacks: %v", r.Annotations)
	}
	// An older revision never replaces a newer one ("10" > "9" as numbers).
	r.Annotations[appsv1.RevisionAnnotation] = "10"
	SetNewReplicaSetAnnotations(d, r, "9", true)
	if r.Annotations[appsv1.RevisionAnnotation] != "10" {
		t.Errorf("revision went back to %s", r.Annotations[appsv1.RevisionAnnotation])
	}
}

// TestDeploymentTimedOut: no progress for progressDeadlineSeconds since the
// Progressing condition's lastUpdateTime; never after a complete rollout.
func TestDeploymentTimedOut(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	defer func(f func() time.Time) { nowFn = f }(nowFn)
	nowFn = func() time.Time { return now }
	deadline := int32(600)
	d := deployment(3, appsv1.RollingUpdateDeploymentStrategyType, "25%", "25%")
	d.Spec.ProgressDeadlineSeconds = &deadline
	status := func(reason string, ago time.Duration) *appsv1.DeploymentStatus {
		return &appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing,
			Status: "True", Reason: reason, LastUpdateTime: metav1.NewTime(now.Add(-ago))}}}
	}
	tests := []struct {
		reason string
		ago    time.Duration
		want   bool
	}{
		{ReplicaSetUpdatedReason, 599 * time.Second, false},
		{ReplicaSetUpdatedReason, 601 * time.Second, true},
		{NewReplicaSetReason, time.Hour, true},
		{NewRSAvailableReason, time.Hour, false},
		{TimedOutReason, 0, true},
	}
	for _, tc := range tests {
		if got := DeploymentTimedOut(d, status(tc.reason, tc.ago)); got != tc.want {
			t.Errorf("%s %v ago: timed out %v, want %v", tc.reason, tc.ago, got, tc.want)
		}
	}
	d.Spec.ProgressDeadlineSeconds = nil
	if DeploymentTimedOut(d, status(ReplicaSetUpdatedReason, time.Hour)) {
		t.Error("timed out without a progress deadline")
	}
}
