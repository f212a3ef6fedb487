package main_test

// End-to-end test of chapter 4's certificate and storage-protection
// controllers with the real kubectl 1.33 against the real ch04 binary: a
// CertificateSigningRequest for user alice approved by `kubectl certificate
// approve`, signed by csrsigning from the cluster CA (the chapter program
// passes it as kubeadm passes --cluster-signing-cert-file/-key-file), the
// certificate then authenticating as alice; and `kubectl delete vac`, which
// finishes at once for an unused VolumeAttributesClass and waits for the
// last claim naming it otherwise (volumeattributesclass-protection-controller).

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

func TestCertificateSigningAndVolumeAttributesClassProtection(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	testenv.Kubectl(t, kubectl133)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=1"}})
	dir := t.TempDir()
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectl133, dir, args...) }
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}

	t.Run("CertificateSigningRequest", func(t *testing.T) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
			Subject: pkix.Name{CommonName: "alice", Organization: []string{"dev"}}}, key)
		if err != nil {
			t.Fatal(err)
		}
		request := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
		write("csr.yaml", `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: alice}
spec:
  request: `+request+`
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
`)
		if out := k("apply", "-f", "csr.yaml"); out != "certificatesigningrequest.certificates.k8s.io/alice created" {
			t.Fatalf("apply: %s", out)
		}
		if out := k("get", "csr", "alice", "--no-headers", "-o", "custom-columns=CONDITION:.status.conditions[*].type"); out != "<none>" {
			t.Fatalf("a new request has conditions: %s", out)
		}
		if out := k("certificate", "approve", "alice"); out != "certificatesigningrequest.certificates.k8s.io/alice approved" {
			t.Fatalf("approve: %s", out)
		}
		var certPEM []byte
		testenv.Eventually(t, "the certificate in status", 90*time.Second, func() (string, bool) {
			out := k("get", "csr", "alice", "-o", "jsonpath={.status.certificate}")
			certPEM, _ = base64.StdEncoding.DecodeString(out)
			return out, len(certPEM) > 0
		})
		lines := strings.Split(k("get", "csr", "alice"), "\n")
		if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION" {
			t.Fatalf("kubectl get csr:\n%s", strings.Join(lines, "\n"))
		}
		if f := strings.Fields(lines[1]); len(f) != 6 || f[0] != "alice" || f[2] != "kubernetes.io/kube-apiserver-client" ||
			f[3] != "kubernetes-admin" || f[4] != "24h" || f[5] != "Approved,Issued" {
			t.Errorf("kubectl get csr:\n%s", strings.Join(lines, "\n"))
		}
		block, _ := pem.Decode(certPEM)
		if block == nil {
			t.Fatalf("status.certificate is not PEM: %q", certPEM)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		// expirationSeconds honoured: a day, backdated five minutes at both ends.
		if got := cert.NotAfter.Sub(cert.NotBefore); got != 24*time.Hour {
			t.Errorf("certificate valid for %v, want 24h (expirationSeconds 86400)", got)
		}

		// A kubeconfig with alice's certificate: the apiserver says who she is.
		server := k("config", "view", "--raw", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}")
		caData := k("config", "view", "--raw", "--minify", "-o", "jsonpath={.clusters[0].cluster.certificate-authority-data}")
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		keyData := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
		alice := write("alice.kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: kubik, cluster: {server: %q, certificate-authority-data: %s}}]
users: [{name: alice, user: {client-certificate-data: %s, client-key-data: %s}}]
contexts: [{name: alice, context: {cluster: kubik, user: alice}}]
current-context: alice
`, server, caData, base64.StdEncoding.EncodeToString(certPEM), keyData))
		// The apiserver adds the certificate's fingerprint as the
		// credential ID (upstream since 1.32).
		extra := "Extra: authentication.kubernetes.io/credential-id"
		row := func(a, v string) string { return fmt.Sprintf("%-*s%s", len(extra)+3, a, v) }
		want := strings.Join([]string{row("ATTRIBUTE", "VALUE"), row("Username", "alice"), row("Groups", "[dev system:authenticated]"),
			row(extra, fmt.Sprintf("[X509SHA256=%x]", sha256.Sum256(block.Bytes)))}, "\n")
		if out := k("--kubeconfig", alice, "auth", "whoami"); out != want {
			t.Errorf("kubectl auth whoami as alice:\n%s\nwant:\n%s", out, want)
		}
	})

	t.Run("VolumeAttributesClass", func(t *testing.T) {
		write("vac.yaml", `apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: gold}
driverName: csi.example.com
parameters: {iops: "3000"}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: silver}
driverName: csi.example.com
parameters: {iops: "1000"}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: bronze}
driverName: csi.example.com
parameters: {iops: "500"}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
  volumeAttributesClassName: silver
`)
		if out := k("apply", "-f", "vac.yaml"); out != "volumeattributesclass.storage.k8s.io/gold created\nvolumeattributesclass.storage.k8s.io/silver created\nvolumeattributesclass.storage.k8s.io/bronze created\npersistentvolumeclaim/data created" {
			t.Fatalf("apply: %s", out)
		}
		if out := k("get", "vac", "gold", "-o", "jsonpath={.metadata.finalizers}"); out != `["kubernetes.io/vac-protection"]` {
			t.Fatalf("finalizers of a new class: %s", out)
		}
		// Unused: kubectl delete (which waits for the object to go) returns.
		if out := k("delete", "vac", "gold"); out != `volumeattributesclass.storage.k8s.io "gold" deleted` {
			t.Errorf("delete vac gold: %s", out)
		}
		if r := c.Kubectl(t, kubectl133, dir, "get", "vac", "gold"); r.ExitCode == 0 || strings.TrimSpace(r.Stderr) != `Error from server (NotFound): volumeattributesclasses.storage.k8s.io "gold" not found` {
			t.Errorf("get vac gold after delete: exit %d\n%s", r.ExitCode, r.Combined())
		}

		// Named by a claim: marked for deletion, kept while the claim exists.
		if out := k("delete", "vac", "silver", "--wait=false"); out != `volumeattributesclass.storage.k8s.io "silver" deleted` {
			t.Errorf("delete vac silver: %s", out)
		}
		// The controller has one worker and takes classes in the order their
		// events came: once bronze, deleted after silver, is gone, the
		// controller has looked at silver and kept it.
		if out := k("delete", "vac", "bronze"); out != `volumeattributesclass.storage.k8s.io "bronze" deleted` {
			t.Errorf("delete vac bronze: %s", out)
		}
		if out := k("get", "vac", "silver", "-o", "jsonpath={.metadata.finalizers} {.metadata.deletionTimestamp}"); !strings.HasPrefix(out, `["kubernetes.io/vac-protection"] 20`) {
			t.Fatalf("silver while its claim exists: %s", out)
		}
		if out := k("delete", "pvc", "data"); out != `persistentvolumeclaim "data" deleted` {
			t.Errorf("delete pvc data: %s", out)
		}
		testenv.Eventually(t, "silver deleted once its claim is gone", 90*time.Second, func() (string, bool) {
			r := c.Kubectl(t, kubectl133, dir, "get", "vac", "silver", "--ignore-not-found")
			return r.Combined(), r.ExitCode == 0 && r.Stdout == ""
		})
	})
}
