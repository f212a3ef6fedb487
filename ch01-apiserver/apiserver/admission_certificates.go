package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/validation"
)

// The certificates admission plugins, validating, with upstream's names
// (plugin/pkg/admission/certificates/...):
//
//   - CertificateApproval: a write to /approval needs the "approve" verb on
//     the request's signer (resource "signers", named by the signerName or
//     "<domain>/*").
//   - CertificateSigning: a write to /status that changes the certificate
//     needs "sign" on the signer.
//   - CertificateSubjectRestriction: nobody may ask the
//     kubernetes.io/kube-apiserver-client signer for a certificate in the
//     system:masters group.
func (s *Server) validateCertificateAdmission(ctx context.Context, q *request, csr *certificatesv1.CertificateSigningRequest, old metav1.Object) error {
	forbid := func(format string, args ...any) error {
		return ErrForbidden(q.res.Group, q.res.Resource, q.res.GroupResource(), csr.Name, fmt.Errorf(format, args...))
	}
	switch {
	case old == nil && q.info.Subresource == "":
		if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
			return nil
		}
		parsed, err := validation.ParseCSR(csr.Spec.Request)
		if err != nil {
			return forbid("failed to parse CSR: %v", err)
		}
		for _, group := range parsed.Subject.Organization {
			if group == "system:masters" {
				return forbid("use of %s signer with system:masters group is not allowed", csr.Spec.SignerName)
			}
		}
	case old != nil && q.info.Subresource == "approval":
		if !s.authorizedForSignerName(ctx, q.user, "approve", csr.Spec.SignerName) {
			return forbid("user not permitted to approve requests with signerName %q", csr.Spec.SignerName)
		}
	case old != nil && q.info.Subresource == "status":
		if bytes.Equal(old.(*certificatesv1.CertificateSigningRequest).Status.Certificate, csr.Status.Certificate) {
			return nil
		}
		if !s.authorizedForSignerName(ctx, q.user, "sign", csr.Spec.SignerName) {
			return forbid("user not permitted to sign requests with signerName %q", csr.Spec.SignerName)
		}
	}
	return nil
}

// authorizedForSignerName is upstream's IsAuthorizedForSignerName: verb on
// the signer itself, or on every signer of its domain.
func (s *Server) authorizedForSignerName(ctx context.Context, user *auth.UserInfo, verb, signerName string) bool {
	attrs := func(name string) *auth.Attributes {
		return &auth.Attributes{User: user, Verb: verb, IsResourceRequest: true, APIGroup: certificatesv1.GroupName,
			APIVersion: "*", Resource: "signers", Name: name}
	}
	if s.authorizer.Allowed(ctx, attrs(signerName)) {
		return true
	}
	domain, _, _ := strings.Cut(signerName, "/")
	return s.authorizer.Allowed(ctx, attrs(domain+"/*"))
}
