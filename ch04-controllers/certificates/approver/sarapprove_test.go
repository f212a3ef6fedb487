package approver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/certificates"
	"kubik/internal/controllertest"
)

func makeCSR(t *testing.T, cn string, orgs ...string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func kubeletCSR(t *testing.T, name, cn string) *certificatesv1.CertificateSigningRequest {
	return &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: makeCSR(t, cn, "system:nodes"),
			SignerName: certificatesv1.KubeAPIServerClientKubeletSignerName,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}}}
}

func bind(t *testing.T, env *controllertest.Env, role string, subject rbacv1.Subject) {
	t.Helper()
	if _, err := rest.Create(env.Ctx, env.Admin, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role},
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role}, Subjects: []rbacv1.Subject{subject}}); err != nil {
		t.Fatal(err)
	}
}

// Upstream's TestHandle and TestRecognizers (sarapprove_test.go), through a
// real apiserver's SubjectAccessReviews.
func TestHandle(t *testing.T) {
	env := controllertest.New(t)
	a, err := NewCSRApprovingController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	ctx := env.Ctx
	node := env.Client(t, pki.Identity{User: "system:node:n1", Groups: []string{"system:nodes"}})
	// kubeadm's bindings: bootstrappers (here, the node) may create requests.
	bind(t, env, "system:node-bootstrapper", rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "system:node:n1"})

	approval := func(t *testing.T, name string) (approved bool, message string) {
		t.Helper()
		got, err := rest.Get[certificatesv1.CertificateSigningRequest](ctx, env.Admin, "", name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range got.Status.Conditions {
			if c.Type == certificatesv1.CertificateApproved && c.Status == corev1.ConditionTrue && c.Reason == "AutoApproved" {
				return true, c.Message
			}
		}
		return false, ""
	}
	handle := func(t *testing.T, c *rest.Client, csr *certificatesv1.CertificateSigningRequest) (*certificatesv1.CertificateSigningRequest, error) {
		t.Helper()
		created, err := rest.Create(ctx, c, csr)
		if err != nil {
			t.Fatal(err)
		}
		env.ClearActions()
		return created, a.handle(ctx, created)
	}

	t.Run("bootstrap-request-with-nodeclient-permission-is-approved", func(t *testing.T) {
		// The admin (system:masters) may create certificatesigningrequests/nodeclient.
		if _, err := handle(t, env.Admin, kubeletCSR(t, "bootstrap", "system:node:n2")); err != nil {
			t.Fatal(err)
		}
		env.ExpectWrites(t, "create subjectaccessreviews", "update certificatesigningrequests/approval bootstrap")
		if ok, msg := approval(t, "bootstrap"); !ok || msg != "Auto approving kubelet client certificate after SubjectAccessReview." {
			t.Errorf("approved %v %q", ok, msg)
		}
	})
	t.Run("self-request-without-permission-is-left-pending", func(t *testing.T) {
		csr, err := handle(t, node, kubeletCSR(t, "self-denied", "system:node:n1"))
		want := `recognized csr "self-denied" as [selfnodeclient nodeclient] but subject access review was not approved`
		if err == nil || err.Error() != want {
			t.Fatalf("err %v, want %q", err, want)
		}
		if csr.Spec.Username != "system:node:n1" {
			t.Fatalf("username %q", csr.Spec.Username)
		}
		env.ExpectWrites(t, "create subjectaccessreviews", "create subjectaccessreviews")
		if ok, _ := approval(t, "self-denied"); ok {
			t.Error("approved without permission")
		}
	})
	t.Run("self-request-with-selfnodeclient-permission-is-approved", func(t *testing.T) {
		bind(t, env, "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
			rbacv1.Subject{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "system:nodes"})
		if _, err := handle(t, node, kubeletCSR(t, "self", "system:node:n1")); err != nil {
			t.Fatal(err)
		}
		env.ExpectWrites(t, "create subjectaccessreviews", "update certificatesigningrequests/approval self")
		if ok, msg := approval(t, "self"); !ok || msg != "Auto approving self kubelet client certificate after SubjectAccessReview." {
			t.Errorf("approved %v %q", ok, msg)
		}
	})
	t.Run("other-signers-are-left-alone", func(t *testing.T) {
		csr := kubeletCSR(t, "client", "alice")
		csr.Spec.SignerName = certificatesv1.KubeAPIServerClientSignerName
		csr.Spec.Request = makeCSR(t, "alice")
		if _, err := handle(t, env.Admin, csr); err != nil {
			t.Fatal(err)
		}
		env.ExpectWrites(t)
	})
	t.Run("a-request-already-approved-is-left-alone", func(t *testing.T) {
		got, err := rest.Get[certificatesv1.CertificateSigningRequest](ctx, env.Admin, "", "self")
		if err != nil {
			t.Fatal(err)
		}
		env.ClearActions()
		if err := a.handle(ctx, got); err != nil {
			t.Fatal(err)
		}
		env.ExpectWrites(t)
	})
}

// Upstream's recognizer cases: the kubelet client shape.
func TestRecognizers(t *testing.T) {
	parse := func(pemBytes []byte) *x509.CertificateRequest {
		r, err := certificates.ParseCSR(pemBytes)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	good := kubeletCSR(t, "x", "system:node:n1")
	good.Spec.Username = "system:node:n1"
	for _, tc := range []struct {
		name       string
		modify     func(*certificatesv1.CertificateSigningRequest)
		node, self bool
	}{
		{"self-node-client", func(*certificatesv1.CertificateSigningRequest) {}, true, true},
		{"other-user", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.Username = "system:bootstrap:abc" }, true, false},
		{"wrong-signer", func(c *certificatesv1.CertificateSigningRequest) {
			c.Spec.SignerName = certificatesv1.KubeAPIServerClientSignerName
		}, false, false},
		{"wrong-organization", func(c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = makeCSR(t, "system:node:n1", "system:masters")
		}, false, false},
		{"wrong-common-name", func(c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = makeCSR(t, "n1", "system:nodes")
			c.Spec.Username = "n1"
		}, false, false},
		{"server-auth-usage", func(c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Usages = append(c.Spec.Usages, certificatesv1.UsageServerAuth)
		}, false, false},
		{"with-key-encipherment", func(c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Usages = append(c.Spec.Usages, certificatesv1.UsageKeyEncipherment)
		}, true, true},
	} {
		csr := *good
		csr.Spec.Usages = append([]certificatesv1.KeyUsage(nil), good.Spec.Usages...)
		tc.modify(&csr)
		x := parse(csr.Spec.Request)
		if got := isNodeClientCert(&csr, x); got != tc.node {
			t.Errorf("%s: isNodeClientCert %v, want %v", tc.name, got, tc.node)
		}
		if got := isSelfNodeClientCert(&csr, x); got != tc.self {
			t.Errorf("%s: isSelfNodeClientCert %v, want %v", tc.name, got, tc.self)
		}
	}
}
