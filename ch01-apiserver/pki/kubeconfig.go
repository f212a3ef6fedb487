package pki

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// ClusterName is the cluster name in every kubeconfig Kubik writes, as
// "kubernetes" is in kubeadm's.
const ClusterName = "kubik"

// kubeconfigFile is the subset of the kubeconfig format (clientcmd's
// v1.Config) that Kubik writes and reads. Fields are in the order kubectl
// writes them.
type kubeconfigFile struct {
	APIVersion     string          `yaml:"apiVersion"`
	Clusters       []namedCluster  `yaml:"clusters"`
	Contexts       []namedContext  `yaml:"contexts"`
	CurrentContext string          `yaml:"current-context"`
	Kind           string          `yaml:"kind"`
	Preferences    struct{}        `yaml:"preferences"`
	Users          []namedAuthInfo `yaml:"users"`
}

type namedCluster struct {
	Name    string  `yaml:"name"`
	Cluster cluster `yaml:"cluster"`
}

type cluster struct {
	CertificateAuthority     string     `yaml:"certificate-authority,omitempty"`
	CertificateAuthorityData base64Data `yaml:"certificate-authority-data,omitempty"`
	InsecureSkipTLSVerify    bool       `yaml:"insecure-skip-tls-verify,omitempty"`
	Server                   string     `yaml:"server"`
	TLSServerName            string     `yaml:"tls-server-name,omitempty"`
}

type namedContext struct {
	Name    string      `yaml:"name"`
	Context contextInfo `yaml:"context"`
}

type contextInfo struct {
	Cluster   string `yaml:"cluster"`
	Namespace string `yaml:"namespace,omitempty"`
	User      string `yaml:"user"`
}

type namedAuthInfo struct {
	Name string   `yaml:"name"`
	User authInfo `yaml:"user"`
}

type authInfo struct {
	ClientCertificate     string     `yaml:"client-certificate,omitempty"`
	ClientCertificateData base64Data `yaml:"client-certificate-data,omitempty"`
	ClientKey             string     `yaml:"client-key,omitempty"`
	ClientKeyData         base64Data `yaml:"client-key-data,omitempty"`
	Token                 string     `yaml:"token,omitempty"`
	TokenFile             string     `yaml:"tokenFile,omitempty"`
}

// base64Data is a "-data" field: PEM bytes stored base64-encoded in the
// file, as clientcmd's []byte fields are (yaml.v3 would write a list of
// numbers).
type base64Data []byte

func (d base64Data) MarshalYAML() (any, error) {
	return base64.StdEncoding.EncodeToString(d), nil
}

func (d *base64Data) UnmarshalYAML(node *yaml.Node) error {
	var s string
	if err := node.Decode(&s); err != nil {
		return err
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("line %d: %w", node.Line, err)
	}
	*d = b
	return nil
}

// ContextName returns the name of user's context: "<user>@kubik".
func ContextName(user string) string { return user + "@" + ClusterName }

// WriteKubeconfig issues a client certificate for user in groups and writes a
// kubeconfig at path that reaches serverURL as that user. Everything is
// embedded (certificate-authority-data, client-certificate-data,
// client-key-data), so the file works when copied elsewhere. Names follow
// kubeadm: cluster "kubik", user <user>, context "<user>@kubik", which is also
// the current context. The file is readable by its owner only: it holds a key.
func (ca *CA) WriteKubeconfig(path, serverURL, user string, groups []string) error {
	certPEM, keyPEM, err := ca.IssueClientCert(user, groups)
	if err != nil {
		return err
	}
	return ca.WriteKubeconfigWithCert(path, ClusterName, serverURL, user, certPEM, keyPEM)
}

// WriteKubeconfigWithCert writes a kubeconfig at path that reaches
// serverURL as user with a client certificate issued before (certPEM,
// keyPEM), for a cluster named clusterName: cluster clusterName, user
// <user>, context "<user>@<clusterName>". Everything is embedded, as in
// WriteKubeconfig; the same inputs write the same file.
func (ca *CA) WriteKubeconfigWithCert(path, clusterName, serverURL, user string, certPEM, keyPEM []byte) error {
	ctxName := user + "@" + clusterName
	cfg := kubeconfigFile{
		APIVersion:     "v1",
		Kind:           "Config",
		Clusters:       []namedCluster{{Name: clusterName, Cluster: cluster{CertificateAuthorityData: ca.CertPEM, Server: serverURL}}},
		Contexts:       []namedContext{{Name: ctxName, Context: contextInfo{Cluster: clusterName, User: user}}},
		CurrentContext: ctxName,
		Users:          []namedAuthInfo{{Name: user, User: authInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}}},
	}
	data, err := yaml.Marshal(&cfg)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data, 0o600)
}

