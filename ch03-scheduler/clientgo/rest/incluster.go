package rest

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"kubik/ch01-apiserver/pki"
)

// The files of a pod's service-account volume (kube-api-access-xxxxx,
// projected by the kubelet), as client-go names them.
const (
	ServiceAccountDir       = "/var/run/secrets/kubernetes.io/serviceaccount"
	ServiceAccountTokenFile = ServiceAccountDir + "/token"
	ServiceAccountCAFile    = ServiceAccountDir + "/ca.crt"
	ServiceAccountNamespace = ServiceAccountDir + "/namespace"
)

// ErrNotInCluster is returned by InClusterConfig outside a pod. Upstream's
// text.
var ErrNotInCluster = errors.New("unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined")

// InClusterConfig is the configuration of a client running in a pod: the
// apiserver is the kubernetes Service (the kubelet puts its address in
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT), trusted with the
// cluster CA of the service-account volume, and the pod authenticates with
// the volume's token. The token file is re-read as it changes: projected
// tokens expire and the kubelet rotates them.
// Upstream: k8s.io/client-go/rest.InClusterConfig.
func InClusterConfig() (Config, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return Config{}, ErrNotInCluster
	}
	token, err := os.ReadFile(ServiceAccountTokenFile)
	if err != nil {
		return Config{}, err
	}
	// Upstream logs a CA it cannot load and goes on with the system's
	// roots, which cannot verify a cluster's apiserver anyway: here it is
	// an error.
	caPEM, err := os.ReadFile(ServiceAccountCAFile)
	if err != nil {
		return Config{}, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return Config{}, fmt.Errorf("%s: no certificates", ServiceAccountCAFile)
	}
	return Config{Kubeconfig: &pki.Kubeconfig{
		Server:    "https://" + net.JoinHostPort(host, port),
		TLS:       &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots},
		Token:     strings.TrimSpace(string(token)),
		TokenFile: ServiceAccountTokenFile,
		CAData:    caPEM,
	}}, nil
}

// InClusterNamespace is the namespace of the pod this runs in: $POD_NAMESPACE
// (set by the downward API), else the service-account volume's namespace
// file, else "default". Upstream: clientcmd's inClusterClientConfig.Namespace.
func InClusterNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := os.ReadFile(ServiceAccountNamespace); err == nil {
		if ns := strings.TrimSpace(string(b)); ns != "" {
			return ns
		}
	}
	return "default"
}

// BuildConfigFromFlags is the configuration of a program's --kubeconfig:
// the file when one is named, the in-cluster configuration otherwise.
// Upstream: k8s.io/client-go/tools/clientcmd.BuildConfigFromFlags (without
// its --master override).
func BuildConfigFromFlags(kubeconfigPath string) (Config, error) {
	if kubeconfigPath == "" {
		return InClusterConfig()
	}
	k, err := pki.LoadKubeconfig(kubeconfigPath)
	if err != nil {
		return Config{}, err
	}
	return Config{Kubeconfig: k}, nil
}
