package pki

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
)

// IssueServingCert issues a serving certificate for commonName, valid for
// hosts (DNS names and IP addresses), with a new key; nothing is written
// to disk. The kubelet's API on port 10250 uses one (upstream's kubelet
// makes a self-signed one, or has it signed through a
// CertificateSigningRequest; Kubik's node program holds the CA and signs
// it directly), so the apiserver can verify whom it talks to.
func (ca *CA) IssueServingCert(commonName string, hosts []string) (certPEM, keyPEM []byte, err error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	names := newSANs(hosts)
	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    names.dns,
		IPAddresses: names.ips(),
	}
	if certPEM, err = ca.sign(template, key.Public()); err != nil {
		return nil, nil, fmt.Errorf("serving certificate for %q: %w", commonName, err)
	}
	if keyPEM, err = encodeKey(key); err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}