// Kubeconfig is the current context of a kubeconfig file, resolved into what
// an HTTPS client needs.
type Kubeconfig struct {
	Context string
	Cluster string
	User    string
	// Server is the apiserver's URL, e.g. https://127.0.0.1:6443.
	Server string
	// TLS trusts the cluster CA and presents the user's client certificate,
	// if the kubeconfig has one.
	TLS *tls.Config
	// Token is the bearer token, if the user authenticates with one.
	Token string
	// TokenFile, when set, is a file holding the bearer token; HTTPClient
	// re-reads it as it changes (a projected service-account token, which
	// the kubelet rotates), and the last token read takes the place of
	// Token. LoadKubeconfig leaves it empty: a kubeconfig's tokenFile is
	// read once, into Token. Upstream: rest.Config.BearerTokenFile.
	TokenFile string
	// CAData is the cluster CA bundle (PEM) the kubeconfig trusts, if any
	// (client-go: rest.Config.TLSClientConfig.CAData). kube-controller-manager
	// publishes it as the kube-root-ca.crt ConfigMap.
	CAData []byte
}

// LoadKubeconfig reads a kubeconfig file and resolves its current context.
// It understands embedded (-data) and file-path credentials, tokens and
// tls-server-name; exec plugins and auth providers are out of scope.
func LoadKubeconfig(path string) (*Kubeconfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg kubeconfigFile
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	k, err := cfg.resolve(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

func (cfg *kubeconfigFile) resolve(baseDir string) (*Kubeconfig, error) {
	if cfg.CurrentContext == "" {
		return nil, errors.New("current-context is not set")
	}
	ctx, ok := find(cfg.Contexts, func(c namedContext) bool { return c.Name == cfg.CurrentContext })
	if !ok {
		return nil, fmt.Errorf("context %q not found", cfg.CurrentContext)
	}
	cl, ok := find(cfg.Clusters, func(c namedCluster) bool { return c.Name == ctx.Context.Cluster })
	if !ok {
		return nil, fmt.Errorf("cluster %q not found", ctx.Context.Cluster)
	}
	user, ok := find(cfg.Users, func(u namedAuthInfo) bool { return u.Name == ctx.Context.User })
	if !ok {
		return nil, fmt.Errorf("user %q not found", ctx.Context.User)
	}
	if _, err := url.Parse(cl.Cluster.Server); err != nil || cl.Cluster.Server == "" {
		return nil, fmt.Errorf("cluster %q: bad server URL %q", cl.Name, cl.Cluster.Server)
	}

	k := &Kubeconfig{
		Context: ctx.Name,
		Cluster: cl.Name,
		User:    user.Name,
		Server:  cl.Cluster.Server,
		TLS: &tls.Config{
			MinVersion:         tls.VersionTLS12,
			ServerName:         cl.Cluster.TLSServerName,
			InsecureSkipVerify: cl.Cluster.InsecureSkipTLSVerify,
		},
	}

	caPEM, err := dataOrFile(cl.Cluster.CertificateAuthorityData, cl.Cluster.CertificateAuthority, baseDir)
	if err != nil {
		return nil, err
	}
	if caPEM != nil {
		k.CAData = caPEM
		k.TLS.RootCAs = x509.NewCertPool()
		if !k.TLS.RootCAs.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("cluster %q: no certificates in certificate authority", cl.Name)
		}
	}

	certPEM, err := dataOrFile(user.User.ClientCertificateData, user.User.ClientCertificate, baseDir)
	if err != nil {
		return nil, err
	}
	keyPEM, err := dataOrFile(user.User.ClientKeyData, user.User.ClientKey, baseDir)
	if err != nil {
		return nil, err
	}
	if certPEM != nil || keyPEM != nil {
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("user %q: %w", user.Name, err)
		}
		k.TLS.Certificates = []tls.Certificate{pair}
	}

	k.Token = user.User.Token
	if k.Token == "" && user.User.TokenFile != "" {
		tok, err := os.ReadFile(resolvePath(user.User.TokenFile, baseDir))
		if err != nil {
			return nil, err
		}
		k.Token = strings.TrimSpace(string(tok))
	}
	return k, nil
}

// HTTPClient returns a client that talks to k.Server as k.User.
func (k *Kubeconfig) HTTPClient() *http.Client {
	var rt http.RoundTripper = &http.Transport{TLSClientConfig: k.TLS.Clone(), ForceAttemptHTTP2: true}
	switch {
	case k.TokenFile != "":
		rt = newFileTokenAuth(k.TokenFile, k.Token, rt)
	case k.Token != "":
		rt = bearerAuth{token: k.Token, next: rt}
	}
	return &http.Client{Transport: rt}
}

type bearerAuth struct {
	token string
	next  http.RoundTripper
}

func (b bearerAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

func find[T any](items []T, match func(T) bool) (T, bool) {
	for _, it := range items {
		if match(it) {
			return it, true
		}
	}
	var zero T
	return zero, false
}

// dataOrFile returns embedded data if present, else the contents of file
// (relative paths are relative to the kubeconfig, as kubectl resolves them).
func dataOrFile(data base64Data, file, baseDir string) ([]byte, error) {
	if len(data) > 0 {
		return data, nil
	}
	if file == "" {
		return nil, nil
	}
	return os.ReadFile(resolvePath(file, baseDir))
}

func resolvePath(p, baseDir string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(baseDir, p)
}
