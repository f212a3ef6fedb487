package validation

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/nodev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// RuntimeClasses: upstream's pkg/apis/node/validation.

// validateRuntimeClass is ValidateRuntimeClass: a DNS-label handler, an
// overhead checked as container limits are (hence upstream's
// "overhead.limits[cpu]" path), and the scheduling constraints.
func validateRuntimeClass(rc *nodev1.RuntimeClass) field.ErrorList {
	errs := ValidateObjectMeta(&rc.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	for _, msg := range IsDNS1123Label(rc.Handler) {
		errs = append(errs, field.Invalid(field.NewPath("handler"), rc.Handler, msg))
	}
	if rc.Overhead != nil {
		errs = append(errs, validateResources(&corev1.ResourceRequirements{Limits: rc.Overhead.PodFixed}, field.NewPath("overhead"))...)
	}
	if s := rc.Scheduling; s != nil {
		p := field.NewPath("scheduling")
		errs = append(errs, ValidateLabels(s.NodeSelector, p.Child("nodeSelector"))...)
		errs = append(errs, validateTolerations(s.Tolerations, p.Child("tolerations"))...)
		type listKey struct {
			key, value       string
			operator, effect string
		}
		seen := map[listKey]bool{}
		for i, t := range s.Tolerations {
			k := listKey{t.Key, t.Value, string(t.Operator), string(t.Effect)}
			if seen[k] {
				errs = append(errs, field.Duplicate(p.Child("tolerations").Index(i), t))
			}
			seen[k] = true
		}
	}
	return errs
}

// validateRuntimeClassUpdate is ValidateRuntimeClassUpdate: the handler is immutable.
func validateRuntimeClassUpdate(rc, old *nodev1.RuntimeClass) field.ErrorList {
	return ValidateImmutableField(rc.Handler, old.Handler, field.NewPath("handler"))
}
