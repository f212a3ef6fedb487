package validation

import (
	"testing"

	"kubik/ch01-apiserver/apiserver/validation/field"
)

// The strict IP and CIDR rules with the messages of apimachinery's own
// tests (util/validation/ip_test.go).
func TestStrictIPAndCIDR(t *testing.T) {
	for value, want := range map[string]string{
		"10.0.0.0/8":          "",
		"2001:db8::/64":       "",
		"10.0.0.1/8":          "must not have bits set beyond the prefix length",
		"2001:db8::1/64":      "must not have bits set beyond the prefix length",
		"10.0.0.0/08":         "must not have leading 0s in IP or prefix length",
		"010.0.0.0/8":         "must not have leading 0s in IP or prefix length",
		"::ffff:10.0.0.0/104": "must not have an IPv4-mapped IPv6 address",
		"2001:DB8::/64":       `must be in canonical form ("2001:db8::/64")`,
		"10.0.0.0":            "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
		"10.0.0.0/33":         "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
		"":                    "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
	} {
		if got := details(IsValidCIDRStrict(field.NewPath("cidr"), value)); got != want {
			t.Errorf("CIDR %q: got %q, want %q", value, got, want)
		}
	}
	for value, want := range map[string]string{
		"10.1.2.3":       "",
		"2001:db8::1":    "",
		"010.1.2.3":      "must not have leading 0s",
		"::ffff:1.2.3.4": "must not be an IPv4-mapped IPv6 address",
		"2001:db8:0::1":  `must be in canonical form ("2001:db8::1")`,
		"300.1.2.3":      "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
		"fe80::1%eth0":   "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
	} {
		if got := details(IsValidIPStrict(field.NewPath("ip"), value)); got != want {
			t.Errorf("IP %q: got %q, want %q", value, got, want)
		}
	}
}

// TestSignerNames: the messages a real v1.35 apiserver gives (recorded
// with kubectl create of CertificateSigningRequests).
func TestSignerNames(t *testing.T) {
	for name, want := range map[string]string{
		"example.com/my-signer": "",
		"kubernetes.io":         `signerName: Invalid value: "kubernetes.io": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
		"Example.com/x/y":       `signerName: Invalid value: "Example.com/x/y": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
		"example/x":             `signerName: Invalid value: "example": should be a domain with at least two segments separated by dots`,
		"":                      "signerName: Required value",
	} {
		errs := ValidateSignerName(field.NewPath("signerName"), name)
		got := ""
		if len(errs) > 0 {
			got = errs[0].Error()
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", name, got, want)
		}
	}
}

func details(errs field.ErrorList) string {
	if len(errs) == 0 {
		return ""
	}
	return errs[0].Detail
}
