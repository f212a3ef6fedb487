// Package pki keeps the cluster's certificates in the data dir, laid out the
// way kubeadm lays out /etc/kubernetes/pki:
//
//	<data-dir>/pki/ca.crt, ca.key                 cluster CA (10 years)
//	<data-dir>/pki/apiserver.crt, apiserver.key   apiserver serving certificate (1 year)
//	<data-dir>/pki/sa.key, sa.pub                 service-account token signing key pair
//
// Client identities (one per user or component) are issued on demand by
// [CA.IssueClientCert] and packed into kubeconfigs by [CA.WriteKubeconfig].
//
// Every Ensure function reuses what is already on disk, so restarting the
// apiserver, or starting a second one on the same data dir, keeps the same CA
// and every kubeconfig issued before stays valid. Files are created with
// write-to-temp-then-link, so two processes starting at once on an empty data
// dir still end up with one CA.
//
// Keys are ECDSA P-256: kubeadm supports them (encryptionAlgorithm:
// ECDSA-P256) and they are generated in microseconds, which keeps tests fast.
package pki

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// File names inside <data-dir>/pki, the same as kubeadm's.
const (
	CACertFile        = "ca.crt"
	CAKeyFile         = "ca.key"
	APIServerCertFile = "apiserver.crt"
	APIServerKeyFile  = "apiserver.key"
	SAKeyFile         = "sa.key"
	SAPubFile         = "sa.pub"
)

// Validity periods, as kubeadm issues them.
const (
	CAValidity   = 10 * 365 * 24 * time.Hour
	LeafValidity = 365 * 24 * time.Hour
)

// renewBefore is how close to expiry a reused leaf certificate may get
// before EnsureServingCert issues a fresh one.
const renewBefore = 30 * 24 * time.Hour

// Dir returns the directory that holds the PKI of a data dir.
func Dir(dataDir string) string { return filepath.Join(dataDir, "pki") }

// CA is the cluster certificate authority: it signs the serving certificate
// and every client certificate, and every component trusts it.
type CA struct {
	Cert    *x509.Certificate
	CertPEM []byte
	Key     crypto.Signer
}

// EnsureCA loads the CA from <dataDir>/pki, creating it first if needed.
func EnsureCA(dataDir string) (*CA, error) { return EnsureCAIn(Dir(dataDir)) }

// EnsureCAIn is EnsureCA for a PKI directory named directly: the CA is
// dir/ca.crt and dir/ca.key.
func EnsureCAIn(dir string) (*CA, error) {
	return ensureCA(filepath.Join(dir, CACertFile), filepath.Join(dir, CAKeyFile), "kubernetes")
}

// ensureCA loads or creates the CA at certPath and keyPath, its subject
// commonName.
func ensureCA(certPath, keyPath, commonName string) (*CA, error) {

	key, err := ensureKey(keyPath)
	if err != nil {
		return nil, fmt.Errorf("CA key: %w", err)
	}

	if _, err := os.Stat(certPath); errors.Is(err, fs.ErrNotExist) {
		// A self-signed certificate can always be made again from the key:
		// every certificate signed by the key stays valid under it. So a
		// lost race (or a crash between writing the key and the certificate)
		// just means using the certificate somebody else wrote.
		tmpl := caTemplate(commonName)
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
		if err != nil {
			return nil, fmt.Errorf("CA certificate: %w", err)
		}
		if _, err := writeFileExclusive(certPath, encodeCert(der), 0o644); err != nil {
			return nil, err
		}
	}

	cert, certPEM, err := readCert(certPath)
	if err != nil {
		return nil, err
	}
	if !cert.IsCA {
		return nil, fmt.Errorf("%s is not a CA certificate", certPath)
	}
	if !samePublicKey(cert, key) {
		return nil, fmt.Errorf("%s does not match %s", certPath, keyPath)
	}
	return &CA{Cert: cert, CertPEM: certPEM, Key: key}, nil
}

func caTemplate(commonName string) *x509.Certificate {
	now := time.Now()
	return &x509.Certificate{
		SerialNumber:          serialNumber(),
		Subject:               pkix.Name{CommonName: commonName}, // kubeadm's CA subjects: kubernetes, front-proxy-ca
		NotBefore:             now.Add(-time.Minute),             // tolerate small clock skew
		NotAfter:              now.Add(CAValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
}

// CertPool returns a pool holding only the cluster CA: what servers use to
// verify client certificates and clients use to verify the apiserver.
func (ca *CA) CertPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return pool
}

// sign issues a leaf certificate for pub from template, filling in the
// fields every leaf shares.
func (ca *CA) sign(template *x509.Certificate, pub crypto.PublicKey) ([]byte, error) {
	now := time.Now()
	template.SerialNumber = serialNumber()
	template.NotBefore = now.Add(-time.Minute)
	template.NotAfter = now.Add(LeafValidity)
	if template.NotAfter.After(ca.Cert.NotAfter) {
		template.NotAfter = ca.Cert.NotAfter
	}
	template.BasicConstraintsValid = true
	der, err := x509.CreateCertificate(rand.Reader, template, ca.Cert, pub, ca.Key)
	if err != nil {
		return nil, err
	}
	return encodeCert(der), nil
}

// serialNumber returns a random positive 128-bit serial, as RFC 5280 asks.
func serialNumber() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return n.Add(n, big.NewInt(1))
}
