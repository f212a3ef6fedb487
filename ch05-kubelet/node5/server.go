package node5

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"kubik/ch01-apiserver/pki"
	"kubik/ch05-kubelet/kubelet/server"
)

// ServerFlags are the kubelet API's flags, with upstream's names.
type ServerFlags struct {
	Address, TLSCertFile, TLSKeyFile, ClientCAFile string
	Port                                           int
}

func (f *ServerFlags) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.Address, "address", f.Address, "the address the kubelet API (logs, exec, port-forward) listens on (default: --node-ip)")
	fs.IntVar(&f.Port, "port", f.Port, "the kubelet API's port (0: no kubelet API)")
	fs.StringVar(&f.TLSCertFile, "tls-cert-file", f.TLSCertFile, "the kubelet API's serving certificate (default: one issued by the cluster CA at start, written to --root-dir/pki/kubelet.crt)")
	fs.StringVar(&f.TLSKeyFile, "tls-private-key-file", f.TLSKeyFile, "the key of --tls-cert-file")
	fs.StringVar(&f.ClientCAFile, "client-ca-file", f.ClientCAFile, "CA whose client certificates the kubelet API accepts (default: the cluster CA)")
}

// config builds the kubelet API's server.Config. By default the serving
// certificate is issued by the cluster CA for the node's name, hostname
// and IP, so the apiserver can verify it.
func (f *ServerFlags) config(ca *pki.CA, nodeName, nodeIP, rootDir string) (server.Config, error) {
	sc := server.Config{Address: f.Address, Port: f.Port}
	if ca != nil {
		sc.ClientCA = ca.CertPool()
	}
	if f.Port == 0 {
		return sc, nil
	}
	var err error
	switch {
	case f.TLSCertFile != "" && f.TLSKeyFile != "":
		sc.ServingCert, err = tls.LoadX509KeyPair(f.TLSCertFile, f.TLSKeyFile)
	case f.TLSCertFile != "" || f.TLSKeyFile != "":
		return sc, errors.New("--tls-cert-file and --tls-private-key-file go together")
	default:
		hosts := []string{nodeName, nodeIP, "localhost", "127.0.0.1"}
		if h, herr := os.Hostname(); herr == nil {
			hosts = append(hosts, h)
		}
		if f.Address != "" {
			hosts = append(hosts, f.Address)
		}
		var certPEM, keyPEM []byte
		if certPEM, keyPEM, err = ca.IssueServingCert(nodeName, hosts); err != nil {
			return sc, err
		}
		dir := filepath.Join(rootDir, "pki")
		if err = os.MkdirAll(dir, 0o755); err != nil {
			return sc, err
		}
		if err = os.WriteFile(filepath.Join(dir, "kubelet.crt"), certPEM, 0o644); err != nil {
			return sc, err
		}
		if err = os.WriteFile(filepath.Join(dir, "kubelet.key"), keyPEM, 0o600); err != nil {
			return sc, err
		}
		sc.ServingCert, err = tls.X509KeyPair(certPEM, keyPEM)
	}
	if err != nil {
		return sc, fmt.Errorf("kubelet serving certificate: %w", err)
	}
	if f.ClientCAFile != "" {
		data, err := os.ReadFile(f.ClientCAFile)
		if err != nil {
			return sc, fmt.Errorf("--client-ca-file: %w", err)
		}
		sc.ClientCA = x509.NewCertPool()
		if !sc.ClientCA.AppendCertsFromPEM(data) {
			return sc, fmt.Errorf("--client-ca-file: no certificate in %s", f.ClientCAFile)
		}
	}
	return sc, nil
}
