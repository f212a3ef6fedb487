package validation

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// validateReplicationController is upstream's ValidateReplicationController:
// a non-empty equality selector the template's labels match, and a template
// of pods that always restart. Unlike a ReplicaSet's, the selector may be
// changed later.
func validateReplicationController(rc *corev1.ReplicationController) field.ErrorList {
	errs := ValidateObjectMeta(&rc.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := &rc.Spec
	p := field.NewPath("spec")
	errs = append(errs, ValidateNonnegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	if len(spec.Selector) == 0 {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	}
	errs = append(errs, validateOptionalNonnegative(spec.Replicas, p.Child("replicas"))...)
	return append(errs, validatePodTemplateSpecForRC(spec.Template, spec.Selector, p.Child("template"))...)
}

// validatePodTemplateSpecForRC is upstream's function of that name.
func validatePodTemplateSpecForRC(tmpl *corev1.PodTemplateSpec, selector map[string]string, fldPath *field.Path) field.ErrorList {
	if tmpl == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var errs field.ErrorList
	if len(selector) > 0 {
		for k, v := range selector {
			if got, ok := tmpl.Labels[k]; !ok || got != v {
				errs = append(errs, field.Invalid(fldPath.Child("metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
				break
			}
		}
	}
	errs = append(errs, ValidatePodTemplateSpec(tmpl, fldPath)...)
	if tmpl.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fldPath.Child("spec", "restartPolicy"), tmpl.Spec.RestartPolicy,
			[]corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	if tmpl.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("spec", "activeDeadlineSeconds"),
			"activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return errs
}
