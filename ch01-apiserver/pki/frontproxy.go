package pki

import (
	"fmt"
	"path/filepath"
)

// The front proxy's PKI, as kubeadm lays it out: a CA of its own (the
// extension apiservers trust it for requests carrying the user in
// X-Remote-* headers) and the client certificate the apiserver presents
// when it proxies to them.
const (
	FrontProxyCACertFile     = "front-proxy-ca.crt"
	FrontProxyCAKeyFile      = "front-proxy-ca.key"
	FrontProxyClientCertFile = "front-proxy-client.crt"
	FrontProxyClientKeyFile  = "front-proxy-client.key"
	// FrontProxyClientName is the client certificate's CommonName, the
	// one name --requestheader-allowed-names allows.
	FrontProxyClientName = "front-proxy-client"
)

// FrontProxy is the front proxy's CA and client certificate files.
type FrontProxy struct {
	CA                      *CA
	ClientCertFile, KeyFile string
	CACertFile              string
}

// EnsureFrontProxy loads or creates, in <dataDir>/pki, the front-proxy CA
// (CommonName front-proxy-ca) and the client certificate it issues to the
// apiserver (CommonName front-proxy-client).
func EnsureFrontProxy(dataDir string) (*FrontProxy, error) {
	dir := Dir(dataDir)
	caCert := filepath.Join(dir, FrontProxyCACertFile)
	ca, err := ensureCA(caCert, filepath.Join(dir, FrontProxyCAKeyFile), "front-proxy-ca")
	if err != nil {
		return nil, fmt.Errorf("front-proxy CA: %w", err)
	}
	fp := &FrontProxy{CA: ca, CACertFile: caCert,
		ClientCertFile: filepath.Join(dir, FrontProxyClientCertFile), KeyFile: filepath.Join(dir, FrontProxyClientKeyFile)}
	if _, _, err := ca.EnsureCert(fp.ClientCertFile, fp.KeyFile, CertSpec{CommonName: FrontProxyClientName, Client: true}); err != nil {
		return nil, fmt.Errorf("front-proxy client certificate: %w", err)
	}
	return fp, nil
}
