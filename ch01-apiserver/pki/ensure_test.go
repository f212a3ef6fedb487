package pki

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnsureCert: the certificate says what the spec asks; a second call
// keeps both files; a changed spec reissues the certificate for the same
// key; a certificate of another CA is replaced.
func TestEnsureCert(t *testing.T) {
	dir := t.TempDir()
	ca, err := EnsureCAIn(filepath.Join(dir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pki", CACertFile)); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "x.crt"), filepath.Join(dir, "x.key")
	spec := CertSpec{CommonName: "etcd-1", Organization: []string{"g"}, Client: true, Server: true, Hosts: []string{"etcd-1", "10.0.0.1"}}
	certPEM, keyPEM, err := ca.EnsureCert(certFile, keyFile, spec)
	if err != nil {
		t.Fatal(err)
	}
	cert, _, err := readCert(certFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.CertPool(), KeyUsages: []x509.ExtKeyUsage{u}, DNSName: "etcd-1"}); err != nil {
			t.Errorf("usage %v: %v", u, err)
		}
	}
	if cert.Subject.CommonName != "etcd-1" || cert.Subject.Organization[0] != "g" || cert.IPAddresses[0].String() != "10.0.0.1" {
		t.Fatalf("subject %v, IPs %v", cert.Subject, cert.IPAddresses)
	}

	again, againKey, err := ca.EnsureCert(certFile, keyFile, spec)
	if err != nil || !bytes.Equal(again, certPEM) || !bytes.Equal(againKey, keyPEM) {
		t.Fatalf("a second call changed something: %v", err)
	}
	spec.Hosts = []string{"etcd-1"} // a name fewer: reissued, same key
	changed, changedKey, err := ca.EnsureCert(certFile, keyFile, spec)
	if err != nil || bytes.Equal(changed, certPEM) || !bytes.Equal(changedKey, keyPEM) {
		t.Fatalf("changed spec: new cert %v, same key %v, %v", !bytes.Equal(changed, certPEM), bytes.Equal(changedKey, keyPEM), err)
	}

	other, err := EnsureCAIn(filepath.Join(dir, "other"))
	if err != nil {
		t.Fatal(err)
	}
	byOther, _, err := other.EnsureCert(certFile, keyFile, spec)
	if err != nil || bytes.Equal(byOther, changed) {
		t.Fatalf("another CA kept this CA's certificate: %v", err)
	}

	if _, _, err := ca.EnsureCert(certFile, keyFile, CertSpec{CommonName: "x"}); err == nil || !strings.Contains(err.Error(), "neither client nor server") {
		t.Fatalf("no usage: %v", err)
	}
}

// TestWriteKubeconfigWithCert: the file names the cluster given and uses
// the certificate given.
func TestWriteKubeconfigWithCert(t *testing.T) {
	dir := t.TempDir()
	ca, err := EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.IssueClientCert("u", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "u.kubeconfig")
	if err := ca.WriteKubeconfigWithCert(path, "lab", "https://10.0.0.1:6443", "u", certPEM, keyPEM); err != nil {
		t.Fatal(err)
	}
	k, err := LoadKubeconfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if k.Cluster != "lab" || k.Context != "u@lab" || k.Server != "https://10.0.0.1:6443" || len(k.TLS.Certificates) != 1 {
		t.Fatalf("%+v", k)
	}
	if x, _ := x509.ParseCertificate(k.TLS.Certificates[0].Certificate[0]); x == nil || x.Subject.CommonName != "u" {
		t.Fatal("not the certificate given")
	}
}
