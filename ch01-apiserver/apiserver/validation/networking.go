package validation

import (
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Ingresses, IngressClasses and NetworkPolicies: upstream's
// pkg/apis/networking/validation.

const maxLenIngressClassController = 250

var (
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
	supportedPathTypes   = []networkingv1.PathType{networkingv1.PathTypeExact, networkingv1.PathTypeImplementationSpecific, networkingv1.PathTypePrefix}
)

// validateNetworkPolicy is ValidateNetworkPolicy.
func validateNetworkPolicy(np *networkingv1.NetworkPolicy) field.ErrorList {
	errs := ValidateObjectMeta(&np.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateNetworkPolicySpec(&np.Spec, field.NewPath("spec"))...)
}

func validateNetworkPolicySpec(spec *networkingv1.NetworkPolicySpec, fldPath *field.Path) field.ErrorList {
	errs := ValidateLabelSelector(&spec.PodSelector, fldPath.Child("podSelector"))
	for i, rule := range spec.Ingress {
		p := fldPath.Child("ingress").Index(i)
		for j := range rule.Ports {
			errs = append(errs, validateNetworkPolicyPort(&rule.Ports[j], p.Child("ports").Index(j))...)
		}
		for j := range rule.From {
			errs = append(errs, validateNetworkPolicyPeer(&rule.From[j], p.Child("from").Index(j))...)
		}
	}
	for i, rule := range spec.Egress {
		p := fldPath.Child("egress").Index(i)
		for j := range rule.Ports {
			errs = append(errs, validateNetworkPolicyPort(&rule.Ports[j], p.Child("ports").Index(j))...)
		}
		for j := range rule.To {
			errs = append(errs, validateNetworkPolicyPeer(&rule.To[j], p.Child("to").Index(j))...)
		}
	}
	allowed := []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}
	if len(spec.PolicyTypes) > len(allowed) {
		return append(errs, field.Invalid(fldPath.Child("policyTypes"), spec.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range spec.PolicyTypes {
		if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
			errs = append(errs, field.NotSupported(fldPath.Child("policyTypes").Index(i), t, allowed))
		}
	}
	return errs
}

// validateNetworkPolicyPort is ValidateNetworkPolicyPort.
func validateNetworkPolicyPort(port *networkingv1.NetworkPolicyPort, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if p := port.Protocol; p != nil && *p != corev1.ProtocolTCP && *p != corev1.ProtocolUDP && *p != corev1.ProtocolSCTP {
		errs = append(errs, field.NotSupported(fldPath.Child("protocol"), *p, []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}))
	}
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(fldPath.Child("endPort"), *port.EndPort, "may not be specified when `port` is not specified"))
		}
	case port.Port.Type == intstr.Int:
		for _, msg := range IsValidPortNum(int(port.Port.IntVal)) {
			errs = append(errs, field.Invalid(fldPath.Child("port"), port.Port.IntVal, msg))
		}
		if port.EndPort != nil {
			if *port.EndPort < port.Port.IntVal {
				// (upstream reports the port's value here, not endPort's)
				errs = append(errs, field.Invalid(fldPath.Child("endPort"), port.Port.IntVal, "must be greater than or equal to `port`"))
			}
			for _, msg := range IsValidPortNum(int(*port.EndPort)) {
				errs = append(errs, field.Invalid(fldPath.Child("endPort"), *port.EndPort, msg))
			}
		}
	default:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(fldPath.Child("endPort"), *port.EndPort, "may not be specified when `port` is non-numeric"))
		}
		for _, msg := range IsValidPortName(port.Port.StrVal) {
			errs = append(errs, field.Invalid(fldPath.Child("port"), port.Port.StrVal, msg))
		}
	}
	return errs
}

