package ingress

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/networkingv1"
)

// addCertificates loads the certificates of an Ingress's spec.tls: each
// entry's Secret (kubernetes.io/tls, in the Ingress's namespace, keys
// tls.crt and tls.key) serves the entry's hosts. A host another, older
// Ingress already gave a certificate keeps that one.
func (t *Table) addCertificates(objs Objects, ing *networkingv1.Ingress) {
	for _, entry := range ing.Spec.TLS {
		if entry.SecretName == "" || len(entry.Hosts) == 0 {
			continue
		}
		sec := objs.Secrets[ing.Namespace+"/"+entry.SecretName]
		if sec == nil {
			t.warn(ing, "SecretNotFound", "secret %s/%s not found: the hosts %s get the default certificate", ing.Namespace, entry.SecretName, strings.Join(entry.Hosts, ","))
			continue
		}
		if sec.Type != corev1.SecretTypeTLS {
			t.warn(ing, "InvalidSecret", "secret %s/%s is of type %q, not %q", ing.Namespace, entry.SecretName, sec.Type, corev1.SecretTypeTLS)
			continue
		}
		cert, err := tls.X509KeyPair(sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey])
		if err != nil {
			t.warn(ing, "InvalidSecret", "secret %s/%s: %v", ing.Namespace, entry.SecretName, err)
			continue
		}
		for _, h := range entry.Hosts {
			h = strings.ToLower(h)
			m, key := t.certs, h
			if suffix, ok := strings.CutPrefix(h, "*."); ok {
				m, key = t.wildcardCerts, suffix
			}
			if m[key] == nil {
				m[key] = &cert
			}
		}
	}
}

// Certificate picks the certificate of a TLS ClientHello's server name
// (SNI): the host's own, else its one-label wildcard's; nil when the
// table has none (the caller answers with the default certificate).
func (t *Table) Certificate(serverName string) *tls.Certificate {
	h := NormalizeHost(serverName)
	if c := t.certs[h]; c != nil {
		return c
	}
	if _, suffix, ok := strings.Cut(h, "."); ok {
		return t.wildcardCerts[suffix]
	}
	return nil
}

// FakeCertificate is the certificate for names no Secret covers: a
// self-signed one made at start, as ingress-nginx's "Kubernetes Ingress
// Controller Fake Certificate".
func FakeCertificate() (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial,
		Subject:   pkix.Name{Organization: []string{"Acme Co"}, CommonName: "Kubernetes Ingress Controller Fake Certificate"},
		DNSNames:  []string{"ingress.local"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().AddDate(1, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
