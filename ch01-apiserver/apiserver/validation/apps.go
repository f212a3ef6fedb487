package validation

import (
	"encoding/json"
	"reflect"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// validateSelectorAndTemplate is the part every workload shares: a non-empty
// selector that matches the template's labels, pods that always restart.
func validateSelectorAndTemplate(kind string, selector *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if selector == nil {
		errs = append(errs, field.Required(fldPath.Child("selector"), ""))
	} else {
		errs = append(errs, ValidateLabelSelector(selector, fldPath.Child("selector"))...)
		if len(selector.MatchLabels)+len(selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(fldPath.Child("selector"), selector, "empty selector is invalid for "+kind))
		} else if !selectorMatches(selector, tmpl.Labels) {
			errs = append(errs, field.Invalid(fldPath.Child("template", "metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
		}
	}
	errs = append(errs, ValidatePodTemplateSpec(tmpl, fldPath.Child("template"))...)
	if tmpl.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fldPath.Child("template", "spec", "restartPolicy"), tmpl.Spec.RestartPolicy,
			[]corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	return errs
}

func validateActiveDeadlineInTemplate(kindName string, tmpl *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	if tmpl.Spec.ActiveDeadlineSeconds != nil {
		return field.ErrorList{field.Forbidden(fldPath.Child("template", "spec", "activeDeadlineSeconds"),
			"activeDeadlineSeconds in "+kindName+" is not Supported")}
	}
	return nil
}

func validateOptionalNonnegative(v *int32, fldPath *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	return ValidateNonnegativeField(int64(*v), fldPath)
}

func validateDeployment(d *appsv1.Deployment) field.ErrorList {
	errs := ValidateObjectMeta(&d.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := &d.Spec
	p := field.NewPath("spec")
	errs = append(errs, validateOptionalNonnegative(spec.Replicas, p.Child("replicas"))...)
	errs = append(errs, validateSelectorAndTemplate("deployment", spec.Selector, &spec.Template, p)...)
	errs = append(errs, validateActiveDeadlineInTemplate("ReplicaSet", &spec.Template, p)...)
	errs = append(errs, validateDeploymentStrategy(&spec.Strategy, p.Child("strategy"))...)
	errs = append(errs, ValidateNonnegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, validateOptionalNonnegative(spec.RevisionHistoryLimit, p.Child("revisionHistoryLimit"))...)
	if pds := spec.ProgressDeadlineSeconds; pds != nil {
		errs = append(errs, ValidateNonnegativeField(int64(*pds), p.Child("progressDeadlineSeconds"))...)
		if *pds <= spec.MinReadySeconds {
			errs = append(errs, field.Invalid(p.Child("progressDeadlineSeconds"), *pds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func validateDeploymentStrategy(s *appsv1.DeploymentStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(fldPath.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(fldPath.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return validateRollingUpdate(s.RollingUpdate.MaxUnavailable, s.RollingUpdate.MaxSurge, fldPath.Child("rollingUpdate"))
	default:
		return field.ErrorList{field.NotSupported(fldPath.Child("type"), s.Type, []string{
			string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)})}
	}
	return nil
}

// validateRollingUpdate checks maxUnavailable and maxSurge: non-negative
// numbers or percentages, maxUnavailable at most 100%, not both zero.
func validateRollingUpdate(maxUnavailable, maxSurge *intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	zero := func(v *intstr.IntOrString) bool {
		return v == nil || (v.Type == intstr.Int && v.IntVal == 0) || (v.Type == intstr.String && percentValue(v.StrVal) == 0)
	}
	errs = append(errs, validatePositiveIntOrPercent(maxUnavailable, fldPath.Child("maxUnavailable"))...)
	errs = append(errs, validatePositiveIntOrPercent(maxSurge, fldPath.Child("maxSurge"))...)
	if maxUnavailable != nil && maxUnavailable.Type == intstr.String && percentValue(maxUnavailable.StrVal) > 100 {
		errs = append(errs, field.Invalid(fldPath.Child("maxUnavailable"), maxUnavailable, "must not be greater than 100%"))
	}
	if zero(maxUnavailable) && zero(maxSurge) {
		errs = append(errs, field.Invalid(fldPath.Child("maxUnavailable"), maxUnavailable, "may not be 0 when `maxSurge` is 0"))
	}
	return errs
}

func validatePositiveIntOrPercent(v *intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	if v.Type == intstr.String {
		if len(IsValidPercent(v.StrVal)) > 0 {
			return field.ErrorList{field.Invalid(fldPath, v, "must be an integer or percentage (e.g '5%')")}
		}
		return ValidateNonnegativeField(int64(percentValue(v.StrVal)), fldPath)
	}
	return ValidateNonnegativeField(int64(v.IntVal), fldPath)
}

func percentValue(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func validateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	errs := ValidateObjectMeta(&rs.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	p := field.NewPath("spec")
	errs = append(errs, validateOptionalNonnegative(rs.Spec.Replicas, p.Child("replicas"))...)
	errs = append(errs, ValidateNonnegativeField(int64(rs.Spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, validateSelectorAndTemplate("deployment", rs.Spec.Selector, &rs.Spec.Template, p)...)
	return append(errs, validateActiveDeadlineInTemplate("ReplicaSet", &rs.Spec.Template, p)...)
}

func validateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	errs := ValidateObjectMeta(&ds.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	p := field.NewPath("spec")
	errs = append(errs, validateSelectorAndTemplate("daemonset", ds.Spec.Selector, &ds.Spec.Template, p)...)
	errs = append(errs, validateActiveDeadlineInTemplate("DaemonSet", &ds.Spec.Template, p)...)
	errs = append(errs, ValidateNonnegativeField(int64(ds.Spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, validateOptionalNonnegative(ds.Spec.RevisionHistoryLimit, p.Child("revisionHistoryLimit"))...)
	s := &ds.Spec.UpdateStrategy
	switch s.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if s.RollingUpdate == nil {
			errs = append(errs, field.Required(p.Child("updateStrategy", "rollingUpdate"), ""))
		} else {
			errs = append(errs, validateRollingUpdate(s.RollingUpdate.MaxUnavailable, s.RollingUpdate.MaxSurge, p.Child("updateStrategy", "rollingUpdate"))...)
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("updateStrategy", "type"), s.Type, []string{
			string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)}))
	}
	return errs
}

func validateStatefulSet(ss *appsv1.StatefulSet) field.ErrorList {
	errs := ValidateObjectMeta(&ss.ObjectMeta, true, NameIsDNSLabel, field.NewPath("metadata"))
	p := field.NewPath("spec")
	switch ss.Spec.PodManagementPolicy {
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	case "":
		errs = append(errs, field.Required(p.Child("podManagementPolicy"), ""))
	default:
		errs = append(errs, field.Invalid(p.Child("podManagementPolicy"), ss.Spec.PodManagementPolicy,
			"must be 'OrderedReady' or 'Parallel'"))
	}
	switch ss.Spec.UpdateStrategy.Type {
	case appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType:
	case "":
		errs = append(errs, field.Required(p.Child("updateStrategy"), ""))
	default:
		errs = append(errs, field.Invalid(p.Child("updateStrategy"), ss.Spec.UpdateStrategy,
			"must be 'RollingUpdate' or 'OnDelete'"))
	}
	errs = append(errs, validateOptionalNonnegative(ss.Spec.Replicas, p.Child("replicas"))...)
	errs = append(errs, ValidateNonnegativeField(int64(ss.Spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, validateStatefulSetSelectorAndTemplate(ss.Spec.Selector, &ss.Spec.Template, p)...)
	return append(errs, validateActiveDeadlineInTemplate("StatefulSet", &ss.Spec.Template, p)...)
}

// validateStatefulSetSelectorAndTemplate is validateSelectorAndTemplate
// without the pod spec's validation, as upstream's
// ValidatePodTemplateSpecForStatefulSet: a container may mount a volume
// that only the volumeClaimTemplates name (the controller adds it to each
// pod, and the pod is validated when it is created). The template's
// labels and annotations are checked, at upstream's paths.
func validateStatefulSetSelectorAndTemplate(selector *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if selector == nil {
		errs = append(errs, field.Required(fldPath.Child("selector"), ""))
	} else {
		errs = append(errs, ValidateLabelSelector(selector, fldPath.Child("selector"))...)
		if len(selector.MatchLabels)+len(selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(fldPath.Child("selector"), selector, "empty selector is invalid for statefulset"))
		} else if !selectorMatches(selector, tmpl.Labels) {
			errs = append(errs, field.Invalid(fldPath.Child("template", "metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
		}
	}
	errs = append(errs, ValidateLabels(tmpl.Labels, fldPath.Child("template", "labels"))...)
	errs = append(errs, ValidateAnnotations(tmpl.Annotations, fldPath.Child("template", "annotations"))...)
	if tmpl.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fldPath.Child("template", "spec", "restartPolicy"), tmpl.Spec.RestartPolicy,
			[]corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	return errs
}

// validateStatefulSetUpdate: only these spec fields may change.
func validateStatefulSetUpdate(ss, old *appsv1.StatefulSet) field.ErrorList {
	a, b := ss.Spec, old.Spec
	a.Replicas, a.Ordinals, a.Template, a.UpdateStrategy, a.PersistentVolumeClaimRetentionPolicy, a.MinReadySeconds, a.RevisionHistoryLimit =
		b.Replicas, b.Ordinals, b.Template, b.UpdateStrategy, b.PersistentVolumeClaimRetentionPolicy, b.MinReadySeconds, b.RevisionHistoryLimit
	if !semanticEqual(a, b) {
		return field.ErrorList{field.Forbidden(field.NewPath("spec"), "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")}
	}
	return nil
}

// validateControllerRevision is upstream's ValidateControllerRevisionCreate:
// the revision is not negative and the data is there.
func validateControllerRevision(cr *appsv1.ControllerRevision) field.ErrorList {
	errs := ValidateObjectMeta(&cr.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, ValidateNonnegativeField(cr.Revision, field.NewPath("revision"))...)
	if raw := cr.Data.Raw; len(raw) == 0 || string(raw) == "null" {
		errs = append(errs, field.Required(field.NewPath("data"), "data is mandatory"))
	}
	return errs
}

// validateControllerRevisionUpdate: a revision's data never changes.
func validateControllerRevisionUpdate(cr, old *appsv1.ControllerRevision) field.ErrorList {
	errs := withoutMetadata(validateControllerRevision(cr))
	if !sameJSON(cr.Data.Raw, old.Data.Raw) {
		errs = append(errs, field.Invalid(field.NewPath("data"), cr.Data, FieldImmutableErrorMsg))
	}
	return errs
}

// sameJSON reports whether two documents hold the same value, whatever
// their key order and spacing.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return reflect.DeepEqual(x, y)
}