// validateNetworkPolicyPeer is ValidateNetworkPolicyPeer: exactly one kind
// of peer, or pod and namespace selectors together.
func validateNetworkPolicyPeer(peer *networkingv1.NetworkPolicyPeer, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	if peer.PodSelector != nil {
		n++
		errs = append(errs, ValidateLabelSelector(peer.PodSelector, fldPath.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		n++
		errs = append(errs, ValidateLabelSelector(peer.NamespaceSelector, fldPath.Child("namespaceSelector"))...)
	}
	if peer.IPBlock != nil {
		n++
		errs = append(errs, validateIPBlock(peer.IPBlock, fldPath.Child("ipBlock"))...)
	}
	if n == 0 {
		errs = append(errs, field.Required(fldPath, "must specify a peer"))
	} else if n > 1 && peer.IPBlock != nil {
		errs = append(errs, field.Forbidden(fldPath, "may not specify both ipBlock and another peer"))
	}
	return errs
}

// validateIPBlock is ValidateIPBlock: a CIDR, and excepts strictly inside it.
func validateIPBlock(b *networkingv1.IPBlock, fldPath *field.Path) field.ErrorList {
	if b.CIDR == "" {
		return field.ErrorList{field.Required(fldPath.Child("cidr"), "")}
	}
	errs := isValidCIDRForLegacyField(fldPath.Child("cidr"), b.CIDR)
	_, cidr, err := net.ParseCIDR(b.CIDR)
	if err != nil {
		return errs
	}
	cidrLen, _ := cidr.Mask.Size()
	for i, s := range b.Except {
		p := fldPath.Child("except").Index(i)
		errs = append(errs, isValidCIDRForLegacyField(p, s)...)
		_, except, err := net.ParseCIDR(s)
		if err != nil {
			continue
		}
		exceptLen, _ := except.Mask.Size()
		if !cidr.Contains(except.IP) || cidrLen >= exceptLen {
			errs = append(errs, field.Invalid(p, s, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// isValidCIDRForLegacyField is IsValidCIDRForLegacyField without the
// strict-validation gate: any parseable CIDR (not necessarily canonical,
// "10.0.0.1/8" too) that is not an IPv4-mapped IPv6 one.
func isValidCIDRForLegacyField(fldPath *field.Path, value string) field.ErrorList {
	if _, err := netip.ParsePrefix(value); err != nil {
		if _, _, err := net.ParseCIDR(value); err != nil {
			return field.ErrorList{field.Invalid(fldPath, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")}
		}
	}
	return nil
}

// validateIngress is ValidateIngressCreate (old nil) and ValidateIngressUpdate.
func validateIngress(ing, old *networkingv1.Ingress) field.ErrorList {
	errs := ValidateObjectMeta(&ing.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateIngressSpec(&ing.Spec, field.NewPath("spec"), old)...)
	if old == nil {
		if v, ok := ing.Annotations[networkingv1.AnnotationIngressClass]; ok && ing.Spec.IngressClassName != nil && v != *ing.Spec.IngressClassName {
			errs = append(errs, field.Invalid(field.NewPath("annotations").Child(networkingv1.AnnotationIngressClass), v,
				"must match `ingressClassName` when both are specified"))
		}
	}
	return errs
}

// validateIngressSpec is ValidateIngressSpec. Objects stored before a rule
// was tightened keep validating (upstream's AllowInvalidSecretName and
// AllowInvalidWildcardHostRule options, from the old object).
func validateIngressSpec(spec *networkingv1.IngressSpec, fldPath *field.Path, old *networkingv1.Ingress) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		errs = append(errs, field.Invalid(fldPath, spec.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(spec.DefaultBackend, fldPath.Child("defaultBackend"))...)
	}
	allowWildcard := allowInvalidWildcardHostRule(old)
	for i := range spec.Rules {
		errs = append(errs, validateIngressRule(&spec.Rules[i], fldPath.Child("rules").Index(i), allowWildcard)...)
	}
	allowSecret := allowInvalidSecretName(old)
	for i, tls := range spec.TLS {
		p := fldPath.Child("tls").Index(i)
		for j, host := range tls.Hosts {
			check := IsDNS1123Subdomain
			if strings.Contains(host, "*") {
				check = IsWildcardDNS1123Subdomain
			}
			for _, msg := range check(host) {
				errs = append(errs, field.Invalid(p.Child("hosts").Index(j), host, msg))
			}
		}
		if !allowSecret && tls.SecretName != "" {
			for _, msg := range NameIsDNSSubdomain(tls.SecretName, false) {
				errs = append(errs, field.Invalid(p.Child("secretName"), tls.SecretName, msg))
			}
		}
	}
	if spec.IngressClassName != nil {
		for _, msg := range NameIsDNSSubdomain(*spec.IngressClassName, false) {
			errs = append(errs, field.Invalid(fldPath.Child("ingressClassName"), *spec.IngressClassName, msg))
		}
	}
	return errs
}

func allowInvalidSecretName(old *networkingv1.Ingress) bool {
	if old == nil {
		return false
	}
	for _, tls := range old.Spec.TLS {
		if tls.SecretName != "" && len(NameIsDNSSubdomain(tls.SecretName, false)) > 0 {
			return true
		}
	}
	return false
}

func allowInvalidWildcardHostRule(old *networkingv1.Ingress) bool {
	if old == nil {
		return false
	}
	for i := range old.Spec.Rules {
		r := &old.Spec.Rules[i]
		if strings.Contains(r.Host, "*") && len(validateIngressRuleValue(&r.IngressRuleValue, field.NewPath(""))) > 0 {
			return true
		}
	}
	return false
}

func validateIngressRule(rule *networkingv1.IngressRule, fldPath *field.Path, allowInvalidWildcard bool) field.ErrorList {
	var errs field.ErrorList
	wildcard := false
	if rule.Host != "" {
		if _, err := netip.ParseAddr(rule.Host); err == nil || net.ParseIP(rule.Host) != nil {
			errs = append(errs, field.Invalid(fldPath.Child("host"), rule.Host, "must be a DNS name, not an IP address"))
		}
		check := IsDNS1123Subdomain
		if strings.Contains(rule.Host, "*") {
			check, wildcard = IsWildcardDNS1123Subdomain, true
		}
		for _, msg := range check(rule.Host) {
			errs = append(errs, field.Invalid(fldPath.Child("host"), rule.Host, msg))
		}
	}
	if !wildcard || !allowInvalidWildcard {
		errs = append(errs, validateIngressRuleValue(&rule.IngressRuleValue, fldPath)...)
	}
	return errs
}

func validateIngressRuleValue(v *networkingv1.IngressRuleValue, fldPath *field.Path) field.ErrorList {
	if v.HTTP == nil {
		return nil
	}
	var errs field.ErrorList
	p := fldPath.Child("http")
	if len(v.HTTP.Paths) == 0 {
		errs = append(errs, field.Required(p.Child("paths"), ""))
	}
	for i := range v.HTTP.Paths {
		errs = append(errs, validateHTTPIngressPath(&v.HTTP.Paths[i], p.Child("paths").Index(i))...)
	}
	return errs
}

func validateHTTPIngressPath(path *networkingv1.HTTPIngressPath, fldPath *field.Path) field.ErrorList {
	if path.PathType == nil {
		return field.ErrorList{field.Required(fldPath.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	switch *path.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(fldPath.Child("path"), path.Path, "must be an absolute path"))
		}
		if path.Path != "" {
			for _, seq := range invalidPathSequences {
				if strings.Contains(path.Path, seq) {
					errs = append(errs, field.Invalid(fldPath.Child("path"), path.Path, fmt.Sprintf("must not contain '%s'", seq)))
				}
			}
			for _, suffix := range invalidPathSuffixes {
				if strings.HasSuffix(path.Path, suffix) {
					errs = append(errs, field.Invalid(fldPath.Child("path"), path.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
				}
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if path.Path != "" && !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(fldPath.Child("path"), path.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("pathType"), *path.PathType, supportedPathTypes))
	}
	return append(errs, validateIngressBackend(&path.Backend, fldPath.Child("backend"))...)
}

// validateIngressBackend: a Service (by name, with a port name or number) or
// a typed reference to another object, never both.
func validateIngressBackend(b *networkingv1.IngressBackend, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(fldPath, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		r := b.Resource
		p := fldPath.Child("resource")
		if r.APIGroup != nil {
			for _, msg := range IsDNS1123Subdomain(*r.APIGroup) {
				errs = append(errs, field.Invalid(p.Child("apiGroup"), *r.APIGroup, msg))
			}
		}
		errs = append(errs, validatePathSegmentField(r.Kind, p.Child("kind"))...)
		errs = append(errs, validatePathSegmentField(r.Name, p.Child("name"))...)
	case b.Service != nil:
		s := b.Service
		if s.Name == "" {
			errs = append(errs, field.Required(fldPath.Child("service", "name"), ""))
		} else {
			for _, msg := range NameIsDNS1035Label(s.Name, false) {
				errs = append(errs, field.Invalid(fldPath.Child("service", "name"), s.Name, msg))
			}
		}
		switch hasName, hasNumber := s.Port.Name != "", s.Port.Number != 0; {
		case hasName && hasNumber:
			errs = append(errs, field.Invalid(fldPath, "", "cannot set both port name & port number"))
		case hasName:
			for _, msg := range IsValidPortName(s.Port.Name) {
				errs = append(errs, field.Invalid(fldPath.Child("service", "port", "name"), s.Port.Name, msg))
			}
		case hasNumber:
			for _, msg := range IsValidPortNum(int(s.Port.Number)) {
				errs = append(errs, field.Invalid(fldPath.Child("service", "port", "number"), s.Port.Number, msg))
			}
		default:
			errs = append(errs, field.Required(fldPath, "port name or number is required"))
		}
	default:
		errs = append(errs, field.Invalid(fldPath, "", "resource or service backend is required"))
	}
	return errs
}

// validatePathSegmentField: required, and usable as a URL path segment.
func validatePathSegmentField(value string, fldPath *field.Path) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var errs field.ErrorList
	for _, msg := range IsValidPathSegmentName(value) {
		errs = append(errs, field.Invalid(fldPath, value, msg))
	}
	return errs
}

// validateIngressStatus is ValidateIngressLoadBalancerStatus.
func validateIngressStatus(st *networkingv1.IngressStatus, old *networkingv1.IngressStatus) field.ErrorList {
	var errs field.ErrorList
	fldPath := field.NewPath("status", "loadBalancer")
	existing := map[string]bool{}
	if old != nil {
		for _, in := range old.LoadBalancer.Ingress {
			existing[in.IP] = true
		}
	}
	for i, in := range st.LoadBalancer.Ingress {
		p := fldPath.Child("ingress").Index(i)
		if in.IP != "" && !existing[in.IP] && net.ParseIP(in.IP) == nil {
			errs = append(errs, field.Invalid(p.Child("ip"), in.IP, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
		}
		if in.Hostname != "" {
			for _, msg := range IsDNS1123Subdomain(in.Hostname) {
				errs = append(errs, field.Invalid(p.Child("hostname"), in.Hostname, msg))
			}
			if net.ParseIP(in.Hostname) != nil {
				errs = append(errs, field.Invalid(p.Child("hostname"), in.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

// validateIngressClass is ValidateIngressClass.
func validateIngressClass(ic *networkingv1.IngressClass) field.ErrorList {
	errs := ValidateObjectMeta(&ic.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	p := field.NewPath("spec")
	if ic.Spec.Controller == "" {
		errs = append(errs, field.Required(p.Child("controller"), ""))
	} else {
		if len(ic.Spec.Controller) > maxLenIngressClassController {
			errs = append(errs, field.TooLong(p.Child("controller"), "", maxLenIngressClassController))
		}
		errs = append(errs, IsDomainPrefixedPath(p.Child("controller"), ic.Spec.Controller)...)
	}
	return append(errs, validateIngressClassParametersReference(ic.Spec.Parameters, p.Child("parameters"))...)
}

func validateIngressClassParametersReference(params *networkingv1.IngressClassParametersReference, fldPath *field.Path) field.ErrorList {
	if params == nil {
		return nil
	}
	var errs field.ErrorList
	if params.APIGroup != nil {
		for _, msg := range IsDNS1123Subdomain(*params.APIGroup) {
			errs = append(errs, field.Invalid(fldPath.Child("apiGroup"), *params.APIGroup, msg))
		}
	}
	errs = append(errs, validatePathSegmentField(params.Kind, fldPath.Child("kind"))...)
	errs = append(errs, validatePathSegmentField(params.Name, fldPath.Child("name"))...)
	if params.Scope == nil {
		return append(errs, field.Required(fldPath.Child("scope"), ""))
	}
	scopes := []string{networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace}
	switch *params.Scope {
	case networkingv1.IngressClassParametersReferenceScopeNamespace:
		if params.Namespace == nil {
			errs = append(errs, field.Required(fldPath.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
		} else {
			for _, msg := range NameIsDNSLabel(*params.Namespace, false) {
				errs = append(errs, field.Invalid(fldPath.Child("namespace"), *params.Namespace, msg))
			}
		}
	case networkingv1.IngressClassParametersReferenceScopeCluster:
		if params.Namespace != nil {
			errs = append(errs, field.Forbidden(fldPath.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("scope"), *params.Scope, scopes))
	}
	return errs
}

const (
	wildcardDNS1123SubdomainFmt    = "\\*\\." + dns1123SubdomainFmt
	wildcardDNS1123SubdomainErrMsg = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character"
	httpPathFmt                    = `[A-Za-z0-9/\-._~%!$&'()*+,;=:]+`
)

var (
	wildcardDNS1123SubdomainRegexp = regexp.MustCompile("^" + wildcardDNS1123SubdomainFmt + "$")
	httpPathRegexp                 = regexp.MustCompile("^" + httpPathFmt + "$")
)

// IsWildcardDNS1123Subdomain checks "*.example.com".
func IsWildcardDNS1123Subdomain(value string) []string {
	var errs []string
	if len(value) > 253 {
		errs = append(errs, maxLenError(253))
	}
	if !wildcardDNS1123SubdomainRegexp.MatchString(value) {
		errs = append(errs, regexError(wildcardDNS1123SubdomainErrMsg, wildcardDNS1123SubdomainFmt, "*.example.com"))
	}
	return errs
}

// IsDomainPrefixedPath checks "acme.io/foo": a DNS subdomain, a slash and an
// HTTP path.
func IsDomainPrefixedPath(fldPath *field.Path, dpPath string) field.ErrorList {
	if dpPath == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	host, path, ok := strings.Cut(dpPath, "/")
	if !ok || host == "" || path == "" {
		return field.ErrorList{field.Invalid(fldPath, dpPath, `must be a domain-prefixed path (such as "acme.io/foo")`)}
	}
	var errs field.ErrorList
	for _, msg := range IsDNS1123Subdomain(host) {
		errs = append(errs, field.Invalid(fldPath, host, msg))
	}
	if !httpPathRegexp.MatchString(path) {
		errs = append(errs, field.Invalid(fldPath, path, regexError("Invalid path", httpPathFmt)))
	}
	return errs
}
