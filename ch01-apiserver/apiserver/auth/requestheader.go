package auth

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// RequestHeader authenticates requests a front proxy makes for its users
// (upstream's requestheader authenticator behind an x509 verifier): the
// client certificate must be signed by CA and, when AllowedNames is not
// empty, carry one of those common names; the user is then whoever the
// headers name (--requestheader-username-headers, -group-headers,
// -extra-headers-prefix). A request without a user header, or whose
// certificate is not the front proxy's, is not this authenticator's.
type RequestHeader struct {
	CA                  *x509.CertPool
	AllowedNames        []string
	UsernameHeaders     []string
	UIDHeaders          []string
	GroupHeaders        []string
	ExtraHeaderPrefixes []string
}

func (a *RequestHeader) AuthenticateRequest(r *http.Request) (*UserInfo, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	opts := x509.VerifyOptions{Roots: a.CA, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	for _, c := range r.TLS.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	cert := r.TLS.PeerCertificates[0]
	if _, err := cert.Verify(opts); err != nil {
		return nil, false, nil // someone else's certificate: the x509 authenticator's
	}
	if len(a.AllowedNames) > 0 && !slices.Contains(a.AllowedNames, cert.Subject.CommonName) {
		return nil, false, fmt.Errorf("x509: subject with cn=%s is not in the allowed list", cert.Subject.CommonName)
	}
	name := firstHeader(r.Header, a.UsernameHeaders)
	if name == "" {
		return nil, false, nil
	}
	u := &UserInfo{Name: name, UID: firstHeader(r.Header, a.UIDHeaders)}
	for _, h := range a.GroupHeaders {
		u.Groups = append(u.Groups, r.Header.Values(h)...)
	}
	for key, values := range r.Header {
		for _, prefix := range a.ExtraHeaderPrefixes {
			if len(key) > len(prefix) && strings.EqualFold(key[:len(prefix)], prefix) {
				k, err := url.PathUnescape(strings.ToLower(key[len(prefix):]))
				if err != nil {
					k = strings.ToLower(key[len(prefix):])
				}
				if u.Extra == nil {
					u.Extra = map[string][]string{}
				}
				u.Extra[k] = append(u.Extra[k], values...)
			}
		}
	}
	return u, true, nil
}

func firstHeader(h http.Header, names []string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// errUnknownAuthority: a client certificate the TLS handshake accepted
// (the server trusts both the client CA and the front-proxy CA) that the
// client CA did not sign.
var errUnknownAuthority = errors.New("x509: certificate signed by unknown authority")

// verifyClientCert re-checks a client certificate against roots, when the
// TLS handshake trusted more CAs than roots alone.
func verifyClientCert(r *http.Request, roots *x509.CertPool) error {
	opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	for _, c := range r.TLS.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	if _, err := r.TLS.PeerCertificates[0].Verify(opts); err != nil {
		return errUnknownAuthority
	}
	return nil
}
