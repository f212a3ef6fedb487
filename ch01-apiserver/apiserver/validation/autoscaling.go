package validation

import (
	"fmt"
	"strings"

	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// HorizontalPodAutoscalers: upstream's pkg/apis/autoscaling/validation,
// applied to the autoscaling/v2 form (upstream validates its internal type,
// which has v2's shape, so an autoscaling/v1 request is reported with v2's
// field paths: spec.metrics[0].resource.target.averageUtilization).

const (
	maxPeriodSeconds              = 1800
	maxStabilizationWindowSeconds = 3600
)

var (
	validMetricSourceTypes = []autoscalingv2.MetricSourceType{autoscalingv2.ContainerResourceMetricSourceType,
		autoscalingv2.ExternalMetricSourceType, autoscalingv2.ObjectMetricSourceType, autoscalingv2.PodsMetricSourceType,
		autoscalingv2.ResourceMetricSourceType}
	validSelectPolicies = []autoscalingv2.ScalingPolicySelect{autoscalingv2.DisabledPolicySelect,
		autoscalingv2.MaxChangePolicySelect, autoscalingv2.MinChangePolicySelect}
	validScalingPolicyTypes = []autoscalingv2.HPAScalingPolicyType{autoscalingv2.PercentScalingPolicy, autoscalingv2.PodsScalingPolicy}
)

// crossVersionObjectReferenceOptions is upstream's
// CrossVersionObjectReferenceValidationOptions.
type crossVersionObjectReferenceOptions struct {
	allowEmptyAPIGroup     bool
	allowInvalidAPIVersion bool
}

// validateHorizontalPodAutoscaler is ValidateHorizontalPodAutoscaler (old
// nil) and ValidateHorizontalPodAutoscalerUpdate.
func validateHorizontalPodAutoscaler(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	var errs field.ErrorList
	if old == nil {
		errs = ValidateObjectMeta(&hpa.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	}
	// validationOptionsForHorizontalPodAutoscaler: the lower bound is 1
	// (scale to zero is an alpha feature) unless the stored object already
	// has 0; the target must name its API group, except a
	// ReplicationController's, or unless the stored object's did not.
	minReplicas := int32(1)
	target := crossVersionObjectReferenceOptions{allowEmptyAPIGroup: hpa.Spec.ScaleTargetRef.Kind == "ReplicationController"}
	if old != nil {
		if old.Spec.MinReplicas != nil && *old.Spec.MinReplicas == 0 {
			minReplicas = 0
		}
		if validateAPIVersion(old.Spec.ScaleTargetRef.APIVersion, target) != "" {
			target.allowInvalidAPIVersion = true
		}
	}
	spec := &hpa.Spec
	p := field.NewPath("spec")
	if spec.MinReplicas != nil && *spec.MinReplicas < minReplicas {
		errs = append(errs, field.Invalid(p.Child("minReplicas"), *spec.MinReplicas, fmt.Sprintf("must be greater than or equal to %d", minReplicas)))
	}
	if spec.MaxReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), spec.MaxReplicas, "must be greater than 0"))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	errs = append(errs, validateCrossVersionObjectReference(spec.ScaleTargetRef, p.Child("scaleTargetRef"), target)...)
	errs = append(errs, validateMetrics(spec.Metrics, p.Child("metrics"), spec.MinReplicas)...)
	if b := spec.Behavior; b != nil {
		errs = append(errs, validateScalingRules(b.ScaleUp, p.Child("behavior", "scaleUp"))...)
		errs = append(errs, validateScalingRules(b.ScaleDown, p.Child("behavior", "scaleDown"))...)
	}
	if old != nil {
		errs = append(errs, ValidateNonnegativeField(int64(hpa.Status.CurrentReplicas), field.NewPath("status", "currentReplicas"))...)
		errs = append(errs, ValidateNonnegativeField(int64(hpa.Status.DesiredReplicas), field.NewPath("status", "desiredReplicas"))...)
	}
	return errs
}

// validateAPIVersion is ValidateAPIVersion: "" if apiVersion is acceptable.
func validateAPIVersion(apiVersion string, opts crossVersionObjectReferenceOptions) string {
	if opts.allowInvalidAPIVersion {
		return ""
	}
	group := ""
	if apiVersion != "" && apiVersion != "/" {
		switch strings.Count(apiVersion, "/") {
		case 0:
		case 1:
			group, _, _ = strings.Cut(apiVersion, "/")
		default:
			return "unexpected GroupVersion string: " + apiVersion
		}
	}
	if !opts.allowEmptyAPIGroup && group == "" {
		return "apiVersion must specify API group"
	}
	return ""
}

