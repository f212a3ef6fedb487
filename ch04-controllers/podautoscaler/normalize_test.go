package podautoscaler

import (
	"testing"
	"time"

	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/corev1"
)

func testController(now *time.Time) *HorizontalController {
	return &HorizontalController{now: func() time.Time { return *now },
		downscaleStabilisationWindow: 5 * time.Minute, tolerance: 0.1,
		recommendations: map[string][]timestampedRecommendation{},
		scaleUpEvents:   map[string][]timestampedScaleEvent{}, scaleDownEvents: map[string][]timestampedScaleEvent{}}
}

func condition(hpa *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
	for i := range hpa.Status.Conditions {
		if hpa.Status.Conditions[i].Type == t {
			return &hpa.Status.Conditions[i]
		}
	}
	return nil
}

// Upstream's TestConvertDesiredReplicasWithRules.
func TestConvertDesiredReplicasWithRules(t *testing.T) {
	for _, tc := range []struct {
		current, desired, min, max int32
		want                       int32
		reason                     string
	}{
		{5, 7, 3, 8, 7, "DesiredWithinRange"},
		{3, 1, 2, 8, 2, "TooFewReplicas"},
		{5, 12, 3, 8, 8, "TooManyReplicas"},
		{2, 20, 1, 100, 4, "ScaleUpLimit"},   // at most max(2×current, 4)
		{10, 30, 1, 100, 20, "ScaleUpLimit"}, // 2×current
		{10, 30, 1, 15, 15, "TooManyReplicas"},
	} {
		got, reason, _ := convertDesiredReplicasWithRules(tc.current, tc.desired, tc.min, tc.max)
		if got != tc.want || reason != tc.reason {
			t.Errorf("%+v: %d %s", tc, got, reason)
		}
	}
}

// A scale-down follows the highest recommendation of the stabilization
// window; once the old recommendations age out, it goes through.
func TestNormalizeDesiredReplicasDownscaleStabilization(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	a := testController(&now)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10}}
	a.recordInitialRecommendation(5, "ns/h")
	if got := a.normalizeDesiredReplicas(hpa, "ns/h", 5, 2, 1); got != 5 {
		t.Errorf("within the window: %d, want 5", got)
	}
	if c := condition(hpa, autoscalingv2.AbleToScale); c == nil || c.Reason != "ScaleDownStabilized" {
		t.Errorf("AbleToScale %+v", c)
	}
	now = now.Add(5*time.Minute + time.Second)
	if got := a.normalizeDesiredReplicas(hpa, "ns/h", 5, 2, 1); got != 2 {
		t.Errorf("after the window: %d, want 2", got)
	}
	if c := condition(hpa, autoscalingv2.AbleToScale); c == nil || c.Reason != "ReadyForNewScale" {
		t.Errorf("AbleToScale %+v", c)
	}
	if c := condition(hpa, autoscalingv2.ScalingLimited); c == nil || c.Status != corev1.ConditionFalse || c.Reason != "DesiredWithinRange" {
		t.Errorf("ScalingLimited %+v", c)
	}
	// Below the minimum: clamped, ScalingLimited=True TooFewReplicas.
	now = now.Add(10 * time.Minute)
	if got := a.normalizeDesiredReplicas(hpa, "ns/h", 2, 1, 3); got != 3 {
		t.Errorf("below min: %d, want 3", got)
	}
	if c := condition(hpa, autoscalingv2.ScalingLimited); c == nil || c.Status != corev1.ConditionTrue || c.Reason != "TooFewReplicas" ||
		c.Message != "the desired replica count is less than the minimum replica count" {
		t.Errorf("ScalingLimited %+v", c)
	}
}

func policies(sel autoscalingv2.ScalingPolicySelect, p ...autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{SelectPolicy: &sel, Policies: p, StabilizationWindowSeconds: ptr[int32](0)}
}

