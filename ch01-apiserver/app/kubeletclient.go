package app

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"

	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/pki"
)

// addKubeletClientFlags registers upstream's flags for how the apiserver
// calls kubelets (pods/log, exec, attach, port-forward).
func (o *Options) addKubeletClientFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.KubeletClientCertificate, "kubelet-client-certificate", "",
		"client certificate the apiserver presents to kubelets (default: one issued by the cluster CA for user kube-apiserver-kubelet-client)")
	fs.StringVar(&o.KubeletClientKey, "kubelet-client-key", "", "the key of --kubelet-client-certificate")
	fs.StringVar(&o.KubeletCertificateAuthority, "kubelet-certificate-authority", "",
		"PEM file of the CA that signs the kubelets' serving certificates (default: the cluster CA)")
}

// kubeletClientConfig fills cfg.KubeletClientCert and cfg.KubeletCA. By
// default the identity kube-apiserver-kubelet-client is issued in memory
// at every start (nothing to renew, nothing on disk), and kubelets must
// present a serving certificate of the cluster CA. With certificates made
// elsewhere (ca nil) the client certificate must be given, and the
// kubelets' CA defaults to clientCA (--client-ca-file).
func (o *Options) kubeletClientConfig(cfg *apiserver.Config, ca *pki.CA, clientCA *x509.CertPool) error {
	var pair tls.Certificate
	var err error
	switch {
	case o.KubeletClientCertificate != "" && o.KubeletClientKey != "":
		pair, err = tls.LoadX509KeyPair(o.KubeletClientCertificate, o.KubeletClientKey)
	case o.KubeletClientCertificate != "" || o.KubeletClientKey != "":
		return errors.New("--kubelet-client-certificate and --kubelet-client-key go together")
	case ca == nil:
		return errors.New("--kubelet-client-certificate and --kubelet-client-key are required with --tls-cert-file (no CA in --data-dir to issue them)")
	default:
		var certPEM, keyPEM []byte
		if certPEM, keyPEM, err = ca.IssueClientCert(pki.KubeletClient.User, pki.KubeletClient.Groups); err == nil {
			pair, err = tls.X509KeyPair(certPEM, keyPEM)
		}
	}
	if err != nil {
		return fmt.Errorf("kubelet client certificate: %w", err)
	}
	cfg.KubeletClientCert = &pair
	cfg.KubeletCA = clientCA
	if o.KubeletCertificateAuthority != "" {
		if cfg.KubeletCA, err = readCAFile(o.KubeletCertificateAuthority); err != nil {
			return fmt.Errorf("--kubelet-certificate-authority: %w", err)
		}
	}
	return nil
}
