package pki

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEnsureCACreatesAndReuses(t *testing.T) {
	dir := t.TempDir()
	ca, err := EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !ca.Cert.IsCA || ca.Cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Errorf("CA certificate: IsCA=%v KeyUsage=%v", ca.Cert.IsCA, ca.Cert.KeyUsage)
	}
	if got := ca.Cert.NotAfter.Sub(ca.Cert.NotBefore); got < CAValidity {
		t.Errorf("CA validity %v, want at least %v", got, CAValidity)
	}
	for _, name := range []string{CACertFile, CAKeyFile} {
		if _, err := os.Stat(filepath.Join(dir, "pki", name)); err != nil {
			t.Error(err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "pki", CAKeyFile)); err == nil && fi.Mode().Perm() != 0o600 {
		t.Errorf("ca.key mode %v, want 0600", fi.Mode().Perm())
	}

	again, err := EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ca.CertPEM, again.CertPEM) {
		t.Error("second EnsureCA returned a different CA certificate")
	}
}

func TestEnsureCAConcurrent(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	cas := make([]*CA, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { cas[i], errs[i] = EnsureCA(dir) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(cas[i].CertPEM, cas[0].CertPEM) {
			t.Fatalf("goroutine %d got a different CA", i)
		}
	}
}

func TestEnsureCARecoversCertFromKey(t *testing.T) {
	dir := t.TempDir()
	ca, err := EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, _, err := ca.IssueClientCert("alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Losing ca.crt (a crash between the two writes) must not invalidate
	// what the key already signed.
	if err := os.Remove(filepath.Join(dir, "pki", CACertFile)); err != nil {
		t.Fatal(err)
	}
	again, err := EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseCert(t, certPEM).Verify(x509.VerifyOptions{
		Roots: again.CertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		t.Errorf("old client cert under re-created CA cert: %v", err)
	}
}

func TestServingCert(t *testing.T) {
	dir := t.TempDir()
	ca := mustCA(t, dir)
	certFile, keyFile, err := ca.EnsureServingCert(dir, []string{"10.96.0.1", "api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	cert := readTestCert(t, certFile)
	for _, host := range []string{
		"127.0.0.1", "::1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local", "10.96.0.1", "api.example.com",
	} {
		_, err := cert.Verify(x509.VerifyOptions{
			DNSName: host, Roots: ca.CertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		})
		if err != nil {
			t.Errorf("verify for %s: %v", host, err)
		}
	}
	if hostname, err := os.Hostname(); err == nil && !slices.Contains(cert.DNSNames, strings.ToLower(hostname)) {
		t.Errorf("DNS names %v lack the hostname %q", cert.DNSNames, hostname)
	}
	if _, err := cert.Verify(x509.VerifyOptions{
		Roots: ca.CertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err == nil {
		t.Error("serving certificate is also good for client auth")
	}
	if got := cert.NotAfter.Sub(cert.NotBefore); got > LeafValidity+time.Hour {
		t.Errorf("leaf validity %v, want about %v", got, LeafValidity)
	}
	if _, err := tls.LoadX509KeyPair(certFile, keyFile); err != nil {
		t.Error(err)
	}
}

func TestServingCertReuseAndReissue(t *testing.T) {
	dir := t.TempDir()
	ca := mustCA(t, dir)
	certFile, keyFile, err := ca.EnsureServingCert(dir, []string{"10.96.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	first := readFile(t, certFile)
	firstKey := readFile(t, keyFile)

	// Same names (a restart): nothing changes.
	if _, _, err := ca.EnsureServingCert(dir, []string{"10.96.0.1"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, readFile(t, certFile)) {
		t.Error("certificate reissued although it had every wanted name")
	}

	// A new name: reissued from the same CA, with the same key, keeping the old names.
	if _, _, err := ca.EnsureServingCert(dir, []string{"kubik.example.org"}); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(first, readFile(t, certFile)) {
		t.Fatal("certificate not reissued for a new name")
	}
	if !bytes.Equal(firstKey, readFile(t, keyFile)) {
		t.Error("reissue replaced the key")
	}
	cert := readTestCert(t, certFile)
	for _, host := range []string{"kubik.example.org", "10.96.0.1"} {
		if err := cert.VerifyHostname(host); err != nil {
			t.Error(err)
		}
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.CertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Error(err)
	}
}

func TestServingCertReissuedForNewCA(t *testing.T) {
	dir := t.TempDir()
	ca := mustCA(t, dir)
	certFile, _, err := ca.EnsureServingCert(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	other := mustCA(t, t.TempDir())
	if _, _, err := other.EnsureServingCert(dir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := readTestCert(t, certFile).Verify(x509.VerifyOptions{Roots: other.CertPool()}); err != nil {
		t.Errorf("certificate not reissued by the new CA: %v", err)
	}
}

func TestIssueClientCert(t *testing.T) {
	ca := mustCA(t, t.TempDir())
	certPEM, keyPEM, err := ca.IssueClientCert("system:kube-scheduler", []string{"system:masters", "kubik:ops"})
	if err != nil {
		t.Fatal(err)
	}
	cert := parseCert(t, certPEM)
	if cert.Subject.CommonName != "system:kube-scheduler" {
		t.Errorf("CN = %q", cert.Subject.CommonName)
	}
	// DER sorts the SET of organizations, so compare as sets.
	if got, want := slices.Sorted(slices.Values(cert.Subject.Organization)), []string{"kubik:ops", "system:masters"}; !slices.Equal(got, want) {
		t.Errorf("O = %q, want %q", got, want)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.CertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Error(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.CertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
		t.Error("client certificate is also good for server auth")
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		t.Error(err)
	}
	if _, _, err := ca.IssueClientCert("", nil); err == nil {
		t.Error("empty user accepted")
	}
}

func TestServiceAccountKey(t *testing.T) {
	dir := t.TempDir()
	key, err := EnsureServiceAccountKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := key.(*ecdsa.PrivateKey); !ok {
		t.Errorf("key type %T", key)
	}
	again, err := EnsureServiceAccountKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !key.Public().(*ecdsa.PublicKey).Equal(again.Public()) {
		t.Error("second call returned a different key")
	}
	block, _ := pem.Decode(readFile(t, filepath.Join(dir, "pki", SAPubFile)))
	if block == nil || block.Type != "PUBLIC KEY" {
		t.Fatal("sa.pub is not a PUBLIC KEY PEM")
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256([]byte("token"))
	sig, err := key.Sign(rand.Reader, digest[:], crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if !ecdsa.VerifyASN1(pub.(*ecdsa.PublicKey), digest[:], sig) {
		t.Error("sa.pub does not verify a signature made with sa.key")
	}
}

func TestFirstIP(t *testing.T) {
	for cidr, want := range map[string]string{
		"10.96.0.0/12":     "10.96.0.1",
		"10.96.7.3/12":     "10.96.0.1",
		"fd00:10:96::/112": "fd00:10:96::1",
	} {
		got, err := FirstIP(cidr)
		if err != nil || got.String() != want {
			t.Errorf("FirstIP(%s) = %v, %v; want %s", cidr, got, err, want)
		}
	}
	for _, bad := range []string{"10.0.0.1/32", "nonsense"} {
		if _, err := FirstIP(bad); err == nil {
			t.Errorf("FirstIP(%s) succeeded", bad)
		}
	}
}

func TestKubeconfigTLSHandshake(t *testing.T) {
	dir := t.TempDir()
	ca := mustCA(t, dir)
	srv := newTLSServer(t, dir, ca)

	path := filepath.Join(dir, "admin.conf")
	if err := ca.WriteKubeconfig(path, srv.URL, "kubernetes-admin", []string{"system:masters"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig mode: %v %v", fi.Mode().Perm(), err)
	}
	kc, err := LoadKubeconfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if kc.Server != srv.URL || kc.Cluster != "kubik" || kc.User != "kubernetes-admin" || kc.Context != "kubernetes-admin@kubik" {
		t.Errorf("loaded %+v", kc)
	}
	resp, err := kc.HTTPClient().Get(srv.URL + "/whoami")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if got, want := string(body), "kubernetes-admin [system:masters]"; got != want {
		t.Errorf("server saw %q, want %q", got, want)
	}

	// A client without a certificate is turned away during the handshake.
	noCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.CertPool()}}}
	if resp, err := noCert.Get(srv.URL + "/whoami"); err == nil {
		resp.Body.Close()
		t.Error("request without a client certificate succeeded")
	}
}

func TestLoadKubeconfigFilePaths(t *testing.T) {
	dir := t.TempDir()
	ca := mustCA(t, dir)
	certPEM, keyPEM, err := ca.IssueClientCert("bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "bob.crt"), certPEM)
	writeFile(t, filepath.Join(dir, "bob.key"), keyPEM)
	writeFile(t, filepath.Join(dir, "config"), []byte(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: pki/ca.crt
contexts:
- name: ctx
  context: {cluster: c, user: bob}
- name: other
  context: {cluster: c, user: carol}
current-context: ctx
users:
- name: bob
  user:
    client-certificate: bob.crt
    client-key: bob.key
- name: carol
  user:
    token: secret
`))
	kc, err := LoadKubeconfig(filepath.Join(dir, "config"))
	if err != nil {
		t.Fatal(err)
	}
	if kc.User != "bob" || kc.Server != "https://127.0.0.1:6443" || len(kc.TLS.Certificates) != 1 || kc.TLS.RootCAs == nil {
		t.Errorf("loaded %+v", kc)
	}

	for name, config := range map[string]string{
		"no current context": "apiVersion: v1\nkind: Config\n",
		"missing context":    "current-context: nope\n",
		"bad base64":         "current-context: x\ncontexts: [{name: x, context: {cluster: x, user: x}}]\nclusters: [{name: x, cluster: {server: 'https://a', certificate-authority-data: '!!!'}}]\nusers: [{name: x, user: {}}]\n",
	} {
		p := filepath.Join(dir, "bad")
		writeFile(t, p, []byte(config))
		if _, err := LoadKubeconfig(p); err == nil {
			t.Errorf("%s: loaded without error", name)
		}
	}
}

// TestKubeconfigWithRealKubectl checks that the real kubectl parses the
// kubeconfig and authenticates with it.
func TestKubeconfigWithRealKubectl(t *testing.T) {
	kubectl := "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("real kubectl not available: %v", err)
	}
	dir := t.TempDir()
	ca := mustCA(t, dir)
	srv := newTLSServer(t, dir, ca)
	path := filepath.Join(dir, "admin.conf")
	if err := ca.WriteKubeconfig(path, srv.URL, "kubernetes-admin", []string{"system:masters"}); err != nil {
		t.Fatal(err)
	}

	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", path}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	want := fmt.Sprintf(`apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: DATA+OMITTED
    server: %s
  name: kubik
contexts:
- context:
    cluster: kubik
    user: kubernetes-admin
  name: kubernetes-admin@kubik
current-context: kubernetes-admin@kubik
kind: Config
preferences: {}
users:
- name: kubernetes-admin
  user:
    client-certificate-data: DATA+OMITTED
    client-key-data: DATA+OMITTED
`, srv.URL)
	if got := run("config", "view", "--minify"); got != want {
		t.Errorf("kubectl config view --minify:\n%s\nwant:\n%s", got, want)
	}
	if got := run("get", "--raw", "/whoami"); got != "kubernetes-admin [system:masters]" {
		t.Errorf("kubectl get --raw /whoami: %q", got)
	}
}

// newTLSServer starts an HTTPS server with the apiserver serving certificate
// that requires client certificates from ca and answers /whoami with the
// client's user and groups.
func newTLSServer(t *testing.T, dir string, ca *CA) *httptest.Server {
	t.Helper()
	certFile, keyFile, err := ca.EnsureServingCert(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		subject := r.TLS.PeerCertificates[0].Subject
		fmt.Fprintf(w, "%s %v", subject.CommonName, subject.Organization)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // rejected handshakes are expected
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{pair},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    ca.CertPool(),
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func mustCA(t *testing.T, dir string) *CA {
	t.Helper()
	ca, err := EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func parseCert(t *testing.T, certPEM []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(certPEM)
	if block == nil {
		t.Fatal("no PEM block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func readTestCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	return parseCert(t, readFile(t, path))
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestKubeconfigAliasBomb: a kubeconfig whose clusters are nested YAML
// aliases is refused after bounded work: yaml.v3 decodes into the
// kubeconfig's structs, which stops at the first shape that does not fit
// (and counts alias expansion with its own guard besides).
func TestKubeconfigAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\nx0: &x0 [\"lol\"]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x%d: &x%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*x%d,", i-1), 10), ","))
	}
	b.WriteString("current-context: a\nclusters: *x9\n") // decoded, so expanded: the decoder must stop it
	path := filepath.Join(t.TempDir(), "bomb.kubeconfig")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := LoadKubeconfig(path)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("LoadKubeconfig allocated %d MB", alloc>>20)
	}
	if err == nil || !strings.Contains(err.Error(), "cannot unmarshal !!seq into pki.namedCluster") {
		t.Fatalf("LoadKubeconfig: %v, want a decoding error", err)
	}
}