// Cases of upstream's TestCalculateScaleUpLimitWithScalingRules and
// TestCalculateScaleDownLimitWithBehaviors.
func TestScalingRulesLimits(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	pods := func(v, period int32) autoscalingv2.HPAScalingPolicy {
		return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: v, PeriodSeconds: period}
	}
	percent := func(v, period int32) autoscalingv2.HPAScalingPolicy {
		return autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: v, PeriodSeconds: period}
	}
	recent := []timestampedScaleEvent{{replicaChange: 4, timestamp: now.Add(-10 * time.Second)}}
	old := []timestampedScaleEvent{{replicaChange: 4, timestamp: now.Add(-10 * time.Minute)}}
	for _, tc := range []struct {
		name     string
		up       bool
		current  int32
		upEv     []timestampedScaleEvent
		downEv   []timestampedScaleEvent
		rules    *autoscalingv2.HPAScalingRules
		expected int32
	}{
		{"up: default rules", true, 10, nil, nil, withDefaults(nil, defaultScaleUpRules), 20},
		{"up: default rules, small target", true, 2, nil, nil, withDefaults(nil, defaultScaleUpRules), 6},
		{"up: pods policy, recent scale-up counted", true, 10, recent, nil, policies(autoscalingv2.MaxChangePolicySelect, pods(5, 60)), 11},
		{"up: pods policy, old scale-up forgotten", true, 10, old, nil, policies(autoscalingv2.MaxChangePolicySelect, pods(5, 60)), 15},
		{"up: min of two policies", true, 10, nil, nil, policies(autoscalingv2.MinChangePolicySelect, pods(4, 60), percent(100, 60)), 14},
		{"up: disabled", true, 10, nil, nil, policies(autoscalingv2.DisabledPolicySelect, pods(4, 60)), 10},
		{"up: percent rounds up", true, 3, nil, nil, policies(autoscalingv2.MaxChangePolicySelect, percent(10, 60)), 4},
		{"down: default rules", false, 10, nil, nil, withDefaults(nil, defaultScaleDownRules), 0},
		{"down: pods policy", false, 10, nil, nil, policies(autoscalingv2.MaxChangePolicySelect, pods(3, 60)), 7},
		{"down: recent scale-down counted", false, 10, nil, recent, policies(autoscalingv2.MaxChangePolicySelect, pods(5, 60)), 9},
		{"down: percent rounds down", false, 10, nil, nil, policies(autoscalingv2.MaxChangePolicySelect, percent(25, 60)), 7},
		{"down: min change of two", false, 10, nil, nil, policies(autoscalingv2.MinChangePolicySelect, pods(1, 60), percent(50, 60)), 9},
	} {
		var got int32
		if tc.up {
			got = calculateScaleUpLimitWithScalingRules(tc.current, tc.upEv, tc.downEv, tc.rules, now)
		} else {
			got = calculateScaleDownLimitWithBehaviors(tc.current, tc.upEv, tc.downEv, tc.rules, now)
		}
		if got != tc.expected {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.expected)
		}
	}
}

// With spec.behavior: the scale-up limited by its policy, the stored scale
// event counted by the next sync, and a scale-down stabilized.
func TestNormalizeDesiredReplicasWithBehaviors(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	a := testController(&now)
	sel := autoscalingv2.MaxChangePolicySelect
	behavior := &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{SelectPolicy: &sel, StabilizationWindowSeconds: ptr[int32](0),
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 2, PeriodSeconds: 60}}},
		ScaleDown: &autoscalingv2.HPAScalingRules{}, // window: the flag's 5 minutes
	}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 100, Behavior: behavior}}
	a.recordInitialRecommendation(3, "k")
	if got := a.normalizeDesiredReplicasWithBehaviors(hpa, "k", 3, 10, 1); got != 5 {
		t.Fatalf("first scale-up: %d, want 5", got)
	}
	if c := condition(hpa, autoscalingv2.ScalingLimited); c == nil || c.Reason != "ScaleUpLimit" || c.Status != corev1.ConditionTrue {
		t.Errorf("ScalingLimited %+v", c)
	}
	a.storeScaleEvent(behavior, "k", 3, 5)
	now = now.Add(15 * time.Second)
	if got := a.normalizeDesiredReplicasWithBehaviors(hpa, "k", 5, 10, 1); got != 5 {
		t.Errorf("within the policy period: %d, want 5", got)
	}
	now = now.Add(time.Minute)
	if got := a.normalizeDesiredReplicasWithBehaviors(hpa, "k", 5, 10, 1); got != 7 {
		t.Errorf("after the policy period: %d, want 7", got)
	}
	if *hpa.Spec.Behavior.ScaleDown.StabilizationWindowSeconds != 300 {
		t.Errorf("scaleDown window %d, want 300", *hpa.Spec.Behavior.ScaleDown.StabilizationWindowSeconds)
	}
	// The recommendations of the last 5 minutes were 10: no scale-down.
	now = now.Add(time.Minute)
	if got := a.normalizeDesiredReplicasWithBehaviors(hpa, "k", 7, 2, 1); got != 7 {
		t.Errorf("stabilized scale-down: %d, want 7", got)
	}
	if c := condition(hpa, autoscalingv2.AbleToScale); c == nil || c.Reason != "ScaleDownStabilized" {
		t.Errorf("AbleToScale %+v", c)
	}
}
