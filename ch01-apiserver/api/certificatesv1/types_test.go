package certificatesv1

import (
	"os"
	"testing"

	"kubik/internal/apitest"
)

// Recorded from a real v1.35 apiserver: an approved request of the
// kube-apiserver-client signer, with the requester's groups and extra.
func TestCertificateSigningRequestRoundTrip(t *testing.T) {
	doc, err := os.ReadFile("testdata/csr-alice.json")
	if err != nil {
		t.Fatal(err)
	}
	var csr CertificateSigningRequest
	apitest.RoundTrip(t, doc, &csr)
	if csr.Spec.SignerName != KubeAPIServerClientSignerName || csr.Spec.Username != "kubernetes-admin" ||
		len(csr.Spec.Extra["authentication.kubernetes.io/credential-id"]) != 1 || csr.Status.Conditions[0].Type != CertificateApproved ||
		csr.Spec.Usages[0] != UsageClientAuth || *csr.Spec.ExpirationSeconds != 86400 {
		t.Errorf("decoded %+v", csr)
	}
}
