package signer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/certificates"
	"kubik/internal/controllertest"
)

// makeCSR is a PEM request for subject and names, with a fresh P-256 key.
func makeCSR(t *testing.T, cn string, orgs []string, dnsNames ...string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: cn, Organization: orgs}, DNSNames: dnsNames}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func usages(u ...certificatesv1.KeyUsage) []certificatesv1.KeyUsage { return u }

// Upstream's TestHandle table (signer_test.go): which requests each signer
// signs, refuses (Failed, SignerValidationFailure) or leaves alone.
func TestHandle(t *testing.T) {
	env := controllertest.New(t)
	dir := filepath.Join(env.Dir, "pki")
	s, err := NewCSRSigningController(env.CC, filepath.Join(dir, pki.CACertFile), filepath.Join(dir, pki.CAKeyFile), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	ctx, admin := env.Ctx, env.Admin
	const (
		client        = certificatesv1.KubeAPIServerClientSignerName
		kubeletClient = certificatesv1.KubeAPIServerClientKubeletSignerName
		serving       = certificatesv1.KubeletServingSignerName
	)
	const (
		sign = iota
		refuse
		nothing
	)
	ds, ke, ca, sa := certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth, certificatesv1.UsageServerAuth
	for _, tc := range []struct {
		name        string
		signer      string
		cn          string
		orgs        []string
		dns         []string
		usages      []certificatesv1.KeyUsage
		approve     bool
		deny        bool
		want        int
		wantMessage string
	}{
		{name: "should-sign-if-signer-name-is-kube-apiserver-client", signer: client, cn: "alice", usages: usages(ds, ke, ca), approve: true, want: sign},
		{name: "should-sign-without-key-encipherment-for-kube-apiserver-client", signer: client, cn: "alice", usages: usages(ds, ca), approve: true, want: sign},
		{name: "should-refuse-kube-apiserver-client-with-unexpected-usage", signer: client, cn: "alice", usages: usages(ds, ke, sa, ca), approve: true, want: refuse,
			wantMessage: "invalid usage for client certificate: server auth"},
		{name: "should-refuse-kube-apiserver-client-without-client-auth", signer: client, cn: "alice", usages: usages(ds, ke), approve: true, want: refuse,
			wantMessage: "missing required usage for client certificate: client auth"},
		{name: "should-sign-if-signer-name-is-kube-apiserver-client-kubelet", signer: kubeletClient, cn: "system:node:n1", orgs: []string{"system:nodes"}, usages: usages(ds, ke, ca), approve: true, want: sign},
		{name: "should-sign-without-key-encipherment-for-kube-apiserver-client-kubelet", signer: kubeletClient, cn: "system:node:n1", orgs: []string{"system:nodes"}, usages: usages(ds, ca), approve: true, want: sign},
		{name: "should-refuse-invalid-kube-apiserver-client-kubelet", signer: kubeletClient, cn: "system:node:n1", orgs: []string{"not-system:nodes"}, usages: usages(ds, ke, ca), approve: true, want: refuse,
			wantMessage: "subject organization is not system:nodes"},
		{name: "should-sign-if-signer-name-is-kubelet-serving", signer: serving, cn: "system:node:n1", orgs: []string{"system:nodes"}, dns: []string{"n1"}, usages: usages(ds, ke, sa), approve: true, want: sign},
		{name: "should-refuse-invalid-kubelet-serving", signer: serving, cn: "system:node:n1", orgs: []string{"system:nodes"}, usages: usages(ds, ke, sa), approve: true, want: refuse,
			wantMessage: "DNS or IP subjectAltName is required"},
		{name: "should-do-nothing-for-an-unrecognised-signer-name", signer: "example.com/not-ours", cn: "alice", usages: usages(ds, ca), approve: true, want: nothing},
		{name: "should-do-nothing-if-not-approved", signer: client, cn: "alice", usages: usages(ds, ca), want: nothing},
		{name: "should-do-nothing-if-denied", signer: client, cn: "alice", usages: usages(ds, ca), deny: true, want: nothing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			csr, err := rest.Create(ctx, admin, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: tc.name},
				Spec: certificatesv1.CertificateSigningRequestSpec{Request: makeCSR(t, tc.cn, tc.orgs, tc.dns...), SignerName: tc.signer, Usages: tc.usages}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.approve || tc.deny {
				cond := certificatesv1.CertificateApproved
				if tc.deny {
					cond = certificatesv1.CertificateDenied
				}
				csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: cond, Status: corev1.ConditionTrue, Reason: "Test"})
				if csr, err = certificates.UpdateApproval(ctx, admin, csr); err != nil {
					t.Fatal(err)
				}
			}
			env.ClearActions()
			if err := s.handle(ctx, csr); err != nil {
				t.Fatal(err)
			}
			got, err := rest.Get[certificatesv1.CertificateSigningRequest](ctx, admin, "", tc.name)
			if err != nil {
				t.Fatal(err)
			}
			switch tc.want {
			case sign:
				env.ExpectWrites(t, "update certificatesigningrequests/status "+tc.name)
				cert := parseCert(t, got.Status.Certificate)
				if cert.Subject.CommonName != tc.cn || !slices.Equal(cert.Subject.Organization, tc.orgs) && len(tc.orgs) > 0 {
					t.Errorf("certificate subject %v", cert.Subject)
				}
				if err := verify(t, env, cert); err != nil {
					t.Errorf("certificate does not chain to the cluster CA: %v", err)
				}
			case refuse:
				env.ExpectWrites(t, "update certificatesigningrequests/status "+tc.name)
				if len(got.Status.Certificate) != 0 || !certificates.HasTrueCondition(got, certificatesv1.CertificateFailed) {
					t.Fatalf("status %+v, want Failed and no certificate", got.Status)
				}
				c := got.Status.Conditions[len(got.Status.Conditions)-1]
				if c.Reason != "SignerValidationFailure" || c.Message != tc.wantMessage {
					t.Errorf("Failed condition %q %q, want SignerValidationFailure %q", c.Reason, c.Message, tc.wantMessage)
				}
				// A failed request is left alone from then on.
				env.ClearActions()
				if err := s.handle(ctx, got); err != nil {
					t.Fatal(err)
				}
				env.ExpectWrites(t)
			case nothing:
				env.ExpectWrites(t)
			}
		})
	}
}

