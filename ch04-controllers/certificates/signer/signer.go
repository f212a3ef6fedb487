// Package signer is the csrsigning controller: it issues the certificates
// of approved CertificateSigningRequests for the built-in signers, from the
// cluster CA (--cluster-signing-cert-file, --cluster-signing-key-file):
//
//   - kubernetes.io/kube-apiserver-client: any client certificate
//     (usages: client auth, optionally digital signature and key
//     encipherment);
//   - kubernetes.io/kube-apiserver-client-kubelet: a kubelet's client
//     certificate (system:node:<name> in system:nodes, no SANs);
//   - kubernetes.io/kubelet-serving: a kubelet's serving certificate (a DNS
//     or IP name, server auth);
//   - kubernetes.io/legacy-unknown: anything (not reachable through v1).
//
// A request that does not have the shape its signer requires gets the
// condition Failed (reason SignerValidationFailure) instead of a
// certificate. The certificate lasts --cluster-signing-duration, or
// spec.expirationSeconds when that is shorter (at least 10 minutes).
//
// Upstream: pkg/controller/certificates/signer (with authority/, the
// CA and its PermissiveSigningPolicy); upstream runs one controller per
// signer (csrsigning-kubelet-serving, ...), this package one for all four.
package signer

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"time"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/certificates"
	"kubik/ch04-controllers/controller"
)

// DefaultClusterSigningDuration is --cluster-signing-duration's default.
const DefaultClusterSigningDuration = 365 * 24 * time.Hour

// The signing policy's backdating (upstream's values): NotBefore is five
// minutes early to absorb clock skew; a certificate shorter than shortTTL
// keeps its whole lifetime after now.
const (
	backdate = 5 * time.Minute
	shortTTL = 8 * time.Hour
	minTTL   = 10 * time.Minute // twice the backdate: the least a request gets
)

// isRequestForSignerFunc says whether the request is for the signer
// (recognized) and, if so, whether it may be signed (err).
type isRequestForSignerFunc func(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error

// signers are the built-in signers and the checks of their requests.
var signers = map[string]isRequestForSignerFunc{
	certificatesv1.KubeletServingSignerName:             certificates.ValidateKubeletServingCSR,
	certificatesv1.KubeAPIServerClientKubeletSignerName: certificates.ValidateKubeletClientCSR,
	certificatesv1.KubeAPIServerClientSignerName:        validAPIServerClientUsages,
	certificatesv1.LegacyUnknownSignerName:              func(*x509.CertificateRequest, []certificatesv1.KeyUsage) error { return nil },
}

// CSRSigningController signs approved requests.
type CSRSigningController struct {
	*certificates.CertificateController
	client  *rest.Client
	ca      *CertificateAuthority
	certTTL time.Duration
	now     func() time.Time
	skipped bool
	log     *slog.Logger
}

// Run signs until ctx ends.
func (s *CSRSigningController) Run(ctx context.Context, workers int) {
	if s.skipped {
		if s.log != nil {
			s.log.Info("Skipping CSR signer controller because no csr cert/key was specified", "controller", "csrsigning")
		}
		return
	}
	s.CertificateController.Run(ctx, workers)
}

// NewCSRSigningController loads the CA from caFile and caKeyFile (PEM);
// certTTL ≤ 0 is DefaultClusterSigningDuration. Without the files nothing
// signs: Run only says so, as upstream.
func NewCSRSigningController(cc *controller.ControllerContext, caFile, caKeyFile string, certTTL time.Duration) (*CSRSigningController, error) {
	if caFile == "" || caKeyFile == "" {
		return &CSRSigningController{skipped: true, log: cc.Log}, nil
	}
	if certTTL <= 0 {
		certTTL = DefaultClusterSigningDuration
	}
	ca, err := LoadCertificateAuthority(caFile, caKeyFile)
	if err != nil {
		return nil, err
	}
	s := &CSRSigningController{client: cc.Client, ca: ca, certTTL: certTTL, now: time.Now}
	s.CertificateController = certificates.NewCertificateController(cc, "csrsigning", s.handle)
	return s, nil
}

// handle issues the certificate of an approved request for one of the
// built-in signers, or marks it Failed.
func (s *CSRSigningController) handle(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) error {
	if !certificates.IsCertificateRequestApproved(csr) || certificates.HasTrueCondition(csr, certificatesv1.CertificateFailed) ||
		len(csr.Status.Certificate) > 0 {
		return nil
	}
	validate, ok := signers[csr.Spec.SignerName]
	if !ok {
		return nil // another signer's
	}
	x509cr, err := certificates.ParseCSR(csr.Spec.Request)
	if err != nil {
		return fmt.Errorf("unable to parse csr %q: %v", csr.Name, err)
	}
	if err := validate(x509cr, csr.Spec.Usages); err != nil {
		csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateFailed, Status: corev1.ConditionTrue,
			Reason: "SignerValidationFailure", Message: err.Error(), LastUpdateTime: metav1.NewTime(s.now()),
		})
		if _, err := rest.UpdateStatus(ctx, s.client, csr); err != nil {
			return fmt.Errorf("error adding failure condition for csr: %v", err)
		}
		s.Log().Info("refused to sign", "csr", csr.Name, "signer", csr.Spec.SignerName, "reason", err.Error())
		return nil
	}
	der, err := s.ca.Sign(x509cr, PermissiveSigningPolicy{
		TTL: s.duration(csr.Spec.ExpirationSeconds), Usages: csr.Spec.Usages,
		Backdate: backdate, Short: shortTTL, Now: s.now,
	})
	if err != nil {
		return fmt.Errorf("error auto signing csr: %v", err)
	}
	csr.Status.Certificate = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if _, err := rest.UpdateStatus(ctx, s.client, csr); err != nil {
		return fmt.Errorf("error updating signature for csr: %v", err)
	}
	s.Log().Info("signed", "csr", csr.Name, "signer", csr.Spec.SignerName)
	return nil
}

