package validation

import (
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// validatePodDisruptionBudget is upstream's ValidatePodDisruptionBudget:
// minAvailable or maxUnavailable (not both), each a non-negative number or a
// percentage up to 100%, a valid selector, a known unhealthy-pod policy.
// The spec may be changed after creation (since policy/v1).
func validatePodDisruptionBudget(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	errs := ValidateObjectMeta(&pdb.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := &pdb.Spec
	p := field.NewPath("spec")
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(p, spec, "minAvailable and maxUnavailable cannot be both set"))
	}
	for _, f := range []struct {
		name string
		v    *intstr.IntOrString
	}{{"minAvailable", spec.MinAvailable}, {"maxUnavailable", spec.MaxUnavailable}} {
		if f.v == nil {
			continue
		}
		errs = append(errs, validatePositiveIntOrPercent(f.v, p.Child(f.name))...)
		if f.v.Type == intstr.String && len(IsValidPercent(f.v.StrVal)) == 0 && percentValue(f.v.StrVal) > 100 {
			errs = append(errs, field.Invalid(p.Child(f.name), f.v, "must not be greater than 100%"))
		}
	}
	errs = append(errs, ValidateLabelSelector(spec.Selector, p.Child("selector"))...)
	if u := spec.UnhealthyPodEvictionPolicy; u != nil && *u != policyv1.IfHealthyBudget && *u != policyv1.AlwaysAllow {
		errs = append(errs, field.NotSupported(p.Child("unhealthyPodEvictionPolicy"), *u,
			[]policyv1.UnhealthyPodEvictionPolicyType{policyv1.AlwaysAllow, policyv1.IfHealthyBudget}))
	}
	return errs
}