func parseCert(t *testing.T, data []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("no CERTIFICATE in %q", data)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func verify(t *testing.T, env *controllertest.Env, cert *x509.Certificate) error {
	_, err := cert.Verify(x509.VerifyOptions{Roots: env.CA.CertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	return err
}

// Upstream's TestDuration.
func TestDuration(t *testing.T) {
	ptr := func(i int32) *int32 { return &i }
	for _, tc := range []struct {
		name              string
		expirationSeconds *int32
		want              time.Duration
	}{
		{"default", nil, time.Hour},
		{"longer-than-the-cert-ttl", ptr(7200), time.Hour},
		{"shorter-than-the-cert-ttl", ptr(1800), 30 * time.Minute},
		{"the-minimum", ptr(600), 10 * time.Minute},
		{"less-than-the-minimum", ptr(599), 10 * time.Minute},
		{"zero", ptr(0), 10 * time.Minute},
		{"negative", ptr(-1), 10 * time.Minute},
	} {
		s := &CSRSigningController{certTTL: time.Hour}
		if got := s.duration(tc.expirationSeconds); got != tc.want {
			t.Errorf("%s: duration %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The policy's validity window (upstream's TestSign cases): backdated by
// five minutes; a long certificate loses the backdate at its end, a short
// one does not; nothing outlives the CA, and an expired CA signs nothing.
func TestPermissiveSigningPolicy(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name          string
		ttl           time.Duration
		caNotAfter    time.Time
		wantNotBefore time.Time
		wantNotAfter  time.Time
		wantErr       bool
	}{
		{"long", 24 * time.Hour, now.Add(1000 * time.Hour), now.Add(-5 * time.Minute), now.Add(24*time.Hour - 5*time.Minute), false},
		{"short", time.Hour, now.Add(1000 * time.Hour), now.Add(-5 * time.Minute), now.Add(time.Hour), false},
		{"truncated-to-the-ca", 24 * time.Hour, now.Add(time.Hour), now.Add(-5 * time.Minute), now.Add(time.Hour), false},
		{"expired-ca", time.Hour, now.Add(-time.Minute), time.Time{}, time.Time{}, true},
	} {
		tmpl := &x509.Certificate{}
		p := PermissiveSigningPolicy{TTL: tc.ttl, Usages: usages(certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth),
			Backdate: backdate, Short: shortTTL, Now: func() time.Time { return now }}
		err := p.apply(tmpl, tc.caNotAfter)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err %v, want error %v", tc.name, err, tc.wantErr)
			continue
		}
		if tc.wantErr {
			continue
		}
		if !tmpl.NotBefore.Equal(tc.wantNotBefore) || !tmpl.NotAfter.Equal(tc.wantNotAfter) {
			t.Errorf("%s: valid %v – %v, want %v – %v", tc.name, tmpl.NotBefore, tmpl.NotAfter, tc.wantNotBefore, tc.wantNotAfter)
		}
		if tmpl.KeyUsage != x509.KeyUsageDigitalSignature || !slices.Equal(tmpl.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}) || tmpl.IsCA {
			t.Errorf("%s: usages %v %v IsCA %v", tc.name, tmpl.KeyUsage, tmpl.ExtKeyUsage, tmpl.IsCA)
		}
	}
	if _, _, err := keyUsagesFromStrings(usages("bogus")); err == nil || err.Error() != `unrecognized usage values: ["bogus"]` {
		t.Errorf("unrecognized usage: %v", err)
	}
}
