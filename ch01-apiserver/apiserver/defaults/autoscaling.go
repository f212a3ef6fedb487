package defaults

import (
	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/corev1"
)

// setDefaultsHorizontalPodAutoscalerV1 is autoscaling/v1's
// SetDefaults_HorizontalPodAutoscaler: at least one replica. (An autoscaler
// without targetCPUUtilizationPercentage or other metrics gets the 80% CPU
// target on its way to the stored autoscaling/v2 form.)
func setDefaultsHorizontalPodAutoscalerV1(hpa *autoscalingv1.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		hpa.Spec.MinReplicas = ptrTo(int32(1))
	}
}

// setDefaultsHorizontalPodAutoscaler is autoscaling/v2's
// SetDefaults_HorizontalPodAutoscaler: one replica at least, 80% average CPU
// utilization when no metric is given, and the unset parts of a given
// behavior filled in (SetDefaults_HorizontalPodAutoscalerBehavior).
func setDefaultsHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		hpa.Spec.MinReplicas = ptrTo(int32(1))
	}
	if len(hpa.Spec.Metrics) == 0 {
		hpa.Spec.Metrics = []autoscalingv2.MetricSpec{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{
				Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptrTo(int32(autoscalingv2.DefaultCPUUtilization))}},
		}}
	}
	if b := hpa.Spec.Behavior; b != nil {
		b.ScaleUp = generateHPAScaleUpRules(b.ScaleUp)
		b.ScaleDown = generateHPAScaleDownRules(b.ScaleDown)
	}
}

// generateHPAScaleUpRules is upstream's GenerateHPAScaleUpRules: scale up at
// once, by 4 pods or 100% per 15 seconds, whichever is more.
func generateHPAScaleUpRules(rules *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	defaults := autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptrTo(int32(0)),
		SelectPolicy:               ptrTo(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
	return copyHPAScalingRules(rules, defaults)
}

// generateHPAScaleDownRules is upstream's GenerateHPAScaleDownRules: down by
// up to 100% per 15 seconds (the stabilization window is the controller's).
func generateHPAScaleDownRules(rules *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	defaults := autoscalingv2.HPAScalingRules{
		SelectPolicy: ptrTo(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
	return copyHPAScalingRules(rules, defaults)
}

// copyHPAScalingRules overrides the defaults with what from sets (an empty
// but present policy list included: validation then refuses it).
func copyHPAScalingRules(from *autoscalingv2.HPAScalingRules, defaults autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if from == nil {
		return &defaults
	}
	if from.SelectPolicy != nil {
		defaults.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		defaults.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		defaults.Policies = from.Policies
	}
	if from.Tolerance != nil {
		defaults.Tolerance = from.Tolerance
	}
	return &defaults
}
