package validation

import (
	"fmt"
	"strings"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/schedulingv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

func validateLease(l *coordinationv1.Lease) field.ErrorList {
	errs := ValidateObjectMeta(&l.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	p := field.NewPath("spec")
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(p.Child("leaseDurationSeconds"), *d, "must be greater than 0"))
	}
	if t := l.Spec.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, field.Invalid(p.Child("leaseTransitions"), *t, "must be greater than or equal to 0"))
	}
	return errs
}

func validateEndpointSlice(s *discoveryv1.EndpointSlice) field.ErrorList {
	errs := ValidateObjectMeta(&s.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	switch s.AddressType {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN:
	case "":
		errs = append(errs, field.Required(field.NewPath("addressType"), ""))
	default:
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), s.AddressType,
			[]discoveryv1.AddressType{discoveryv1.AddressTypeFQDN, discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6}))
	}
	for i, ep := range s.Endpoints {
		p := field.NewPath("endpoints").Index(i)
		if len(ep.Addresses) == 0 {
			errs = append(errs, field.Required(p.Child("addresses"), "must contain at least 1 address"))
		}
		if s.AddressType != discoveryv1.AddressTypeFQDN {
			for j, a := range ep.Addresses {
				errs = append(errs, validateNonSpecialIP(a, p.Child("addresses").Index(j))...)
			}
		}
	}
	for i, port := range s.Ports {
		p := field.NewPath("ports").Index(i)
		if port.Name != nil && *port.Name != "" {
			for _, msg := range IsDNS1123Label(*port.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), *port.Name, msg))
			}
		}
		if port.Protocol != nil {
			errs = append(errs, validateProtocol(*port.Protocol, p.Child("protocol"))...)
		}
	}
	return errs
}

// highestUserDefinablePriority is the largest value a user's PriorityClass may have.
const highestUserDefinablePriority = 1000000000

func validatePriorityClass(pc *schedulingv1.PriorityClass) field.ErrorList {
	errs := ValidateObjectMeta(&pc.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	system := pc.Name == schedulingv1.SystemClusterCritical || pc.Name == schedulingv1.SystemNodeCritical
	if !system {
		if strings.HasPrefix(pc.Name, "system-") {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"), "priority class names with 'system-' prefix are reserved for system use only"))
		}
		if pc.Value > highestUserDefinablePriority {
			errs = append(errs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %v", highestUserDefinablePriority)))
		}
	}
	return errs
}

func validatePriorityClassUpdate(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	var errs field.ErrorList
	if pc.Value != old.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	if !semanticEqual(pc.PreemptionPolicy, old.PreemptionPolicy) {
		errs = append(errs, field.Invalid(field.NewPath("preemptionPolicy"), pc.PreemptionPolicy, FieldImmutableErrorMsg))
	}
	return errs
}
