package validation

import (
	"fmt"
	"strings"

	"kubik/ch01-apiserver/api/apiregistrationv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// APIServices: kube-aggregator's ValidateAPIService and
// ValidateAPIServiceStatus, with its messages.

func validateAPIService(a *apiregistrationv1.APIService) field.ErrorList {
	requiredName := a.Spec.Version + "." + a.Spec.Group
	errs := ValidateObjectMeta(&a.ObjectMeta, false, func(name string, prefix bool) []string {
		if msgs := IsValidPathSegmentName(name); len(msgs) > 0 {
			return msgs
		}
		if name != requiredName {
			return []string{fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", requiredName)}
		}
		return nil
	}, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	if a.Spec.Group == "" && a.Spec.Version != "v1" {
		errs = append(errs, field.Required(spec.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if a.Spec.Group != "" {
		for _, msg := range IsDNS1123Subdomain(a.Spec.Group) {
			errs = append(errs, field.Invalid(spec.Child("group"), a.Spec.Group, msg))
		}
	}
	for _, msg := range IsDNS1035Label(a.Spec.Version) {
		errs = append(errs, field.Invalid(spec.Child("version"), a.Spec.Version, msg))
	}
	if a.Spec.GroupPriorityMinimum <= 0 || a.Spec.GroupPriorityMinimum > 20000 {
		errs = append(errs, field.Invalid(spec.Child("groupPriorityMinimum"), a.Spec.GroupPriorityMinimum, "must be positive and less than 20000"))
	}
	if a.Spec.VersionPriority <= 0 || a.Spec.VersionPriority > 1000 {
		errs = append(errs, field.Invalid(spec.Child("versionPriority"), a.Spec.VersionPriority, "must be positive and less than 1000"))
	}
	ref := a.Spec.Service
	if ref == nil {
		if len(a.Spec.CABundle) != 0 {
			errs = append(errs, field.Invalid(spec.Child("caBundle"), fmt.Sprintf("%d bytes", len(a.Spec.CABundle)), "local APIServices may not have a caBundle"))
		}
		if a.Spec.InsecureSkipTLSVerify {
			errs = append(errs, field.Invalid(spec.Child("insecureSkipTLSVerify"), a.Spec.InsecureSkipTLSVerify, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	if ref.Namespace == "" {
		errs = append(errs, field.Required(spec.Child("service", "namespace"), ""))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(spec.Child("service", "name"), ""))
	}
	var port int32
	if ref.Port != nil {
		port = *ref.Port
	}
	if msgs := IsValidPortNum(int(port)); msgs != nil {
		errs = append(errs, field.Invalid(spec.Child("service", "port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if a.Spec.InsecureSkipTLSVerify && len(a.Spec.CABundle) > 0 {
		errs = append(errs, field.Invalid(spec.Child("insecureSkipTLSVerify"), a.Spec.InsecureSkipTLSVerify, "may not be true if caBundle is present"))
	}
	return errs
}

func validateAPIServiceStatus(s *apiregistrationv1.APIServiceStatus) field.ErrorList {
	var errs field.ErrorList
	valid := []apiregistrationv1.ConditionStatus{apiregistrationv1.ConditionTrue, apiregistrationv1.ConditionFalse, apiregistrationv1.ConditionUnknown}
	for i, c := range s.Conditions {
		switch c.Status {
		case apiregistrationv1.ConditionTrue, apiregistrationv1.ConditionFalse, apiregistrationv1.ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(field.NewPath("status", "conditions").Index(i).Child("status"), c.Status, valid))
		}
	}
	return errs
}

// apiServiceUpdateErrors keeps, of the create-time checks, those the
// metadata update checks did not make: the spec's and the name's (which must
// still match spec.version and spec.group).
func apiServiceUpdateErrors(errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	for _, e := range errs {
		if e.Field == "metadata.name" || !strings.HasPrefix(e.Field, "metadata") {
			out = append(out, e)
		}
	}
	return out
}
