package cleaner

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/internal/controllertest"
)

// selfSigned is a PEM certificate valid until notAfter.
func selfSigned(t *testing.T, notAfter time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "x"},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// Upstream's TestCleanerWithApprovedExpiredCSR table.
func TestHandle(t *testing.T) {
	env := controllertest.New(t)
	c, err := NewCSRCleanerController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	now := time.Now()
	c.now = func() time.Time { return now }
	ago := func(d time.Duration) metav1.Time { return metav1.Time{Time: now.Add(-d)} }
	cond := func(typ certificatesv1.RequestConditionType, at metav1.Time) []certificatesv1.CertificateSigningRequestCondition {
		return []certificatesv1.CertificateSigningRequestCondition{{Type: typ, Status: corev1.ConditionTrue, LastUpdateTime: at}}
	}
	valid, expired := selfSigned(t, now.Add(time.Hour)), selfSigned(t, now.Add(-time.Minute))
	for _, tc := range []struct {
		name       string
		created    metav1.Time
		conditions []certificatesv1.CertificateSigningRequestCondition
		cert       []byte
		wantDelete bool
	}{
		{"no-delete-approved-not-passed-deadline", ago(5 * time.Minute), cond(certificatesv1.CertificateApproved, ago(5*time.Minute)), valid, false},
		{"no-delete-denied-not-passed-deadline", ago(5 * time.Minute), cond(certificatesv1.CertificateDenied, ago(5*time.Minute)), nil, false},
		{"no-delete-failed-not-passed-deadline", ago(5 * time.Minute), cond(certificatesv1.CertificateFailed, ago(5*time.Minute)), nil, false},
		{"no-delete-pending-not-passed-deadline", ago(5 * time.Minute), nil, nil, false},
		{"no-delete-approved-passed-deadline-not-issued", ago(2 * time.Hour), cond(certificatesv1.CertificateApproved, ago(2*time.Hour)), nil, false},
		{"delete-approved-passed-deadline", ago(2 * time.Hour), cond(certificatesv1.CertificateApproved, ago(2*time.Hour)), valid, true},
		{"delete-denied-passed-deadline", ago(2 * time.Hour), cond(certificatesv1.CertificateDenied, ago(2*time.Hour)), nil, true},
		{"delete-failed-passed-deadline", ago(2 * time.Hour), cond(certificatesv1.CertificateFailed, ago(2*time.Hour)), nil, true},
		{"delete-pending-passed-deadline", ago(25 * time.Hour), nil, nil, true},
		{"no-delete-approved-not-passed-deadline-unexpired", ago(5 * time.Minute), cond(certificatesv1.CertificateApproved, ago(5*time.Minute)), valid, false},
		{"delete-approved-not-passed-deadline-expired", ago(5 * time.Minute), cond(certificatesv1.CertificateApproved, ago(5*time.Minute)), expired, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: tc.name, CreationTimestamp: tc.created},
				Status: certificatesv1.CertificateSigningRequestStatus{Conditions: tc.conditions, Certificate: tc.cert}}
			// The request is not stored: the delete is what the test looks
			// at (its NotFound is ignored, as for a request already gone).
			env.ClearActions()
			if err := c.handle(env.Ctx, csr); err != nil {
				t.Fatal(err)
			}
			if tc.wantDelete {
				env.ExpectWrites(t, "delete certificatesigningrequests "+tc.name)
			} else {
				env.ExpectWrites(t)
			}
		})
	}
}