// duration is the certificate's lifetime: --cluster-signing-duration, or
// the shorter one the request asks for, but never under 10 minutes.
func (s *CSRSigningController) duration(expirationSeconds *int32) time.Duration {
	if expirationSeconds == nil {
		return s.certTTL
	}
	switch requested := time.Duration(*expirationSeconds) * time.Second; {
	case requested > s.certTTL:
		return s.certTTL
	case requested < minTTL:
		return minTTL
	default:
		return requested
	}
}

// validAPIServerClientUsages: client auth is required; digital signature
// and key encipherment are allowed; nothing else is.
func validAPIServerClientUsages(_ *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	hasClientAuth := false
	for _, u := range usages {
		switch u {
		case certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment:
		case certificatesv1.UsageClientAuth:
			hasClientAuth = true
		default:
			return fmt.Errorf("invalid usage for client certificate: %s", u)
		}
	}
	if !hasClientAuth {
		return fmt.Errorf("missing required usage for client certificate: %s", certificatesv1.UsageClientAuth)
	}
	return nil
}

// CertificateAuthority is the CA certificate and its key. Upstream:
// authority.CertificateAuthority.
type CertificateAuthority struct {
	Certificate *x509.Certificate
	PrivateKey  crypto.Signer
}

// LoadCertificateAuthority reads a PEM certificate and its PEM key (EC,
// PKCS#1 or PKCS#8).
func LoadCertificateAuthority(certFile, keyFile string) (*CertificateAuthority, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("error reading CSR signer cert file: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("error reading CSR signer key file: %w", err)
	}
	block, _ := pem.Decode(certPEM)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("%s: no CERTIFICATE PEM block", certFile)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	key, err := parsePrivateKey(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyFile, err)
	}
	return &CertificateAuthority{Certificate: cert, PrivateKey: key}, nil
}

func parsePrivateKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM data")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("unexpected PEM block %q", block.Type)
	}
	if err != nil {
		return nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("unsupported key type %T", key)
	}
	return signer, nil
}

// serialNumberLimit: serials are random 128-bit numbers.
var serialNumberLimit = new(big.Int).Lsh(big.NewInt(1), 128)

// Sign checks the request's signature and issues a certificate (DER) for
// its subject, names and key under policy.
func (ca *CertificateAuthority) Sign(cr *x509.CertificateRequest, policy PermissiveSigningPolicy) ([]byte, error) {
	if err := cr.CheckSignature(); err != nil {
		return nil, fmt.Errorf("unable to verify certificate request signature: %v", err)
	}
	serialNumber, err := rand.Int(rand.Reader, serialNumberLimit)
	if err != nil {
		return nil, fmt.Errorf("unable to generate a serial number for %s: %v", cr.Subject.CommonName, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:       serialNumber,
		Subject:            cr.Subject,
		DNSNames:           cr.DNSNames,
		IPAddresses:        cr.IPAddresses,
		EmailAddresses:     cr.EmailAddresses,
		URIs:               cr.URIs,
		PublicKeyAlgorithm: cr.PublicKeyAlgorithm,
		PublicKey:          cr.PublicKey,
	}
	if err := policy.apply(tmpl, ca.Certificate.NotAfter); err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Certificate, cr.PublicKey, ca.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("failed to sign certificate: %v", err)
	}
	return der, nil
}
