package apiserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
)

// UserInfo is who made a request. Upstream: k8s.io/apiserver/pkg/authentication/user.
type UserInfo struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Well-known groups.
const (
	GroupAuthenticated   = "system:authenticated"
	GroupUnauthenticated = "system:unauthenticated"
	UserAnonymous        = "system:anonymous"
	GroupMasters         = "system:masters"
)

// Authenticator recognises a request's identity. ok=false means "not mine",
// an error means "mine, but invalid" (→ 401).
type Authenticator interface {
	AuthenticateRequest(r *http.Request) (user *UserInfo, ok bool, err error)
}

type userKey struct{}

// UserFrom returns the authenticated user of a request context.
func UserFrom(ctx context.Context) (*UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(*UserInfo)
	return u, ok
}

// x509Authenticator takes the user from a verified client certificate:
// CN is the user name, each O is a group — exactly as upstream.
type x509Authenticator struct{}

func (x509Authenticator) AuthenticateRequest(r *http.Request) (*UserInfo, bool, error) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return nil, false, nil
	}
	cert := r.TLS.VerifiedChains[0][0]
	// Since 1.32 upstream records which credential authenticated the
	// request (audit logs, `kubectl auth whoami`): the certificate's SHA-256.
	sum := sha256.Sum256(cert.Raw)
	return &UserInfo{Name: cert.Subject.CommonName, Groups: append([]string(nil), cert.Subject.Organization...),
		Extra: map[string][]string{extraCredentialID: {"X509SHA256=" + hex.EncodeToString(sum[:])}}}, true, nil
}

// withAuthentication puts the user into the request context. Anonymous
// requests get through only to the public health and version paths; everything
// else answers 401 with the Status kubectl turns into
// "error: You must be logged in to the server (Unauthorized)".
func (s *Server) withAuthentication(next http.Handler) http.Handler {
	authenticators := append([]Authenticator{x509Authenticator{}}, s.cfg.Authenticators...)
	authenticators = append(authenticators, bearerAuthenticator{s: s})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var user *UserInfo
		for _, a := range authenticators {
			u, ok, err := a.AuthenticateRequest(r)
			if err != nil {
				s.log.Info("authentication failed", "path", r.URL.Path, "err", err)
				writeStatus(w, r, ErrUnauthorized())
				return
			}
			if ok {
				user = u
				break
			}
		}
		if user == nil {
			if !isPublicPath(r.URL.Path) {
				writeStatus(w, r, ErrUnauthorized())
				return
			}
			user = &UserInfo{Name: UserAnonymous, Groups: []string{GroupUnauthenticated}}
		} else {
			user.Groups = appendIfMissing(user.Groups, GroupAuthenticated)
		}
		if lw, ok := w.(*loggingWriter); ok {
			lw.user = user.Name
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
	})
}

func appendIfMissing(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}
