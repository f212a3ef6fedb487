package podautoscaler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch04-controllers/podautoscaler/metrics"
)

// fakeMetricsClient answers GetResourceMetric from a table (upstream's
// tests use a fake metrics clientset the same way).
type fakeMetricsClient struct {
	levels    map[string]int64 // pod → milli-units
	timestamp time.Time
	err       error
}

func (f *fakeMetricsClient) GetResourceMetric(_ context.Context, _ corev1.ResourceName, _ string, _ selection.LabelSelector, _ string) (metrics.PodMetricsInfo, time.Time, error) {
	if f.err != nil {
		return nil, time.Time{}, f.err
	}
	if len(f.levels) == 0 {
		return nil, time.Time{}, fmt.Errorf("no metrics returned from resource metrics API")
	}
	info := metrics.PodMetricsInfo{}
	for name, v := range f.levels {
		info[name] = metrics.PodMetric{Timestamp: f.timestamp, Window: time.Minute, Value: v}
	}
	return info, f.timestamp, nil
}

// replicaCalcTestCase is upstream's replicaCalcTestCase (one container per
// pod; pods test-pod-0, test-pod-1, ...).
type replicaCalcTestCase struct {
	name             string
	currentReplicas  int32
	expectedReplicas int32
	expectedError    string

	requests          []string // cpu request of each pod ("" none)
	levels            []int64  // usage of each pod in millicores, in pod order; -1: no metric
	extraLevels       []int64  // metrics of pods that do not exist
	targetUtilization int32
	targetValue       int64 // AverageValue target (milli), instead of utilization
	expectedUtil      int32
	expectedValue     int64

	podReadiness []corev1.ConditionStatus
	podPhase     []corev1.PodPhase
	podDeleted   []bool
}

