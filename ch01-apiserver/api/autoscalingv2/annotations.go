package autoscalingv2

// The annotations that carry autoscaling/v2 fields through an
// autoscaling/v1 HorizontalPodAutoscaler. They exist only in v1's form of
// an object: converting to v2 (and storing) drops them. Upstream:
// pkg/apis/autoscaling/annotations.go and helpers.go.
const (
	// MetricSpecsAnnotation holds the metrics other than CPU utilization.
	MetricSpecsAnnotation = "autoscaling.alpha.kubernetes.io/metrics"
	// MetricStatusesAnnotation holds the current metrics.
	MetricStatusesAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	// HorizontalPodAutoscalerConditionsAnnotation holds the conditions.
	HorizontalPodAutoscalerConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions"
	// BehaviorSpecsAnnotation holds the scaling behavior.
	BehaviorSpecsAnnotation = "autoscaling.alpha.kubernetes.io/behavior"
	// ToleranceScaleDownAnnotation and ToleranceScaleUpAnnotation held the
	// tolerances while they were alpha; they are dropped like the others.
	ToleranceScaleDownAnnotation = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
	ToleranceScaleUpAnnotation   = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
)

// DefaultCPUUtilization is the target, in percent, of an autoscaler that
// names no metrics.
const DefaultCPUUtilization = 80

// DropRoundTripAnnotations returns annotations without the round-trip
// annotations (a copy when there were any, annotations itself otherwise).
func DropRoundTripAnnotations(annotations map[string]string) map[string]string {
	keys := []string{MetricSpecsAnnotation, BehaviorSpecsAnnotation, ToleranceScaleDownAnnotation,
		ToleranceScaleUpAnnotation, MetricStatusesAnnotation, HorizontalPodAutoscalerConditionsAnnotation}
	found := false
	for _, k := range keys {
		if _, ok := annotations[k]; ok {
			found = true
		}
	}
	if !found {
		return annotations
	}
	out := make(map[string]string, len(annotations))
	for k, v := range annotations {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}