// validateCrossVersionObjectReference is ValidateCrossVersionObjectReference.
func validateCrossVersionObjectReference(ref autoscalingv2.CrossVersionObjectReference, fldPath *field.Path, opts crossVersionObjectReferenceOptions) field.ErrorList {
	errs := validatePathSegmentField(ref.Kind, fldPath.Child("kind"))
	errs = append(errs, validatePathSegmentField(ref.Name, fldPath.Child("name"))...)
	if msg := validateAPIVersion(ref.APIVersion, opts); msg != "" {
		errs = append(errs, field.Invalid(fldPath.Child("apiVersion"), ref.APIVersion, msg))
	}
	return errs
}

func validateMetrics(metrics []autoscalingv2.MetricSpec, fldPath *field.Path, minReplicas *int32) field.ErrorList {
	var errs field.ErrorList
	objectOrExternal := false
	for i := range metrics {
		errs = append(errs, validateMetricSpec(&metrics[i], fldPath.Index(i))...)
		if t := metrics[i].Type; t == autoscalingv2.ObjectMetricSourceType || t == autoscalingv2.ExternalMetricSourceType {
			objectOrExternal = true
		}
	}
	if minReplicas != nil && *minReplicas == 0 && !objectOrExternal {
		errs = append(errs, field.Forbidden(fldPath, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return errs
}

// validateMetricSpec: a known type, and exactly the source that type names.
func validateMetricSpec(spec *autoscalingv2.MetricSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Type == "" {
		errs = append(errs, field.Required(fldPath.Child("type"), "must specify a metric source type"))
	}
	known := false
	for _, t := range validMetricSourceTypes {
		known = known || spec.Type == t
	}
	if !known {
		errs = append(errs, field.NotSupported(fldPath.Child("type"), spec.Type, validMetricSourceTypes))
	}
	var present []string
	if spec.Object != nil {
		if present = append(present, "object"); len(present) == 1 {
			errs = append(errs, validateObjectSource(spec.Object, fldPath.Child("object"))...)
		}
	}
	if spec.External != nil {
		if present = append(present, "external"); len(present) == 1 {
			errs = append(errs, validateExternalSource(spec.External, fldPath.Child("external"))...)
		}
	}
	if spec.Pods != nil {
		if present = append(present, "pods"); len(present) == 1 {
			errs = append(errs, validatePodsSource(spec.Pods, fldPath.Child("pods"))...)
		}
	}
	if spec.Resource != nil {
		if present = append(present, "resource"); len(present) == 1 {
			errs = append(errs, validateResourceSource(spec.Resource.Name, spec.Resource.Target, fldPath.Child("resource"))...)
		}
	}
	if spec.ContainerResource != nil {
		if present = append(present, "containerResource"); len(present) == 1 {
			errs = append(errs, validateContainerResourceSource(spec.ContainerResource, fldPath.Child("containerResource"))...)
		}
	}
	expected := ""
	missing := false
	switch spec.Type {
	case autoscalingv2.ObjectMetricSourceType:
		expected, missing = "object", spec.Object == nil
	case autoscalingv2.PodsMetricSourceType:
		expected, missing = "pods", spec.Pods == nil
	case autoscalingv2.ResourceMetricSourceType:
		expected, missing = "resource", spec.Resource == nil
	case autoscalingv2.ExternalMetricSourceType:
		expected, missing = "external", spec.External == nil
	case autoscalingv2.ContainerResourceMetricSourceType:
		expected, missing = "containerResource", spec.ContainerResource == nil
	}
	if missing {
		errs = append(errs, field.Required(fldPath.Child(expected), "must populate information for the given metric source"))
	}
	if len(present) > 1 {
		for _, t := range present {
			if t != expected {
				errs = append(errs, field.Forbidden(fldPath.Child(t), "must populate the given metric source only"))
			}
		}
	}
	return errs
}

func validateObjectSource(src *autoscalingv2.ObjectMetricSource, fldPath *field.Path) field.ErrorList {
	errs := validateCrossVersionObjectReference(src.DescribedObject, fldPath.Child("describedObject"), crossVersionObjectReferenceOptions{allowEmptyAPIGroup: true})
	errs = append(errs, validateMetricIdentifier(src.Metric, fldPath.Child("metric"))...)
	errs = append(errs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, field.Required(fldPath.Child("target", "averageValue"), "must set either a target value or averageValue"))
	}
	return errs
}

func validateExternalSource(src *autoscalingv2.ExternalMetricSource, fldPath *field.Path) field.ErrorList {
	errs := validateMetricIdentifier(src.Metric, fldPath.Child("metric"))
	errs = append(errs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, field.Required(fldPath.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target"))
	}
	if src.Target.Value != nil && src.Target.AverageValue != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("target", "value"), "may not set both a target value for metric and a per-pod target"))
	}
	return errs
}

