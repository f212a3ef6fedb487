package auth

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
)

// Authentication: an authenticator answers one of three ways — "not mine"
// (ok=false: ask the next one), "this is user X", or "mine, but invalid"
// (an error: the apiserver answers 401). Upstream:
// k8s.io/apiserver/pkg/authentication/authenticator, request/union,
// request/x509, request/bearertoken, token/union.

// Authenticator recognises a request's identity.
type Authenticator interface {
	AuthenticateRequest(r *http.Request) (user *UserInfo, ok bool, err error)
}

// TokenAuthenticator recognises bearer tokens. ok=false: not mine.
type TokenAuthenticator interface {
	AuthenticateToken(ctx context.Context, token string, audiences []string) (*UserInfo, bool, error)
}

// Union asks its authenticators in order: the first error or user is the
// answer. An authenticated user also gets the group system:authenticated
// (upstream's union and AuthenticatedGroupAdder).
type Union []Authenticator

func (u Union) AuthenticateRequest(r *http.Request) (*UserInfo, bool, error) {
	for _, a := range u {
		user, ok, err := a.AuthenticateRequest(r)
		if err != nil {
			return nil, false, err
		}
		if ok {
			user.Groups = appendIfMissing(user.Groups, GroupAuthenticated)
			return user, true, nil
		}
	}
	return nil, false, nil
}

// X509Authenticator takes the user from a verified client certificate:
// CN is the user name, each O is a group — exactly as upstream.
//
// Roots, when set, are the only CAs it accepts: the TLS handshake may
// trust more (the front-proxy CA, whose certificates only RequestHeader
// accepts, with the user in headers).
type X509Authenticator struct{ Roots *x509.CertPool }

func (a X509Authenticator) AuthenticateRequest(r *http.Request) (*UserInfo, bool, error) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return nil, false, nil
	}
	if a.Roots != nil {
		if err := verifyClientCert(r, a.Roots); err != nil {
			return nil, false, err
		}
	}
	cert := r.TLS.VerifiedChains[0][0]
	// Since 1.32 upstream records which credential authenticated the
	// request (audit logs, `kubectl auth whoami`): the certificate's SHA-256.
	sum := sha256.Sum256(cert.Raw)
	return &UserInfo{Name: cert.Subject.CommonName, Groups: append([]string(nil), cert.Subject.Organization...),
		Extra: map[string][]string{ExtraCredentialID: {"X509SHA256=" + hex.EncodeToString(sum[:])}}}, true, nil
}

// BearerToken authenticates "Authorization: Bearer <token>" with Tokens; a
// token no one recognises is an error (401), not an anonymous request.
type BearerToken struct{ Tokens TokenUnion }

func (b BearerToken) AuthenticateRequest(r *http.Request) (*UserInfo, bool, error) {
	token, ok := bearerToken(r)
	if !ok {
		return nil, false, nil
	}
	u, err := b.Tokens.Authenticate(r.Context(), token, nil)
	if err != nil {
		return nil, false, err
	}
	return u, true, nil
}

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	authz := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, token, ok := strings.Cut(authz, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// TokenUnion is the token authenticators asked in order: the static token
// file (--token-auth-file), then ServiceAccount tokens.
type TokenUnion []TokenAuthenticator

// Authenticate says whose token this is, or why it is nobody's: the errors
// of the authenticators that refused it, or "invalid bearer token" when none
// recognised it. TokenReview answers with the same.
func (tu TokenUnion) Authenticate(ctx context.Context, token string, audiences []string) (*UserInfo, error) {
	var errs []error
	for _, a := range tu {
		u, ok, err := a.AuthenticateToken(ctx, token, audiences)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return u, nil
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return nil, errors.New("invalid bearer token")
}
