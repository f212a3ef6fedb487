package pki

import (
	"crypto"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
)

// CertSpec is what a certificate issued by [CA.EnsureCert] says: whom it
// names and what it may be used for.
type CertSpec struct {
	// CommonName and Organization are the subject. For a client
	// certificate they are the user name and the groups the apiserver's
	// x509 authenticator reads.
	CommonName   string
	Organization []string
	// Client and Server choose the extended key usages (clientAuth,
	// serverAuth); a peer certificate (etcd's) has both.
	Client, Server bool
	// Hosts are the DNS names and IP addresses the certificate is valid
	// for, as subject alternative names.
	Hosts []string
}

// EnsureCert returns the certificate at certFile and its key at keyFile,
// both PEM, issued by ca for spec. An existing key is always kept (a new
// one is made only when keyFile is missing); an existing certificate is
// kept while ca signed it for that key, with the same subject, usages and
// names, and it is not about to expire — otherwise it is issued again.
// So running it twice writes nothing the second time, and a changed spec
// (a new address) gets a new certificate for the same key.
func (ca *CA) EnsureCert(certFile, keyFile string, spec CertSpec) (certPEM, keyPEM []byte, err error) {
	if spec.CommonName == "" {
		return nil, nil, errors.New("certificate needs a common name")
	}
	if !spec.Client && !spec.Server {
		return nil, nil, fmt.Errorf("certificate for %q: neither client nor server", spec.CommonName)
	}
	key, err := ensureKey(keyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("key for %q: %w", spec.CommonName, err)
	}
	if keyPEM, err = os.ReadFile(keyFile); err != nil {
		return nil, nil, err
	}
	var usages []x509.ExtKeyUsage
	if spec.Client {
		usages = append(usages, x509.ExtKeyUsageClientAuth)
	}
	if spec.Server {
		usages = append(usages, x509.ExtKeyUsageServerAuth)
	}
	want := newSANs(spec.Hosts)

	cert, existing, err := readCert(certFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, nil, err
	case ca.matches(cert, key, spec, usages, want):
		return existing, keyPEM, nil
	}

	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: spec.CommonName, Organization: slices.Clone(spec.Organization)},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: usages,
		DNSNames:    want.dns,
		IPAddresses: want.ips(),
	}
	if certPEM, err = ca.sign(template, key.Public()); err != nil {
		return nil, nil, fmt.Errorf("certificate for %q: %w", spec.CommonName, err)
	}
	if err := writeFileAtomic(certFile, certPEM, 0o644); err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}

// matches reports whether cert is still what spec asks of ca for key.
func (ca *CA) matches(cert *x509.Certificate, key crypto.Signer, spec CertSpec, usages []x509.ExtKeyUsage, want *sans) bool {
	for _, u := range usages {
		if !ca.stillGood(cert, u) {
			return false
		}
	}
	have := newSANs(nil)
	have.add(cert)
	sameNames := want.coveredBy(cert) && len(have.dns) == len(want.dns) && len(have.ipSet) == len(want.ipSet)
	return sameNames && slices.Equal(cert.ExtKeyUsage, usages) &&
		cert.Subject.CommonName == spec.CommonName && slices.Equal(cert.Subject.Organization, spec.Organization) &&
		samePublicKey(cert, key)
}
