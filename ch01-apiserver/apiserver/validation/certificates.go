package validation

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// certificates.k8s.io/v1 CertificateSigningRequests: upstream's
// pkg/apis/certificates/validation, with the option set the v1 API uses
// (certificateValidationOptions): what an update may carry over from the
// stored object (a legacy signer, both Approved and Denied, unknown or
// repeated usages) is tolerated only when the stored object already had it.

// allValidUsages are the key usages a request may ask for, sorted as
// upstream lists them in an Unsupported value error.
var allValidUsages = []string{
	"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment",
	"decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel",
	"ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime",
	"server auth", "signing", "timestamping",
}

// csrOptions is upstream's certificateValidationOptions.
type csrOptions struct {
	allowSettingApprovalConditions bool // the /approval subresource
	allowSettingCertificate        bool // the /status subresource
	allowBothApprovedAndDenied     bool
	allowLegacySignerName          bool
	allowDuplicateConditionTypes   bool
	allowEmptyConditionType        bool
	allowArbitraryCertificate      bool
	allowUnknownUsages             bool
	allowDuplicateUsages           bool
}

// csrOptionsFor is getValidationOptions: old is nil on create.
func csrOptionsFor(csr, old *certificatesv1.CertificateSigningRequest) csrOptions {
	var o csrOptions
	if old == nil {
		return o
	}
	approved, denied := len(findConditions(old, certificatesv1.CertificateApproved)) > 0, len(findConditions(old, certificatesv1.CertificateDenied)) > 0
	o.allowBothApprovedAndDenied = approved && denied
	o.allowLegacySignerName = old.Spec.SignerName == certificatesv1.LegacyUnknownSignerName
	seen := map[certificatesv1.RequestConditionType]bool{}
	for _, c := range old.Status.Conditions {
		if seen[c.Type] {
			o.allowDuplicateConditionTypes = true
		}
		seen[c.Type] = true
		if c.Type == "" {
			o.allowEmptyConditionType = true
		}
	}
	o.allowArbitraryCertificate = bytes.Equal(csr.Status.Certificate, old.Status.Certificate) || validateCertificate(old.Status.Certificate) != nil
	usages := map[certificatesv1.KeyUsage]bool{}
	for _, u := range old.Spec.Usages {
		if !slices.Contains(allValidUsages, string(u)) {
			o.allowUnknownUsages = true
		}
		if usages[u] {
			o.allowDuplicateUsages = true
		}
		usages[u] = true
	}
	return o
}

// ParseCSR decodes the PEM "CERTIFICATE REQUEST" block of a request
// (upstream's certificates.ParseCSR). Only the first PEM block is read;
// the request is as long as the object, which the apiserver bounds.
func ParseCSR(pemBytes []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}

// validateCSRRequest parses the request and checks its signature.
func validateCSRRequest(request []byte) error {
	csr, err := ParseCSR(request)
	if err != nil {
		return err
	}
	return csr.CheckSignature()
}