func (tc *replicaCalcTestCase) run(t *testing.T) {
	t.Helper()
	now := time.Now()
	var pods []*corev1.Pod
	levels := map[string]int64{}
	for i := range tc.requests {
		name := fmt.Sprintf("test-pod-%d", i)
		ready, phase := corev1.ConditionTrue, corev1.PodRunning
		if i < len(tc.podReadiness) {
			ready = tc.podReadiness[i]
		}
		if i < len(tc.podPhase) {
			phase = tc.podPhase[i]
		}
		start := metav1.NewTime(now.Add(-time.Hour))
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "test-namespace", Labels: map[string]string{"name": "test-pod"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "container"}}},
			Status: corev1.PodStatus{Phase: phase, StartTime: &start,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: start}}}}
		if tc.requests[i] != "" {
			pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(tc.requests[i])}
		}
		if i < len(tc.podDeleted) && tc.podDeleted[i] {
			ts := metav1.NewTime(now)
			pod.DeletionTimestamp = &ts
		}
		pods = append(pods, pod)
		if i < len(tc.levels) && tc.levels[i] >= 0 {
			levels[name] = tc.levels[i]
		}
	}
	for i, l := range tc.extraLevels {
		levels[fmt.Sprintf("test-pod-%d", len(tc.requests)+i)] = l
	}
	mc := &fakeMetricsClient{levels: levels, timestamp: now}
	calc := NewReplicaCalculator(mc, func(string, selection.LabelSelector) []*corev1.Pod { return pods },
		Defaults.CPUInitializationPeriod, Defaults.DelayOfInitialReadinessStatus)
	sel, _ := selection.ParseLabelSelector("name=test-pod")
	tol := Tolerances{Defaults.Tolerance, Defaults.Tolerance}
	var replicas int32
	var util int32
	var value int64
	var err error
	if tc.targetValue > 0 {
		replicas, value, _, err = calc.GetRawResourceReplicas(context.Background(), tc.currentReplicas, tc.targetValue, corev1.ResourceCPU, tol, "test-namespace", sel, "")
	} else {
		replicas, util, value, _, err = calc.GetResourceReplicas(context.Background(), tc.currentReplicas, tc.targetUtilization, corev1.ResourceCPU, tol, "test-namespace", sel, "")
	}
	if tc.expectedError != "" {
		if err == nil || err.Error() != tc.expectedError {
			t.Fatalf("error %v, want %q", err, tc.expectedError)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if replicas != tc.expectedReplicas || util != tc.expectedUtil || value != tc.expectedValue {
		t.Errorf("replicas %d utilization %d value %d, want %d %d %d", replicas, util, value, tc.expectedReplicas, tc.expectedUtil, tc.expectedValue)
	}
}

// Upstream's TestReplicaCalc* cases (replica_calculator_test.go) with one
// container per pod.
func TestReplicaCalc(t *testing.T) {
	f, tr := corev1.ConditionFalse, corev1.ConditionTrue
	for _, tc := range []replicaCalcTestCase{
		{name: "ScaleUp", currentReplicas: 3, expectedReplicas: 5, requests: []string{"1.0", "1.0", "1.0"},
			levels: []int64{300, 500, 700}, targetUtilization: 30, expectedUtil: 50, expectedValue: 500},
		{name: "ScaleUpUnreadyLessScale", currentReplicas: 3, expectedReplicas: 4, requests: []string{"1.0", "1.0", "1.0"},
			podReadiness: []corev1.ConditionStatus{f, tr, tr},
			levels:       []int64{300, 500, 700}, targetUtilization: 30, expectedUtil: 60, expectedValue: 600},
		{name: "ScaleUpUnreadyNoScale", currentReplicas: 3, expectedReplicas: 3, requests: []string{"1.0", "1.0", "1.0"},
			podReadiness: []corev1.ConditionStatus{f, tr, f},
			levels:       []int64{400, 500, 700}, targetUtilization: 30, expectedUtil: 50, expectedValue: 500},
		{name: "ScaleUpIgnoresFailedPods", currentReplicas: 2, expectedReplicas: 4, requests: []string{"1.0", "1.0", "1.0", "1.0"},
			podReadiness: []corev1.ConditionStatus{tr, tr, f, f},
			podPhase:     []corev1.PodPhase{corev1.PodRunning, corev1.PodRunning, corev1.PodFailed, corev1.PodFailed},
			levels:       []int64{500, 700, -1, -1}, targetUtilization: 30, expectedUtil: 60, expectedValue: 600},
		{name: "ScaleUpIgnoresDeletionPods", currentReplicas: 2, expectedReplicas: 4, requests: []string{"1.0", "1.0", "1.0", "1.0"},
			podDeleted: []bool{false, false, true, true},
			levels:     []int64{500, 700, -1, -1}, targetUtilization: 30, expectedUtil: 60, expectedValue: 600},
		{name: "ScaleUpPendingPodsNoScale", currentReplicas: 3, expectedReplicas: 3, requests: []string{"1.0", "1.0", "1.0"},
			podPhase: []corev1.PodPhase{corev1.PodRunning, corev1.PodPending, corev1.PodPending},
			levels:   []int64{500, -1, -1}, targetUtilization: 30, expectedUtil: 50, expectedValue: 500},
		{name: "ScaleDown", currentReplicas: 5, expectedReplicas: 3, requests: []string{"1.0", "1.0", "1.0", "1.0", "1.0"},
			levels: []int64{100, 300, 500, 250, 250}, targetUtilization: 50, expectedUtil: 28, expectedValue: 280},
		{name: "ScaleDownIgnoresUnreadyPods", currentReplicas: 5, expectedReplicas: 2, requests: []string{"1.0", "1.0", "1.0", "1.0", "1.0"},
			podReadiness: []corev1.ConditionStatus{tr, tr, tr, f, f},
			levels:       []int64{100, 300, 500, 250, 250}, targetUtilization: 50, expectedUtil: 30, expectedValue: 300},
		{name: "Tolerance", currentReplicas: 3, expectedReplicas: 3, requests: []string{"0.9", "1.0", "1.1"},
			levels: []int64{1010, 1030, 1020}, targetUtilization: 100, expectedUtil: 102, expectedValue: 1020},
		{name: "SuperfluousMetrics", currentReplicas: 4, expectedReplicas: 24, requests: []string{"1.0", "1.0", "1.0", "1.0"},
			levels: []int64{4000, 9500, 3000, 7000}, extraLevels: []int64{3200, 2000}, targetUtilization: 100, expectedUtil: 587, expectedValue: 5875},
		{name: "MissingMetrics", currentReplicas: 4, expectedReplicas: 3, requests: []string{"1.0", "1.0", "1.0", "1.0"},
			levels: []int64{400, 95, -1, -1}, targetUtilization: 100, expectedUtil: 24, expectedValue: 247},
		{name: "MissingMetricsNoChangeEq", currentReplicas: 2, expectedReplicas: 2, requests: []string{"1.0", "1.0"},
			levels: []int64{1000, -1}, targetUtilization: 100, expectedUtil: 100, expectedValue: 1000},
		{name: "MissingMetricsScaleUp", currentReplicas: 3, expectedReplicas: 4, requests: []string{"1.0", "1.0", "1.0"},
			levels: []int64{1800, 1800, -1}, targetUtilization: 100, expectedUtil: 180, expectedValue: 1800},
		{name: "MissingMetricsScaleDownTargetOver100", currentReplicas: 4, expectedReplicas: 3, requests: []string{"2.0", "2.0", "2.0", "2.0"},
			levels: []int64{200, 100, -1, -1}, targetUtilization: 300, expectedUtil: 7, expectedValue: 150},
		{name: "EmptyMetrics", currentReplicas: 4, requests: []string{"1.0", "1.0", "1.0", "1.0"}, levels: []int64{-1, -1, -1, -1},
			targetUtilization: 100, expectedError: "unable to get metrics for resource cpu: no metrics returned from resource metrics API"},
		{name: "EmptyCPURequest", currentReplicas: 1, requests: []string{""}, levels: []int64{200}, targetUtilization: 100,
			expectedError: "missing request for cpu in container container of Pod test-pod-0"},
		{name: "AllUnready", currentReplicas: 2, requests: []string{"1.0", "1.0"}, podPhase: []corev1.PodPhase{corev1.PodPending, corev1.PodPending},
			levels: []int64{200, 200}, targetUtilization: 100, expectedError: "did not receive metrics for targeted pods (pods might be unready)"},
		{name: "RawScaleUp", currentReplicas: 3, expectedReplicas: 6, requests: []string{"1.0", "1.0", "1.0"},
			levels: []int64{20000, 10000, 30000}, targetValue: 10000, expectedValue: 20000},
		{name: "RawTolerance", currentReplicas: 3, expectedReplicas: 3, requests: []string{"1.0", "1.0", "1.0"},
			levels: []int64{10500, 10000, 10400}, targetValue: 10000, expectedValue: 10300},
	} {
		t.Run(tc.name, tc.run)
	}
}

// The metrics API is not served: the error a real cluster reports.
func TestReplicaCalcNoMetricsAPI(t *testing.T) {
	calc := NewReplicaCalculator(&fakeMetricsClient{err: fmt.Errorf("unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)")},
		func(string, selection.LabelSelector) []*corev1.Pod { return nil }, 0, 0)
	_, _, _, _, err := calc.GetResourceReplicas(context.Background(), 1, 50, corev1.ResourceCPU, Tolerances{0.1, 0.1}, "default", selection.Everything(), "")
	want := "unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
