package pki

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"kubik/ch01-apiserver/pki"
	"kubik/ch06-cni/nodeagent"
)

// The files of the directory. A certificate NAME is NAME.crt and its key
// NAME.key; a component's kubeconfig is NAME.kubeconfig.
const (
	CA            = "ca"              // ca.crt, ca.key: the cluster CA, which every component trusts
	APIServer     = "kube-api-server" // the apiservers' serving certificate (every SAN, shared)
	KubeletClient = "apiserver-kubelet-client"
	EtcdClient    = "apiserver-etcd-client" // the apiservers' client certificate to etcd
	// EtcdHealthcheckClient is a client certificate to etcd for etcdctl
	// (kubeadm's healthcheck-client).
	EtcdHealthcheckClient  = "etcd-healthcheck-client"
	KubeProxy              = "kube-proxy"
	KubeScheduler          = "kube-scheduler"
	KubeControllerManager  = "kube-controller-manager"
	CloudControllerManager = "cloud-controller-manager"
	Admin                  = "admin"
	// ServiceAccountKey and ServiceAccountPub sign and verify
	// ServiceAccount tokens (the apiservers' --service-account-*-file,
	// the controller manager's --service-account-private-key-file).
	ServiceAccountKey = pki.SAKeyFile
	ServiceAccountPub = pki.SAPubFile
	// EncryptionConfig is the apiservers' --encryption-provider-config.
	EncryptionConfig = "encryption-config.yaml"
)

// The per-machine certificates.
func EtcdServer(member string) string { return "etcd-server-" + member } // etcd's --cert-file
func EtcdPeer(member string) string   { return "etcd-peer-" + member }   // etcd's --peer-cert-file
func KubeletClientCert(node string) string {
	return node // system:node:<node>, the kubelet's kubeconfig identity (The Hard Way's node-0.crt)
}
func KubeletServing(node string) string { return node + "-serving" } // the kubelet's --tls-cert-file
func NodeAgent(node string) string      { return node + "-node-agent" }

// CloudControllerManagerIdentity is the cloud controller manager's user:
// upstream's ClusterRole for it is system:cloud-controller-manager.
var CloudControllerManagerIdentity = pki.Identity{User: "system:cloud-controller-manager"}

// Write makes sure dir holds every file of t's PKI, creating what is
// missing, keeping every key and every certificate that still says what it
// should.
func Write(dir string, t Topology) error {
	t, err := t.withDefaults()
	if err != nil {
		return err
	}
	lbHost, _, err := t.lbHostPort()
	if err != nil {
		return err
	}
	lbURL, _ := t.LoadBalancerURL()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, err := pki.EnsureCAIn(dir)
	if err != nil {
		return err
	}
	if _, err := pki.EnsureServiceAccountKeyIn(dir); err != nil {
		return err
	}
	w := writer{dir: dir, ca: ca, cluster: t.ClusterName}

	// The apiservers: one serving certificate for every name they are
	// reached by — the load balancer, each control-plane machine, the
	// kubernetes Service's ClusterIP and DNS names, loopback.
	first, _ := pki.FirstIP(t.ServiceClusterIPRange)
	hosts := []string{lbHost, first.String(), "127.0.0.1", "localhost",
		"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc." + t.ClusterDomain}
	for _, m := range t.ControlPlane {
		hosts = append(hosts, m.IP.String(), m.Name)
	}
	w.cert(APIServer, pki.CertSpec{CommonName: "kube-apiserver", Server: true, Hosts: hosts})
	w.cert(KubeletClient, pki.CertSpec{CommonName: pki.KubeletClient.User, Organization: pki.KubeletClient.Groups, Client: true})
	w.cert(EtcdClient, pki.CertSpec{CommonName: "kube-apiserver-etcd-client", Client: true})
	w.cert(EtcdHealthcheckClient, pki.CertSpec{CommonName: "kube-etcd-healthcheck-client", Client: true})

	// etcd: each member serves clients and its peers with certificates
	// for its own names; peers are both server and client to each other.
	for _, m := range t.ControlPlane {
		names := []string{m.Name, m.IP.String(), "localhost", "127.0.0.1"}
		w.cert(EtcdServer(m.Name), pki.CertSpec{CommonName: m.Name, Server: true, Client: true, Hosts: names})
		w.cert(EtcdPeer(m.Name), pki.CertSpec{CommonName: m.Name, Server: true, Client: true, Hosts: names})
	}

	// The control plane's components talk to their own machine's apiserver.
	local := t.LocalAPIServerURL()
	w.kubeconfig(KubeScheduler, local, pki.Scheduler)
	w.kubeconfig(KubeControllerManager, local, pki.ControllerManager)
	w.kubeconfig(CloudControllerManager, local, CloudControllerManagerIdentity)

	// The workers' components and admin go through the load balancer.
	w.kubeconfig(Admin, lbURL, pki.Admin)
	w.kubeconfig(KubeProxy, lbURL, pki.KubeProxy)
	for _, m := range t.Workers {
		w.kubeconfig(KubeletClientCert(m.Name), lbURL, pki.Node(m.Name))
		w.cert(KubeletServing(m.Name), pki.CertSpec{CommonName: m.Name, Server: true,
			Hosts: []string{m.Name, m.IP.String(), "localhost", "127.0.0.1"}})
		w.kubeconfig(NodeAgent(m.Name), lbURL, nodeagent.Identity(m.Name))
	}
	if w.err != nil {
		return w.err
	}
	return ensureEncryptionConfig(filepath.Join(dir, EncryptionConfig))
}

// writer issues into dir, keeping the first error.
type writer struct {
	dir     string
	ca      *pki.CA
	cluster string
	err     error
}

func (w *writer) cert(name string, spec pki.CertSpec) (certPEM, keyPEM []byte) {
	if w.err != nil {
		return nil, nil
	}
	certPEM, keyPEM, w.err = w.ca.EnsureCert(filepath.Join(w.dir, name+".crt"), filepath.Join(w.dir, name+".key"), spec)
	return certPEM, keyPEM
}

// kubeconfig issues name's client certificate for id and writes
// name.kubeconfig with it embedded, reaching server.
func (w *writer) kubeconfig(name, server string, id pki.Identity) {
	certPEM, keyPEM := w.cert(name, pki.CertSpec{CommonName: id.User, Organization: id.Groups, Client: true})
	if w.err != nil {
		return
	}
	w.err = w.ca.WriteKubeconfigWithCert(filepath.Join(w.dir, name+".kubeconfig"), w.cluster, server, id.User, certPEM, keyPEM)
}

// ensureEncryptionConfig writes The Hard Way's encryption configuration —
// Secrets encrypted with aescbc under a random key "key1", plain values
// still readable — unless the file exists (its key encrypts what is in
// etcd already).
func ensureEncryptionConfig(path string) error {
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	config := fmt.Sprintf(`kind: EncryptionConfiguration
apiVersion: apiserver.config.k8s.io/v1
resources:
  - resources:
      - secrets
    providers:
      - aescbc:
          keys:
            - name: key1
              secret: %s
      - identity: {}
`, base64.StdEncoding.EncodeToString(key))
	return writeFile(path, []byte(config), 0o600)
}
