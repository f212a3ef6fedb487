package autoscalingv1

import (
	"encoding/json"

	v2 "kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// HorizontalPodAutoscalers are stored as autoscaling/v2. ToV2 and FromV2
// convert an autoscaling/v1 object to and from that form, as upstream's
// conversion through the internal type does (pkg/apis/autoscaling/v1/
// conversion.go): targetCPUUtilizationPercentage is the CPU utilization
// metric, and what v1 has no field for rides in annotations — the other
// metrics, the behavior, the current metrics and the conditions — so that
// a v1 client's read-modify-write keeps them.

// ToV2 converts a v1 HorizontalPodAutoscaler to v2.
func ToV2(in *HorizontalPodAutoscaler) *v2.HorizontalPodAutoscaler {
	out := &v2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: in.ObjectMeta,
	}
	out.Spec = v2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: v2.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas:    in.Spec.MinReplicas,
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	if p := in.Spec.TargetCPUUtilizationPercentage; p != nil {
		out.Spec.Metrics = []v2.MetricSpec{cpuUtilizationMetric(*p)}
	}
	out.Status = v2.HorizontalPodAutoscalerStatus{
		ObservedGeneration: in.Status.ObservedGeneration,
		LastScaleTime:      in.Status.LastScaleTime,
		CurrentReplicas:    in.Status.CurrentReplicas,
		DesiredReplicas:    in.Status.DesiredReplicas,
	}
	if p := in.Status.CurrentCPUUtilizationPercentage; p != nil {
		u := *p
		out.Status.CurrentMetrics = []v2.MetricStatus{{Type: v2.ResourceMetricSourceType,
			Resource: &v2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: v2.MetricValueStatus{AverageUtilization: &u}}}}
	}

	a := in.Annotations
	if enc, ok := a[v2.MetricSpecsAnnotation]; ok {
		var other []MetricSpec
		if json.Unmarshal([]byte(enc), &other) == nil {
			metrics := make([]v2.MetricSpec, 0, len(other)+1)
			for i := range other {
				metrics = append(metrics, metricSpecToV2(&other[i]))
			}
			metrics = append(metrics, out.Spec.Metrics...) // the CPU metric goes last
			out.Spec.Metrics = metrics
		}
	}
	if enc, ok := a[v2.BehaviorSpecsAnnotation]; ok {
		var b internalBehavior
		if json.Unmarshal([]byte(enc), &b) == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
			out.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{ScaleUp: b.ScaleUp.toV2(), ScaleDown: b.ScaleDown.toV2()}
		}
	}
	if enc, ok := a[v2.MetricStatusesAnnotation]; ok {
		var current []MetricStatus
		if json.Unmarshal([]byte(enc), &current) == nil { // they say more than currentCPUUtilizationPercentage
			out.Status.CurrentMetrics = make([]v2.MetricStatus, len(current))
			for i := range current {
				out.Status.CurrentMetrics[i] = metricStatusToV2(&current[i])
			}
		}
	}
	// autoscaling/v1's implicit default, made explicit.
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []v2.MetricSpec{cpuUtilizationMetric(v2.DefaultCPUUtilization)}
	}
	if enc, ok := a[v2.HorizontalPodAutoscalerConditionsAnnotation]; ok {
		var conditions []HorizontalPodAutoscalerCondition
		if json.Unmarshal([]byte(enc), &conditions) == nil {
			out.Status.Conditions = make([]v2.HorizontalPodAutoscalerCondition, len(conditions))
			for i, c := range conditions {
				out.Status.Conditions[i] = v2.HorizontalPodAutoscalerCondition{Type: v2.HorizontalPodAutoscalerConditionType(c.Type),
					Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message}
			}
		}
	}
	out.Annotations = v2.DropRoundTripAnnotations(out.Annotations)
	return out
}

