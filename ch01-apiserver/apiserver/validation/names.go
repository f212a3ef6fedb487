// Package validation checks objects the way kube-apiserver does before they
// are stored, and produces upstream's field paths and messages word for word:
// kubectl prints them as they are ("The Pod "web" is invalid: ...").
//
// One file per area, after upstream: names.go (pkg/util/validation),
// objectmeta.go (pkg/api/validation), pod.go, service.go, core.go
// (pkg/apis/core/validation), apps.go, batch.go, networking.go,
// autoscaling.go, node.go, other.go. Validate is the
// entry point; status.go turns the errors into a 422 Status.
package validation

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"unicode"

	"kubik/ch01-apiserver/apiserver/validation/field"
)

// regexError explains a failed regex match with examples, the way every
// upstream name check does.
func regexError(msg, re string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + re + "')"
	}
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + re + "')"
}

// maxLenError is pkg/util/validation's wording ("characters"); label values
// use the newer "bytes" wording of maxLenBytesError.
func maxLenError(n int) string      { return fmt.Sprintf("must be no more than %d characters", n) }
func maxLenBytesError(n int) string { return fmt.Sprintf("must be no more than %d bytes", n) }

// InclusiveRangeError is "must be between lo and hi, inclusive".
func InclusiveRangeError(lo, hi int) string {
	return fmt.Sprintf("must be between %d and %d, inclusive", lo, hi)
}

const (
	dns1123LabelFmt       = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123LabelErrMsg    = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	dns1123SubdomainFmt   = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1123SubdomainErr   = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	dns1035LabelFmt       = "[a-z]([-a-z0-9]*[a-z0-9])?"
	dns1035LabelErrMsg    = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
	labelKeyFmt           = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelKeyErrMsg        = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueFmt         = "(" + labelKeyFmt + ")?"
	labelValueErrMsg      = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	cIdentifierFmt        = "[A-Za-z_][A-Za-z0-9_]*"
	cIdentifierErrMsg     = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'"
	configMapKeyFmt       = `[-._a-zA-Z0-9]+`
	configMapKeyErrMsg    = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
	percentFmt            = "[0-9]+%"
	percentErrMsg         = "a valid percent string must be a numeric string followed by an ending '%'"
	relaxedEnvVarErrMsg   = "a valid environment variable name must consist only of printable ASCII characters other than '='"
	dns1123LabelMaxLength = 63
	dns1123SubdomainMax   = 253
	labelValueMaxLength   = 63
)

var (
	dns1123LabelRegexp     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	dns1123SubdomainRegexp = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	dns1035LabelRegexp     = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	labelKeyRegexp         = regexp.MustCompile("^" + labelKeyFmt + "$")
	labelValueRegexp       = regexp.MustCompile("^" + labelValueFmt + "$")
	cIdentifierRegexp      = regexp.MustCompile("^" + cIdentifierFmt + "$")
	configMapKeyRegexp     = regexp.MustCompile("^" + configMapKeyFmt + "$")
	percentRegexp          = regexp.MustCompile("^" + percentFmt + "$")
	portNameCharsetRegexp  = regexp.MustCompile("^[-a-z0-9]+$")
	portNameOneLetter      = regexp.MustCompile("[a-z]")
)

