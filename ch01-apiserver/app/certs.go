package app

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"

	"kubik/ch01-apiserver/pki"
)

// AddCertificateFlags registers upstream's flags for certificates made
// elsewhere (Kubernetes The Hard Way's, kubeadm's): the serving pair and
// the CA of client certificates. A program that runs only the apiserver
// registers them; a chapter's one program does not, since its kubelet has
// flags of the same names.
func (o *Options) AddCertificateFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile,
		"the apiserver's serving certificate (with --tls-private-key-file and --client-ca-file; default: one issued by the CA in --data-dir)")
	fs.StringVar(&o.TLSPrivateKeyFile, "tls-private-key-file", o.TLSPrivateKeyFile, "the key of --tls-cert-file")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile,
		"PEM bundle of the CAs whose client certificates authenticate users: CommonName the user, Organization the groups (default: the CA in --data-dir)")
}

// externalPKI reports whether the certificates were made elsewhere.
func (o *Options) externalPKI() bool {
	return o.TLSCertFile != "" || o.TLSPrivateKeyFile != "" || o.ClientCAFile != ""
}

// servingCerts are the apiserver's TLS identity and the CAs its clients'
// certificates are checked against.
type servingCerts struct {
	ca       *pki.CA // the CA in --data-dir; nil when the certificates were made elsewhere
	serving  tls.Certificate
	clientCA *x509.CertPool
	// clientCAPEM is clientCA as PEM, published for extension apiservers.
	clientCAPEM []byte
}

// servingCerts loads the given certificates, or — none given, every
// chapter's way — ensures a CA in --data-dir and a serving certificate
// from it for every address the apiserver is reached at.
func (o *Options) servingCerts(serviceCIDR netip.Prefix) (*servingCerts, error) {
	if o.externalPKI() {
		if o.TLSCertFile == "" || o.TLSPrivateKeyFile == "" || o.ClientCAFile == "" {
			return nil, errors.New("--tls-cert-file, --tls-private-key-file and --client-ca-file go together")
		}
		pair, err := tls.LoadX509KeyPair(o.TLSCertFile, o.TLSPrivateKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert-file: %w", err)
		}
		pool, err := readCAFile(o.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("--client-ca-file: %w", err)
		}
		pem, _ := os.ReadFile(o.ClientCAFile)
		return &servingCerts{serving: pair, clientCA: pool, clientCAPEM: pem}, nil
	}

	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return nil, err
	}
	ca, err := pki.EnsureCA(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("cluster CA: %w", err)
	}
	hosts := append([]string{o.BindAddress}, o.ListenAlso...)
	if o.AdvertiseAddress != "" {
		hosts = append(hosts, o.AdvertiseAddress)
	}
	hosts = append(hosts, serviceCIDR.Addr().Next().String())
	certFile, keyFile, err := ca.EnsureServingCert(o.DataDir, hosts)
	if err != nil {
		return nil, fmt.Errorf("serving certificate: %w", err)
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	return &servingCerts{ca: ca, serving: pair, clientCA: ca.CertPool(), clientCAPEM: ca.CertPEM}, nil
}

// readCAFile reads a PEM bundle of CA certificates into a pool.
func readCAFile(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("no certificate in %s", path)
	}
	return pool, nil
}
