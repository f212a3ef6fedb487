package validation

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// ServiceCIDRs and IPAddresses: upstream's pkg/apis/networking/validation
// (ValidateServiceCIDR, ValidateIPAddress and their updates) with
// apimachinery's strict IP and CIDR checks.
//
// Some of upstream's messages print the internal Go struct (without JSON
// tags) as the bad value: {"CIDRs":[...]}, {"Group":"",...}. The two
// untagged types below give the same text.

type internalServiceCIDRSpec struct{ CIDRs []string }

type internalParentReference struct{ Group, Resource, Namespace, Name string }

// parseIPSloppy is netutils.ParseIPSloppy: netip's parser, but IPv4 octets
// may carry leading zeros ("010.1.2.3"). ok is false for anything else.
func parseIPSloppy(s string) (addr netip.Addr, ok bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a, a.Zone() == ""
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return netip.Addr{}, false
	}
	var b [4]byte
	for i, p := range parts {
		if p == "" || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
			return netip.Addr{}, false
		}
		n, _ := strconv.Atoi(p)
		if n > 255 {
			return netip.Addr{}, false
		}
		b[i] = byte(n)
	}
	return netip.AddrFrom4(b), true
}

// IsValidIPStrict is apimachinery's IsValidIP: an IP address that parses
// strictly, is not IPv4-mapped IPv6, and is in canonical form.
func IsValidIPStrict(fldPath *field.Path, value string) field.ErrorList {
	addr, ok := parseIPSloppy(value)
	if !ok {
		return field.ErrorList{field.Invalid(fldPath, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")}
	}
	var errs field.ErrorList
	strict, err := netip.ParseAddr(value)
	if err != nil {
		errs = append(errs, field.Invalid(fldPath, value, "must not have leading 0s"))
	}
	if strict.Is4In6() {
		errs = append(errs, field.Invalid(fldPath, value, "must not be an IPv4-mapped IPv6 address"))
	}
	if len(errs) > 0 {
		return errs
	}
	if value != addr.String() {
		errs = append(errs, field.Invalid(fldPath, value, fmt.Sprintf("must be in canonical form (%q)", addr.String())))
	}
	return errs
}

// IsValidCIDRStrict is apimachinery's IsValidCIDR: a subnet (no bits set
// beyond the prefix length) in canonical form.
func IsValidCIDRStrict(fldPath *field.Path, value string) field.ErrorList {
	invalid := field.ErrorList{field.Invalid(fldPath, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")}
	ipPart, lenPart, found := strings.Cut(value, "/")
	if !found || lenPart == "" || len(lenPart) > 3 || strings.Trim(lenPart, "0123456789") != "" {
		return invalid
	}
	addr, ok := parseIPSloppy(ipPart)
	bits, _ := strconv.Atoi(lenPart)
	if !ok || bits > addr.BitLen() {
		return invalid
	}
	prefix, err := netip.ParsePrefix(value)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(fldPath, value, "must not have leading 0s in IP or prefix length")}
	case prefix.Addr().Is4In6():
		return field.ErrorList{field.Invalid(fldPath, value, "must not have an IPv4-mapped IPv6 address")}
	case prefix.Addr() != prefix.Masked().Addr():
		return field.ErrorList{field.Invalid(fldPath, value, "must not have bits set beyond the prefix length")}
	}
	if canonical := prefix.Masked().String(); value != canonical {
		return field.ErrorList{field.Invalid(fldPath, value, fmt.Sprintf("must be in canonical form (%q)", canonical))}
	}
	return nil
}

// validateServiceCIDR is ValidateServiceCIDR: one or two CIDRs, one of each
// IP family.
func validateServiceCIDR(sc *networkingv1.ServiceCIDR) field.ErrorList {
	errs := ValidateObjectMeta(&sc.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	p := field.NewPath("spec", "cidrs")
	cidrs := sc.Spec.CIDRs
	switch {
	case len(cidrs) == 0:
		return append(errs, field.Required(p, "at least one CIDR required"))
	case len(cidrs) > 2:
		return append(errs, field.Invalid(p, internalServiceCIDRSpec{cidrs}, "may only hold up to 2 values"))
	}
	for i, c := range cidrs {
		errs = append(errs, IsValidCIDRStrict(p.Index(i), c)...)
	}
	if len(cidrs) == 2 {
		a, errA := netip.ParsePrefix(cidrs[0])
		b, errB := netip.ParsePrefix(cidrs[1])
		if errA != nil || errB != nil || a.Addr().Is4() == b.Addr().Is4() {
			errs = append(errs, field.Invalid(p, cidrs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
		}
	}
	return errs
}

// validateServiceCIDRUpdate is ValidateServiceCIDRUpdate: the CIDRs stay,
// but a single-stack range may gain a second one of the other family.
func validateServiceCIDRUpdate(sc, old *networkingv1.ServiceCIDR) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "cidrs")
	switch {
	case len(old.Spec.CIDRs) == len(sc.Spec.CIDRs):
		for i, c := range old.Spec.CIDRs {
			if c != sc.Spec.CIDRs[i] {
				errs = append(errs, field.Invalid(p.Index(i), sc.Spec.CIDRs[i], FieldImmutableErrorMsg))
			}
		}
	case len(old.Spec.CIDRs) == 1 && len(sc.Spec.CIDRs) == 2:
		if sc.Spec.CIDRs[0] != old.Spec.CIDRs[0] {
			errs = append(errs, field.Invalid(p.Index(0), sc.Spec.CIDRs[0], FieldImmutableErrorMsg))
		}
		errs = append(errs, withoutMetadata(validateServiceCIDR(sc))...)
	default:
		errs = append(errs, field.Invalid(p, sc.Spec.CIDRs, FieldImmutableErrorMsg))
	}
	return errs
}

// ValidateIPAddressName is upstream's: the name is an IP address in canonical form.
func ValidateIPAddressName(name string, _ bool) []string {
	var out []string
	for _, e := range IsValidIPStrict(field.NewPath(""), name) {
		out = append(out, e.Detail)
	}
	return out
}

// validateIPAddress is ValidateIPAddress: the name and the parent reference.
func validateIPAddress(ip *networkingv1.IPAddress) field.ErrorList {
	errs := ValidateObjectMeta(&ip.ObjectMeta, false, ValidateIPAddressName, field.NewPath("metadata"))
	p := field.NewPath("spec", "parentRef")
	ref := ip.Spec.ParentRef
	if ref == nil {
		return append(errs, field.Required(p, ""))
	}
	if ref.Group != "" {
		for _, msg := range IsDNS1123Subdomain(ref.Group) {
			errs = append(errs, field.Invalid(p.Child("group"), ref.Group, msg))
		}
	}
	segment := func(name, value string, required bool) {
		if value == "" {
			if required {
				errs = append(errs, field.Required(p.Child(name), ""))
			}
			return
		}
		for _, msg := range IsValidPathSegmentName(value) {
			errs = append(errs, field.Invalid(p.Child(name), value, msg))
		}
	}
	segment("resource", ref.Resource, true)
	segment("name", ref.Name, true)
	segment("namespace", ref.Namespace, false)
	return errs
}

// validateIPAddressUpdate is ValidateIPAddressUpdate: the parent stays.
func validateIPAddressUpdate(ip, old *networkingv1.IPAddress) field.ErrorList {
	if refsEqual(ip.Spec.ParentRef, old.Spec.ParentRef) {
		return nil
	}
	var bad any
	if r := ip.Spec.ParentRef; r != nil {
		bad = internalParentReference{r.Group, r.Resource, r.Namespace, r.Name}
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "parentRef"), bad, FieldImmutableErrorMsg)}
}

func refsEqual(a, b *networkingv1.ParentReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