// IsDNS1123Label checks a DNS label: container, port-less names, namespaces.
func IsDNS1123Label(value string) []string {
	var errs []string
	if len(value) > dns1123LabelMaxLength {
		errs = append(errs, maxLenError(dns1123LabelMaxLength))
	}
	if !dns1123LabelRegexp.MatchString(value) {
		if dns1123SubdomainRegexp.MatchString(value) {
			// A valid subdomain but not a label: it has dots.
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

// IsDNS1123Subdomain checks a DNS subdomain: the name of most objects.
func IsDNS1123Subdomain(value string) []string {
	var errs []string
	if len(value) > dns1123SubdomainMax {
		errs = append(errs, maxLenError(dns1123SubdomainMax))
	}
	if !dns1123SubdomainRegexp.MatchString(value) {
		errs = append(errs, regexError(dns1123SubdomainErr, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// IsDNS1035Label checks a label that starts with a letter: Service names.
func IsDNS1035Label(value string) []string {
	var errs []string
	if len(value) > dns1123LabelMaxLength {
		errs = append(errs, maxLenError(dns1123LabelMaxLength))
	}
	if !dns1035LabelRegexp.MatchString(value) {
		errs = append(errs, regexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// IsQualifiedName checks a label key or annotation key: an optional DNS
// subdomain prefix and '/', then a name of at most 63 characters.
func IsQualifiedName(value string) []string {
	var errs []string
	parts := strings.Split(value, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else if msgs := IsDNS1123Subdomain(prefix); len(msgs) != 0 {
			for _, m := range msgs {
				errs = append(errs, "prefix part "+strings.Replace(m, "characters", "bytes", 1))
			}
		}
	default:
		return append(errs, "a valid label key "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > 63 {
		errs = append(errs, "name part "+maxLenBytesError(63))
	}
	if !labelKeyRegexp.MatchString(name) {
		errs = append(errs, "name part "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue checks a label value: empty, or at most 63 characters of
// alphanumerics, '-', '_' and '.'.
func IsValidLabelValue(value string) []string {
	var errs []string
	if len(value) > labelValueMaxLength {
		errs = append(errs, maxLenBytesError(labelValueMaxLength))
	}
	if !labelValueRegexp.MatchString(value) {
		errs = append(errs, regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// IsCIdentifier checks a C identifier (used by a few names; environment
// variable names are relaxed, see IsRelaxedEnvVarName).
func IsCIdentifier(value string) []string {
	if !cIdentifierRegexp.MatchString(value) {
		return []string{regexError(cIdentifierErrMsg, cIdentifierFmt, "my_name", "MY_NAME", "MyName")}
	}
	return nil
}

// IsRelaxedEnvVarName is today's rule for environment variable names: any
// printable ASCII but '=' (RelaxedEnvironmentVariableValidation, on by default).
func IsRelaxedEnvVarName(value string) []string {
	var errs []string
	if value == "" {
		errs = append(errs, "environment variable name must be non-empty")
	}
	for _, r := range value {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) || r == '=' {
			errs = append(errs, relaxedEnvVarErrMsg)
			break
		}
	}
	return errs
}

// IsConfigMapKey checks a key of a ConfigMap's or Secret's data.
func IsConfigMapKey(value string) []string {
	var errs []string
	if len(value) > dns1123SubdomainMax {
		errs = append(errs, maxLenError(dns1123SubdomainMax))
	}
	if !configMapKeyRegexp.MatchString(value) {
		errs = append(errs, regexError(configMapKeyErrMsg, configMapKeyFmt, "key.name", "KEY_NAME", "key-name"))
	}
	switch {
	case value == ".":
		errs = append(errs, `must not be '.'`)
	case value == "..":
		errs = append(errs, `must not be '..'`)
	case strings.HasPrefix(value, ".."):
		errs = append(errs, `must not start with '..'`)
	}
	return errs
}

// IsValidPortNum checks a non-zero port number.
func IsValidPortNum(port int) []string {
	if 1 <= port && port <= 65535 {
		return nil
	}
	return []string{InclusiveRangeError(1, 65535)}
}

// IsValidPortName checks an IANA service name: at most 15 characters of
// [-a-z0-9] with at least one letter and no leading, trailing or double '-'.
func IsValidPortName(port string) []string {
	var errs []string
	if len(port) > 15 {
		errs = append(errs, maxLenError(15))
	}
	if !portNameCharsetRegexp.MatchString(port) {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !portNameOneLetter.MatchString(port) {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(port, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if len(port) > 0 && (port[0] == '-' || port[len(port)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

// IsValidPercent checks "25%".
func IsValidPercent(percent string) []string {
	if !percentRegexp.MatchString(percent) {
		return []string{regexError(percentErrMsg, percentFmt, "1%", "93%")}
	}
	return nil
}

// IsValidIP checks an IP address in canonical form.
func IsValidIP(fldPath *field.Path, value string) field.ErrorList {
	ip, err := netip.ParseAddr(value)
	if err != nil || ip.Zone() != "" {
		return field.ErrorList{field.Invalid(fldPath, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")}
	}
	if ip.Is4In6() {
		return field.ErrorList{field.Invalid(fldPath, value, "must not be an IPv4-mapped IPv6 address")}
	}
	if ip.String() != value {
		return field.ErrorList{field.Invalid(fldPath, value, fmt.Sprintf("must be in canonical form (%q)", ip.String()))}
	}
	return nil
}

// NameFunc checks an object name; prefix is true for a generateName, which
// may end in '-' because random characters are appended.
type NameFunc func(name string, prefix bool) []string

func maskTrailingDash(name string) string {
	if len(name) > 1 && strings.HasSuffix(name, "-") {
		return name[:len(name)-2] + "a"
	}
	return name
}

// NameIsDNSSubdomain is the name rule of most kinds.
func NameIsDNSSubdomain(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Subdomain(name)
}

// NameIsDNSLabel is the name rule of Namespaces.
func NameIsDNSLabel(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Label(name)
}

// NameIsDNS1035Label is the name rule of Services.
func NameIsDNS1035Label(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1035Label(name)
}
