package certificates

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// GetCertApprovalCondition says whether the request carries Approved and
// Denied conditions.
func GetCertApprovalCondition(status *certificatesv1.CertificateSigningRequestStatus) (approved, denied bool) {
	for _, c := range status.Conditions {
		if c.Type == certificatesv1.CertificateApproved {
			approved = true
		}
		if c.Type == certificatesv1.CertificateDenied {
			denied = true
		}
	}
	return approved, denied
}

// IsCertificateRequestApproved: approved and not denied.
func IsCertificateRequestApproved(csr *certificatesv1.CertificateSigningRequest) bool {
	approved, denied := GetCertApprovalCondition(&csr.Status)
	return approved && !denied
}

// HasTrueCondition: the request has a condition of type t with status True.
func HasTrueCondition(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) bool {
	return slices.ContainsFunc(csr.Status.Conditions, func(c certificatesv1.CertificateSigningRequestCondition) bool {
		return c.Type == t && c.Status == corev1.ConditionTrue
	})
}

// The errors of the kubelet request checks, upstream's text.
var (
	errOrganizationNotSystemNodes = errors.New("subject organization is not system:nodes")
	errCommonNameNotSystemNode    = errors.New("subject common name does not begin with system:node:")
	errDNSOrIPSANRequired         = errors.New("DNS or IP subjectAltName is required")
	errDNSSANNotAllowed           = errors.New("DNS subjectAltNames are not allowed")
	errEmailSANNotAllowed         = errors.New("Email subjectAltNames are not allowed")
	errIPSANNotAllowed            = errors.New("IP subjectAltNames are not allowed")
	errURISANNotAllowed           = errors.New("URI subjectAltNames are not allowed")
)

// The usages a kubelet asks for; an ECDSA or Ed25519 key has no key
// encipherment, so the set without it is accepted too.
var (
	kubeletClientRequiredUsages       = []string{"client auth", "digital signature", "key encipherment"}
	kubeletClientRequiredUsagesNoRSA  = []string{"client auth", "digital signature"}
	kubeletServingRequiredUsages      = []string{"digital signature", "key encipherment", "server auth"}
	kubeletServingRequiredUsagesNoRSA = []string{"digital signature", "server auth"}
)

// usageSet is the usages, sorted and without duplicates (upstream compares
// sets).
func usageSet(usages []certificatesv1.KeyUsage) []string {
	var s []string
	for _, u := range usages {
		s = append(s, string(u))
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// ValidateKubeletClientCSR checks a request for a kubelet's client
// certificate: organization system:nodes, common name system:node:<name>,
// no subject alternative names, the client usages.
func ValidateKubeletClientCSR(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	if !slices.Equal(req.Subject.Organization, []string{"system:nodes"}) {
		return errOrganizationNotSystemNodes
	}
	switch {
	case len(req.DNSNames) > 0:
		return errDNSSANNotAllowed
	case len(req.EmailAddresses) > 0:
		return errEmailSANNotAllowed
	case len(req.IPAddresses) > 0:
		return errIPSANNotAllowed
	case len(req.URIs) > 0:
		return errURISANNotAllowed
	}
	if !strings.HasPrefix(req.Subject.CommonName, "system:node:") {
		return errCommonNameNotSystemNode
	}
	set := usageSet(usages)
	if !slices.Equal(set, kubeletClientRequiredUsages) && !slices.Equal(set, kubeletClientRequiredUsagesNoRSA) {
		return fmt.Errorf("usages did not match %v", kubeletClientRequiredUsages)
	}
	return nil
}

// IsKubeletClientCSR: the request passes ValidateKubeletClientCSR.
func IsKubeletClientCSR(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) bool {
	return ValidateKubeletClientCSR(req, usages) == nil
}

// ValidateKubeletServingCSR checks a request for a kubelet's serving
// certificate: organization system:nodes, a DNS or IP name and no e-mail or
// URI names, the serving usages, common name system:node:<name>.
func ValidateKubeletServingCSR(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	if !slices.Equal(req.Subject.Organization, []string{"system:nodes"}) {
		return errOrganizationNotSystemNodes
	}
	switch {
	case len(req.DNSNames) == 0 && len(req.IPAddresses) == 0:
		return errDNSOrIPSANRequired
	case len(req.EmailAddresses) > 0:
		return errEmailSANNotAllowed
	case len(req.URIs) > 0:
		return errURISANNotAllowed
	}
	set := usageSet(usages)
	if !slices.Equal(set, kubeletServingRequiredUsages) && !slices.Equal(set, kubeletServingRequiredUsagesNoRSA) {
		return fmt.Errorf("usages did not match %v", kubeletServingRequiredUsages)
	}
	if !strings.HasPrefix(req.Subject.CommonName, "system:node:") {
		return errCommonNameNotSystemNode
	}
	return nil
}

// ParseCSR decodes the request's first PEM block, a CERTIFICATE REQUEST.
func ParseCSR(pemBytes []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}

// UpdateApproval replaces the request's conditions through its /approval
// subresource (PUT), as client-go's UpdateApproval.
func UpdateApproval(ctx context.Context, c *rest.Client, csr *certificatesv1.CertificateSigningRequest) (*certificatesv1.CertificateSigningRequest, error) {
	r, err := rest.ResourceFor[certificatesv1.CertificateSigningRequest]()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(csr)
	if err != nil {
		return nil, err
	}
	out := new(certificatesv1.CertificateSigningRequest)
	err = c.Do(ctx, rest.Request{Method: http.MethodPut, Path: rest.ResourcePath(r, "", csr.Name, "approval"), Body: body}, out)
	return out, err
}