// FromV2 converts a stored (v2) HorizontalPodAutoscaler to v1.
func FromV2(in *v2.HorizontalPodAutoscaler) *HorizontalPodAutoscaler {
	out := &HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: in.ObjectMeta,
	}
	out.Spec = HorizontalPodAutoscalerSpec{
		ScaleTargetRef: CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas:    in.Spec.MinReplicas,
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	var other []MetricSpec
	for i := range in.Spec.Metrics {
		m := &in.Spec.Metrics[i]
		if isCPUUtilization(m) {
			if out.Spec.TargetCPUUtilizationPercentage == nil {
				u := *m.Resource.Target.AverageUtilization
				out.Spec.TargetCPUUtilizationPercentage = &u
			}
			continue
		}
		other = append(other, metricSpecFromV2(m))
	}
	out.Status = HorizontalPodAutoscalerStatus{
		ObservedGeneration: in.Status.ObservedGeneration,
		LastScaleTime:      in.Status.LastScaleTime,
		CurrentReplicas:    in.Status.CurrentReplicas,
		DesiredReplicas:    in.Status.DesiredReplicas,
	}
	current := make([]MetricStatus, len(in.Status.CurrentMetrics))
	for i := range in.Status.CurrentMetrics {
		m := &in.Status.CurrentMetrics[i]
		if m.Type == v2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			u := *m.Resource.Current.AverageUtilization
			out.Status.CurrentCPUUtilizationPercentage = &u
		}
		current[i] = metricStatusFromV2(m)
	}

	annotations := v2.DropRoundTripAnnotations(in.Annotations)
	set := func(key string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		copied := make(map[string]string, len(annotations)+1)
		for k, v := range annotations {
			copied[k] = v
		}
		copied[key] = string(b)
		annotations = copied
	}
	if len(other) > 0 {
		set(v2.MetricSpecsAnnotation, other)
	}
	if len(in.Status.CurrentMetrics) > 0 {
		set(v2.MetricStatusesAnnotation, current)
	}
	if b := in.Spec.Behavior; b != nil {
		set(v2.BehaviorSpecsAnnotation, internalBehavior{ScaleUp: rulesFromV2(b.ScaleUp), ScaleDown: rulesFromV2(b.ScaleDown)})
	}
	if len(in.Status.Conditions) > 0 {
		conditions := make([]HorizontalPodAutoscalerCondition, len(in.Status.Conditions))
		for i, c := range in.Status.Conditions {
			conditions[i] = HorizontalPodAutoscalerCondition{Type: HorizontalPodAutoscalerConditionType(c.Type),
				Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message}
		}
		set(v2.HorizontalPodAutoscalerConditionsAnnotation, conditions)
	}
	out.Annotations = annotations
	return out
}

func cpuUtilizationMetric(percent int32) v2.MetricSpec {
	return v2.MetricSpec{Type: v2.ResourceMetricSourceType, Resource: &v2.ResourceMetricSource{Name: corev1.ResourceCPU,
		Target: v2.MetricTarget{Type: v2.UtilizationMetricType, AverageUtilization: &percent}}}
}

// isCPUUtilization: the one metric v1 has a field for.
func isCPUUtilization(m *v2.MetricSpec) bool {
	return m.Type == v2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU &&
		m.Resource.Target.AverageUtilization != nil
}

func ref(q resource.Quantity) *resource.Quantity { return &q }