// validateCertificate: status.certificate is empty or one or more
// CERTIFICATE PEM blocks without headers, each holding certificates.
func validateCertificate(pemData []byte) error {
	if len(pemData) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(pemData)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		pemData = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// validateCertificateSigningRequest is upstream's function of that name.
func validateCertificateSigningRequest(csr *certificatesv1.CertificateSigningRequest, opts csrOptions) field.ErrorList {
	anyName := func(string, bool) []string { return nil } // ValidateCertificateRequestName: any name will do
	errs := ValidateObjectMeta(&csr.ObjectMeta, false, anyName, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	if err := validateCSRRequest(csr.Spec.Request); err != nil {
		errs = append(errs, field.Invalid(spec.Child("request"), csr.Spec.Request, err.Error()))
	}
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, field.Required(spec.Child("usages"), ""))
	}
	if !opts.allowUnknownUsages {
		for i, u := range csr.Spec.Usages {
			if !slices.Contains(allValidUsages, string(u)) {
				errs = append(errs, field.NotSupported(spec.Child("usages").Index(i), u, allValidUsages))
			}
		}
	}
	if !opts.allowDuplicateUsages {
		seen := map[certificatesv1.KeyUsage]bool{}
		for i, u := range csr.Spec.Usages {
			if seen[u] {
				errs = append(errs, field.Duplicate(spec.Child("usages").Index(i), u))
			}
			seen[u] = true
		}
	}
	if !opts.allowLegacySignerName && csr.Spec.SignerName == certificatesv1.LegacyUnknownSignerName {
		errs = append(errs, field.Invalid(spec.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		errs = append(errs, ValidateSignerName(spec.Child("signerName"), csr.Spec.SignerName)...)
	}
	if e := csr.Spec.ExpirationSeconds; e != nil && *e < 600 {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), *e, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	errs = append(errs, validateCSRConditions(field.NewPath("status", "conditions"), csr, opts)...)
	if !opts.allowArbitraryCertificate {
		if err := validateCertificate(csr.Status.Certificate); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	return errs
}

// validateCSRConditions: Approved, Denied and Failed may only be True,
// Approved and Denied exclude each other, each type appears once.
func validateCSRConditions(fldPath *field.Path, csr *certificatesv1.CertificateSigningRequest, opts csrOptions) field.ErrorList {
	var errs field.ErrorList
	seen := map[certificatesv1.RequestConditionType]bool{}
	hasApproved, hasDenied := false, false
	for i, c := range csr.Status.Conditions {
		if !opts.allowEmptyConditionType && c.Type == "" {
			errs = append(errs, field.Required(fldPath.Index(i).Child("type"), ""))
		}
		allowed := []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
		switch c.Type {
		case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
			allowed = []string{string(corev1.ConditionTrue)}
		}
		switch {
		case c.Status == "":
			errs = append(errs, field.Required(fldPath.Index(i).Child("status"), ""))
		case !slices.Contains(allowed, string(c.Status)):
			errs = append(errs, field.NotSupported(fldPath.Index(i).Child("status"), c.Status, allowed))
		}
		if !opts.allowBothApprovedAndDenied {
			switch c.Type {
			case certificatesv1.CertificateApproved:
				hasApproved = true
				if hasDenied {
					errs = append(errs, field.Invalid(fldPath, c.Type, "Approved and Denied conditions are mutually exclusive"))
				}
			case certificatesv1.CertificateDenied:
				hasDenied = true
				if hasApproved {
					errs = append(errs, field.Invalid(fldPath, c.Type, "Approved and Denied conditions are mutually exclusive"))
				}
			}
		}
		if !opts.allowDuplicateConditionTypes {
			if seen[c.Type] {
				errs = append(errs, field.Duplicate(fldPath.Index(i).Child("type"), c.Type))
			}
			seen[c.Type] = true
		}
	}
	return errs
}

// ValidateCertificateSigningRequestUpdate validates an update through the
// main resource (subresource ""), /status or /approval: the new object as
// on create, then what the update may not do — remove an Approved, Denied
// or Failed condition; outside /approval touch Approved or Denied; outside
// /status set the certificate, and nowhere replace one.
func validateCertificateSigningRequestUpdate(csr, old *certificatesv1.CertificateSigningRequest, subresource string) field.ErrorList {
	opts := csrOptionsFor(csr, old)
	opts.allowSettingApprovalConditions = subresource == "approval"
	opts.allowSettingCertificate = subresource == "status"
	errs := withoutMetadata(validateCertificateSigningRequest(csr, opts))
	conditions := field.NewPath("status", "conditions")
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
		if len(findConditions(csr, t)) < len(findConditions(old, t)) {
			errs = append(errs, field.Forbidden(conditions, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !opts.allowSettingApprovalConditions {
		for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
			oldConds, newConds := findConditions(old, t), findConditions(csr, t)
			switch {
			case len(newConds) < len(oldConds): // refused above
			case len(newConds) > len(oldConds):
				errs = append(errs, field.Forbidden(conditions, fmt.Sprintf("updates may not add a condition of type %q", t)))
			case !reflect.DeepEqual(oldConds, newConds):
				errs = append(errs, field.Forbidden(conditions, fmt.Sprintf("updates may not modify a condition of type %q", t)))
			}
		}
	}
	if !bytes.Equal(csr.Status.Certificate, old.Status.Certificate) {
		if !opts.allowSettingCertificate {
			errs = append(errs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not set certificate content"))
		} else if len(old.Status.Certificate) > 0 {
			errs = append(errs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not modify existing certificate content"))
		}
	}
	return errs
}

func findConditions(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []certificatesv1.CertificateSigningRequestCondition {
	var out []certificatesv1.CertificateSigningRequestCondition
	for _, c := range csr.Status.Conditions {
		if c.Type == t {
			out = append(out, c)
		}
	}
	return out
}

// ValidateSignerName is core validation's ValidateSignerName: a domain of at
// least two DNS labels, one "/", and a path of DNS subdomains separated by
// dots, 571 characters in all at most.
func ValidateSignerName(fldPath *field.Path, signerName string) field.ErrorList {
	if signerName == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	segments := strings.Split(signerName, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(fldPath, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	const maxDomain = 253
	if len(segments[0]) > maxDomain {
		errs = append(errs, field.TooLong(fldPath, "", maxDomain))
	}
	domainLabels := strings.Split(segments[0], ".")
	for _, lbl := range domainLabels {
		if msgs := IsDNS1123Label(lbl); len(msgs) > 0 {
			for _, m := range msgs {
				errs = append(errs, field.Invalid(fldPath, segments[0], fmt.Sprintf("validating label %q: %s", lbl, m)))
			}
			break // the other labels' errors would read the same
		}
	}
	if len(domainLabels) < 2 {
		errs = append(errs, field.Invalid(fldPath, segments[0], "should be a domain with at least two segments separated by dots"))
	}
	for _, lbl := range strings.Split(segments[1], ".") {
		if msgs := IsDNS1123Subdomain(lbl); len(msgs) > 0 {
			for _, m := range msgs {
				errs = append(errs, field.Invalid(fldPath, segments[1], fmt.Sprintf("validating label %q: %s", lbl, m)))
			}
			break
		}
	}
	if maxSigner := maxDomain + (253 + 63 + 1) + 1; len(signerName) > maxSigner {
		errs = append(errs, field.TooLong(fldPath, "", maxSigner))
	}
	return errs
}
