package validation

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// validateService is ValidateService: Services are named by DNS-1035 labels
// (their names become DNS names and environment variables).
func validateService(svc *corev1.Service) field.ErrorList {
	errs := ValidateObjectMeta(&svc.ObjectMeta, true, NameIsDNS1035Label, field.NewPath("metadata"))
	spec := &svc.Spec
	specPath := field.NewPath("spec")
	headless := spec.ClusterIP == "None"
	if len(spec.Ports) == 0 && !headless && spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(specPath.Child("ports"), ""))
	}
	switch spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeExternalName:
	case "":
		errs = append(errs, field.Required(specPath.Child("type"), ""))
	default:
		errs = append(errs, field.NotSupported(specPath.Child("type"), spec.Type, []corev1.ServiceType{
			corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort}))
	}
	if spec.Type == corev1.ServiceTypeExternalName {
		if spec.ExternalName == "" {
			errs = append(errs, field.Required(specPath.Child("externalName"), ""))
		}
	}
	names := map[string]bool{}
	for i, sp := range spec.Ports {
		p := specPath.Child("ports").Index(i)
		if len(spec.Ports) > 1 && sp.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else if sp.Name != "" {
			for _, msg := range IsDNS1123Label(sp.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), sp.Name, msg))
			}
			if names[sp.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), sp.Name))
			}
			names[sp.Name] = true
		}
		for _, msg := range IsValidPortNum(int(sp.Port)) {
			errs = append(errs, field.Invalid(p.Child("port"), sp.Port, msg))
		}
		errs = append(errs, validateProtocol(sp.Protocol, p.Child("protocol"))...)
		if sp.TargetPort.Type == intstr.Int {
			for _, msg := range IsValidPortNum(int(sp.TargetPort.IntVal)) {
				errs = append(errs, field.Invalid(p.Child("targetPort"), sp.TargetPort, msg))
			}
		} else {
			for _, msg := range IsValidPortName(sp.TargetPort.StrVal) {
				errs = append(errs, field.Invalid(p.Child("targetPort"), sp.TargetPort, msg))
			}
		}
		if spec.Type == corev1.ServiceTypeClusterIP && sp.NodePort != 0 {
			errs = append(errs, field.Forbidden(p.Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
		}
		if sp.NodePort != 0 {
			for _, msg := range IsValidPortNum(int(sp.NodePort)) {
				errs = append(errs, field.Invalid(p.Child("nodePort"), sp.NodePort, msg))
			}
		}
	}
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityNone, corev1.ServiceAffinityClientIP:
	case "":
		errs = append(errs, field.Required(specPath.Child("sessionAffinity"), ""))
	default:
		errs = append(errs, field.NotSupported(specPath.Child("sessionAffinity"), spec.SessionAffinity,
			[]corev1.ServiceAffinity{corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone}))
	}
	errs = append(errs, ValidateLabels(spec.Selector, specPath.Child("selector"))...)
	errs = append(errs, validateServiceExternalTrafficPolicy(svc)...)
	if ip := spec.ClusterIP; ip != "" && ip != "None" {
		errs = append(errs, IsValidIP(specPath.Child("clusterIPs").Index(0), ip)...)
	}
	return errs
}

// validateServiceUpdate: the cluster IP cannot change once allocated. An
// empty clusterIP in the update means "keep it" (the registry fills it in).
func validateServiceUpdate(svc, old *corev1.Service) field.ErrorList {
	errs := ValidateObjectMetaUpdate(&svc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateService(svc)...)
	if old.Spec.ClusterIP != "" && svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != old.Spec.ClusterIP &&
		svc.Spec.Type != corev1.ServiceTypeExternalName && old.Spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIP"), svc.Spec.ClusterIP, FieldImmutableErrorMsg))
	}
	return errs
}

// validateServiceExternalTrafficPolicy is upstream's: the policy belongs to
// Services reachable from outside (node ports or external IPs), the health
// check node port to LoadBalancers with the Local policy.
func validateServiceExternalTrafficPolicy(svc *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	spec, specPath := &svc.Spec, field.NewPath("spec")
	externallyAccessible := spec.Type == corev1.ServiceTypeNodePort || spec.Type == corev1.ServiceTypeLoadBalancer ||
		(spec.Type == corev1.ServiceTypeClusterIP && len(spec.ExternalIPs) > 0)
	if !externallyAccessible {
		if spec.ExternalTrafficPolicy != "" {
			errs = append(errs, field.Invalid(specPath.Child("externalTrafficPolicy"), spec.ExternalTrafficPolicy,
				"may only be set for externally-accessible services"))
		}
	} else {
		switch spec.ExternalTrafficPolicy {
		case corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal:
		case "":
			errs = append(errs, field.Required(specPath.Child("externalTrafficPolicy"), ""))
		default:
			errs = append(errs, field.NotSupported(specPath.Child("externalTrafficPolicy"), spec.ExternalTrafficPolicy,
				[]corev1.ServiceExternalTrafficPolicy{corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal}))
		}
	}
	needsHealthCheck := spec.Type == corev1.ServiceTypeLoadBalancer && spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	if !needsHealthCheck && spec.HealthCheckNodePort != 0 {
		errs = append(errs, field.Invalid(specPath.Child("healthCheckNodePort"), spec.HealthCheckNodePort,
			"may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
	}
	return errs
}
