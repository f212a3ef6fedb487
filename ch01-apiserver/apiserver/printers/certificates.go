package printers

import (
	"time"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/metav1"
)

// CertificateSigningRequests: upstream's printCertificateSigningRequest. Its
// Requestor column carries the description of spec.request (upstream's
// slip), and the descriptions are v1beta1's texts.
var certificateSigningRequestPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		ageColumn,
		column("SignerName", "string", doc("certificates/v1beta1 CertificateSigningRequestSpec.signerName")),
		column("Requestor", "string", doc("certificates/v1beta1 CertificateSigningRequestSpec.request")),
		column("RequestedDuration", "string", doc("certificates/v1beta1 CertificateSigningRequestSpec.expirationSeconds")),
		column("Condition", "string", doc("certificates/v1beta1 CertificateSigningRequestStatus.conditions")),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		csr := obj.(*certificatesv1.CertificateSigningRequest)
		signer := csr.Spec.SignerName
		if signer == "" {
			signer = "<none>"
		}
		duration := "<none>"
		if e := csr.Spec.ExpirationSeconds; e != nil {
			duration = HumanDuration(time.Duration(*e) * time.Second)
		}
		return []any{csr.Name, age(csr.CreationTimestamp, now), signer, csr.Spec.Username, duration, csrCondition(csr)}, nil
	},
}

// csrCondition is upstream's extractCSRStatus: Denied before Approved before
// Pending, then ",Failed" and ",Issued".
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	switch {
	case denied:
		status = "Denied"
	case approved:
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}