func validatePodsSource(src *autoscalingv2.PodsMetricSource, fldPath *field.Path) field.ErrorList {
	errs := validateMetricIdentifier(src.Metric, fldPath.Child("metric"))
	errs = append(errs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.AverageValue == nil {
		errs = append(errs, field.Required(fldPath.Child("target", "averageValue"), "must specify a positive target averageValue"))
	}
	return errs
}

func validateContainerResourceSource(src *autoscalingv2.ContainerResourceMetricSource, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if src.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), "must specify a resource name"))
	} else {
		errs = append(errs, validateQualifiedName(string(src.Name), fldPath.Child("name"))...)
	}
	if src.Container == "" {
		errs = append(errs, field.Required(fldPath.Child("container"), "must specify a container"))
	} else {
		for _, msg := range IsDNS1123Label(src.Container) {
			errs = append(errs, field.Invalid(fldPath.Child("container"), src.Container, msg))
		}
	}
	return append(errs, validateResourceTarget(src.Target, fldPath)...)
}

func validateResourceSource(name corev1.ResourceName, target autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), "must specify a resource name"))
	}
	return append(errs, validateResourceTarget(target, fldPath)...)
}

func validateResourceTarget(target autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	errs := validateMetricTarget(target, fldPath.Child("target"))
	if target.AverageUtilization == nil && target.AverageValue == nil {
		errs = append(errs, field.Required(fldPath.Child("target", "averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if target.AverageUtilization != nil && target.AverageValue != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("target", "averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

func validateMetricTarget(mt autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if mt.Type == "" {
		errs = append(errs, field.Required(fldPath.Child("type"), "must specify a metric target type"))
	}
	if mt.Type != autoscalingv2.UtilizationMetricType && mt.Type != autoscalingv2.ValueMetricType && mt.Type != autoscalingv2.AverageValueMetricType {
		errs = append(errs, field.Invalid(fldPath.Child("type"), mt.Type, "must be either Utilization, Value, or AverageValue"))
	}
	errs = append(errs, positiveQuantity(mt.Value, fldPath.Child("value"))...)
	errs = append(errs, positiveQuantity(mt.AverageValue, fldPath.Child("averageValue"))...)
	if mt.AverageUtilization != nil && *mt.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(fldPath.Child("averageUtilization"), *mt.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

func positiveQuantity(q *resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q != nil && q.Sign() != 1 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), "must be positive")}
	}
	return nil
}

func validateMetricIdentifier(id autoscalingv2.MetricIdentifier, fldPath *field.Path) field.ErrorList {
	if id.Name == "" {
		return field.ErrorList{field.Required(fldPath.Child("name"), "must specify a metric name")}
	}
	var errs field.ErrorList
	for _, msg := range IsValidPathSegmentName(id.Name) {
		errs = append(errs, field.Invalid(fldPath.Child("name"), id.Name, msg))
	}
	return errs
}

func validateScalingRules(rules *autoscalingv2.HPAScalingRules, fldPath *field.Path) field.ErrorList {
	if rules == nil {
		return nil
	}
	var errs field.ErrorList
	if w := rules.StabilizationWindowSeconds; w != nil {
		if *w < 0 {
			errs = append(errs, field.Invalid(fldPath.Child("stabilizationWindowSeconds"), *w, "must be greater than or equal to zero"))
		}
		if *w > maxStabilizationWindowSeconds {
			errs = append(errs, field.Invalid(fldPath.Child("stabilizationWindowSeconds"), *w,
				fmt.Sprintf("must be less than or equal to %v", maxStabilizationWindowSeconds)))
		}
	}
	if sp := rules.SelectPolicy; sp != nil && *sp != autoscalingv2.MaxChangePolicySelect && *sp != autoscalingv2.MinChangePolicySelect && *sp != autoscalingv2.DisabledPolicySelect {
		errs = append(errs, field.NotSupported(fldPath.Child("selectPolicy"), *sp, validSelectPolicies))
	}
	if len(rules.Policies) == 0 {
		errs = append(errs, field.Required(fldPath.Child("policies"), "must specify at least one Policy"))
	}
	for i, policy := range rules.Policies {
		p := fldPath.Child("policies").Index(i)
		if policy.Type != autoscalingv2.PodsScalingPolicy && policy.Type != autoscalingv2.PercentScalingPolicy {
			errs = append(errs, field.NotSupported(p.Child("type"), policy.Type, validScalingPolicyTypes))
		}
		if policy.Value <= 0 {
			errs = append(errs, field.Invalid(p.Child("value"), policy.Value, "must be greater than zero"))
		}
		if policy.PeriodSeconds <= 0 {
			errs = append(errs, field.Invalid(p.Child("periodSeconds"), policy.PeriodSeconds, "must be greater than zero"))
		}
		if policy.PeriodSeconds > maxPeriodSeconds {
			errs = append(errs, field.Invalid(p.Child("periodSeconds"), policy.PeriodSeconds,
				fmt.Sprintf("must be less than or equal to %v", maxPeriodSeconds)))
		}
	}
	if t := rules.Tolerance; t != nil && t.Sign() < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("tolerance"), t.String(), "must be greater than or equal to 0"))
	}
	return errs
}
