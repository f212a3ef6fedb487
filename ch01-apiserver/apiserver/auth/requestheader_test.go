package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
)

// testCA issues client certificates for the requestheader tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T, name string) *testCA {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key}
}

func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

func (ca *testCA) client(t *testing.T, cn string) *x509.Certificate {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert
}

// A front proxy's certificate with an allowed name carries the user in
// the headers; another CA's certificate is not the front proxy, and the
// x509 authenticator, limited to the client CA, refuses the front proxy's.
func TestRequestHeader(t *testing.T) {
	frontProxy, clients := newTestCA(t, "front-proxy-ca"), newTestCA(t, "kubernetes")
	rh := &RequestHeader{CA: frontProxy.pool(), AllowedNames: []string{"front-proxy-client"},
		UsernameHeaders: []string{"X-Remote-User"}, GroupHeaders: []string{"X-Remote-Group"}, ExtraHeaderPrefixes: []string{"X-Remote-Extra-"}}
	req := func(cert *x509.Certificate, headers map[string][]string) (*UserInfo, bool, error) {
		r := httptest.NewRequest("GET", "/api", nil)
		r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}, VerifiedChains: [][]*x509.Certificate{{cert}}}
		for k, vs := range headers {
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
		return rh.AuthenticateRequest(r)
	}
	proxy := frontProxy.client(t, "front-proxy-client")
	u, ok, err := req(proxy, map[string][]string{"X-Remote-User": {"alice"}, "X-Remote-Group": {"devs", "ops"},
		"X-Remote-Extra-Acme.com%2fproject": {"x"}, "X-Remote-Extra-Scopes": {"a", "b"}})
	want := &UserInfo{Name: "alice", Groups: []string{"devs", "ops"}, Extra: map[string][]string{"acme.com/project": {"x"}, "scopes": {"a", "b"}}}
	if err != nil || !ok || !reflect.DeepEqual(u, want) {
		t.Errorf("front proxy: %+v %v %v, want %+v", u, ok, err, want)
	}
	if _, ok, err := req(proxy, nil); ok || err != nil {
		t.Errorf("front proxy without X-Remote-User: ok=%v err=%v, want not mine", ok, err)
	}
	if _, ok, err := req(frontProxy.client(t, "someone-else"), map[string][]string{"X-Remote-User": {"alice"}}); ok || err == nil ||
		err.Error() != "x509: subject with cn=someone-else is not in the allowed list" {
		t.Errorf("a name not allowed: ok=%v err=%v", ok, err)
	}
	if _, ok, err := req(clients.client(t, "kubernetes-admin"), map[string][]string{"X-Remote-User": {"alice"}}); ok || err != nil {
		t.Errorf("a client CA certificate: ok=%v err=%v, want not mine", ok, err)
	}

	x := X509Authenticator{Roots: clients.pool()}
	r := httptest.NewRequest("GET", "/api", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{proxy}, VerifiedChains: [][]*x509.Certificate{{proxy}}}
	if _, ok, err := x.AuthenticateRequest(r); ok || err == nil || err.Error() != "x509: certificate signed by unknown authority" {
		t.Errorf("x509 authenticator and the front proxy's certificate: ok=%v err=%v", ok, err)
	}
	admin := clients.client(t, "kubernetes-admin")
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{admin}, VerifiedChains: [][]*x509.Certificate{{admin}}}
	if u, ok, err := x.AuthenticateRequest(r); !ok || err != nil || u.Name != "kubernetes-admin" {
		t.Errorf("x509 authenticator and a client certificate: %+v %v %v", u, ok, err)
	}
}