func metricSpecToV2(in *MetricSpec) v2.MetricSpec {
	out := v2.MetricSpec{Type: v2.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		typ := v2.ValueMetricType
		if s.AverageValue != nil {
			typ = v2.AverageValueMetricType
		}
		out.Object = &v2.ObjectMetricSource{
			DescribedObject: v2.CrossVersionObjectReference(s.Target),
			Target:          v2.MetricTarget{Type: typ, Value: ref(s.TargetValue), AverageValue: s.AverageValue},
			Metric:          v2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &v2.PodsMetricSource{
			Metric: v2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Target: v2.MetricTarget{Type: v2.AverageValueMetricType, AverageValue: ref(s.TargetAverageValue)},
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &v2.ResourceMetricSource{Name: s.Name, Target: resourceTarget(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &v2.ContainerResourceMetricSource{Name: s.Name, Container: s.Container,
			Target: resourceTarget(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := in.External; s != nil {
		typ := v2.ValueMetricType
		if s.TargetValue == nil {
			typ = v2.AverageValueMetricType
		}
		out.External = &v2.ExternalMetricSource{
			Metric: v2.MetricIdentifier{Name: s.MetricName, Selector: s.MetricSelector},
			Target: v2.MetricTarget{Type: typ, Value: s.TargetValue, AverageValue: s.TargetAverageValue},
		}
	}
	return out
}

func resourceTarget(utilization *int32, averageValue *resource.Quantity) v2.MetricTarget {
	typ := v2.UtilizationMetricType
	if utilization == nil {
		typ = v2.AverageValueMetricType
	}
	return v2.MetricTarget{Type: typ, AverageUtilization: utilization, AverageValue: averageValue}
}

func metricSpecFromV2(in *v2.MetricSpec) MetricSpec {
	out := MetricSpec{Type: MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		o := &ObjectMetricSource{Target: CrossVersionObjectReference(s.DescribedObject), MetricName: s.Metric.Name,
			Selector: s.Metric.Selector, AverageValue: s.Target.AverageValue}
		if s.Target.Value != nil {
			o.TargetValue = *s.Target.Value
		}
		out.Object = o
	}
	if s := in.Pods; s != nil {
		p := &PodsMetricSource{MetricName: s.Metric.Name, Selector: s.Metric.Selector}
		if s.Target.AverageValue != nil {
			p.TargetAverageValue = *s.Target.AverageValue
		}
		out.Pods = p
	}
	if s := in.Resource; s != nil {
		out.Resource = &ResourceMetricSource{Name: s.Name, TargetAverageUtilization: s.Target.AverageUtilization,
			TargetAverageValue: s.Target.AverageValue}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &ContainerResourceMetricSource{Name: s.Name, Container: s.Container,
			TargetAverageUtilization: s.Target.AverageUtilization, TargetAverageValue: s.Target.AverageValue}
	}
	if s := in.External; s != nil {
		out.External = &ExternalMetricSource{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector,
			TargetValue: s.Target.Value, TargetAverageValue: s.Target.AverageValue}
	}
	return out
}

func metricStatusToV2(in *MetricStatus) v2.MetricStatus {
	out := v2.MetricStatus{Type: v2.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		out.Object = &v2.ObjectMetricStatus{
			Metric:          v2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current:         v2.MetricValueStatus{Value: ref(s.CurrentValue), AverageValue: s.AverageValue},
			DescribedObject: v2.CrossVersionObjectReference(s.Target),
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &v2.PodsMetricStatus{Metric: v2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current: v2.MetricValueStatus{AverageValue: ref(s.CurrentAverageValue)}}
	}
	if s := in.Resource; s != nil {
		out.Resource = &v2.ResourceMetricStatus{Name: s.Name,
			Current: v2.MetricValueStatus{AverageValue: ref(s.CurrentAverageValue), AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &v2.ContainerResourceMetricStatus{Name: s.Name, Container: s.Container,
			Current: v2.MetricValueStatus{AverageValue: ref(s.CurrentAverageValue), AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := in.External; s != nil {
		out.External = &v2.ExternalMetricStatus{Metric: v2.MetricIdentifier{Name: s.MetricName, Selector: s.MetricSelector},
			Current: v2.MetricValueStatus{Value: ref(s.CurrentValue), AverageValue: s.CurrentAverageValue}}
	}
	return out
}

func metricStatusFromV2(in *v2.MetricStatus) MetricStatus {
	out := MetricStatus{Type: MetricSourceType(in.Type)}
	value := func(q *resource.Quantity) resource.Quantity {
		if q == nil {
			return resource.Quantity{}
		}
		return *q
	}
	if s := in.Object; s != nil {
		out.Object = &ObjectMetricStatus{Target: CrossVersionObjectReference(s.DescribedObject), MetricName: s.Metric.Name,
			CurrentValue: value(s.Current.Value), Selector: s.Metric.Selector, AverageValue: s.Current.AverageValue}
	}
	if s := in.Pods; s != nil {
		out.Pods = &PodsMetricStatus{MetricName: s.Metric.Name, CurrentAverageValue: value(s.Current.AverageValue), Selector: s.Metric.Selector}
	}
	if s := in.Resource; s != nil {
		out.Resource = &ResourceMetricStatus{Name: s.Name, CurrentAverageUtilization: s.Current.AverageUtilization,
			CurrentAverageValue: value(s.Current.AverageValue)}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &ContainerResourceMetricStatus{Name: s.Name, Container: s.Container,
			CurrentAverageUtilization: s.Current.AverageUtilization, CurrentAverageValue: value(s.Current.AverageValue)}
	}
	if s := in.External; s != nil {
		out.External = &ExternalMetricStatus{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector,
			CurrentValue: value(s.Current.Value), CurrentAverageValue: s.Current.AverageValue}
	}
	return out
}

// internalBehavior is the behavior annotation's encoding: upstream
// marshals its internal type, which has no JSON tags, so the keys are the
// Go field names ({"ScaleUp":{"StabilizationWindowSeconds":0,...}}).
type internalBehavior struct {
	ScaleUp   *internalScalingRules
	ScaleDown *internalScalingRules
}

type internalScalingRules struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *v2.ScalingPolicySelect
	Policies                   []internalScalingPolicy
	Tolerance                  *resource.Quantity
}

type internalScalingPolicy struct {
	Type          v2.HPAScalingPolicyType
	Value         int32
	PeriodSeconds int32
}

func (r *internalScalingRules) toV2() *v2.HPAScalingRules {
	if r == nil {
		return nil
	}
	out := &v2.HPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
	if r.Policies != nil {
		out.Policies = make([]v2.HPAScalingPolicy, len(r.Policies))
		for i, p := range r.Policies {
			out.Policies[i] = v2.HPAScalingPolicy(p)
		}
	}
	return out
}

func rulesFromV2(r *v2.HPAScalingRules) *internalScalingRules {
	if r == nil {
		return nil
	}
	out := &internalScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
	if r.Policies != nil {
		out.Policies = make([]internalScalingPolicy, len(r.Policies))
		for i, p := range r.Policies {
			out.Policies[i] = internalScalingPolicy(p)
		}
	}
	return out
}
