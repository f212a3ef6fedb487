package apiserver

import (
	"net"
	"net/http"
	"strconv"

	"kubik/ch01-apiserver/apiserver/auth/serviceaccount"
)

// serveOpenIDMetadata answers the two ServiceAccount issuer discovery
// paths (auth/serviceaccount/openidmetadata.go) with upstream's headers:
// JSON and application/jwk-set+json, cacheable for an hour. Like every
// non-resource path they are authorized: the bootstrap policy lets every
// ServiceAccount read them (system:service-account-issuer-discovery), not
// anonymous users.
//
// The JWKS URI defaults to https://<advertise address>:<port>/openid/v1/jwks
// with the port this request came in on (upstream takes --secure-port,
// which may be 0 here: a free port picked at start).
func (s *Server) serveOpenIDMetadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeStatus(w, r, methodNotAllowed())
		return
	}
	port := strconv.Itoa(s.cfg.SecurePort)
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, p, err := net.SplitHostPort(a.String()); err == nil {
			port = p
		}
	}
	config, keyset, err := serviceaccount.OpenIDMetadata(s.saTokens.Issuer, s.cfg.ServiceAccountJWKSURI,
		net.JoinHostPort(s.cfg.AdvertiseAddress, port), s.saTokens.PublicKeys())
	if err != nil {
		// Upstream then does not install the routes: the paths are unknown.
		writeStatus(w, r, errNoSuchPath())
		return
	}
	body, contentType := config, "application/json"
	if p := r.URL.Path; p == serviceaccount.JWKSPath || p == serviceaccount.JWKSPath+"/" {
		body, contentType = keyset, "application/jwk-set+json"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(body)
}
