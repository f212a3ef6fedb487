package server

// Who may use the kubelet API, decided as upstream's kubelet decides it
// (pkg/kubelet/server/auth.go) with webhook authentication and
// authorization:
//
//   - authentication: a client certificate of the cluster CA (checked in
//     the TLS handshake; user = CommonName, groups = Organization), or a
//     bearer token the apiserver vouches for (a TokenReview). Neither: 401.
//   - authorization: a SubjectAccessReview asks the apiserver whether the
//     user may <verb> nodes/<subresource> named after this node, where the
//     verb comes from the HTTP method and the subresource from the path
//     (/pods → pods then proxy, /healthz → healthz then proxy, /logs → log,
//     everything else, exec and containerLogs included → proxy). No: 403.

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"kubik/ch01-apiserver/api/authorizationv1"
	"kubik/ch03-scheduler/clientgo/delegated"
)

// user is an authenticated caller.
type user = delegated.User

// withAuth authenticates and authorizes every request before next.
func (s *Server) withAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := s.authenticate(r)
		if err != nil {
			s.log.Error("Unable to authenticate the request due to an error", "err", err)
		}
		if u == nil {
			writeError(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		verb, subresources := requestAttributes(r)
		for _, sub := range subresources {
			ok, err := s.authorize(r.Context(), u, verb, sub)
			if err != nil {
				s.log.Error("Authorization error", "user", u.Name, "verb", verb, "resource", "nodes", "subresource", sub, "err", err)
				writeError(w, http.StatusInternalServerError, fmt.Sprintf("Authorization error (user=%s, verb=%s, resource=nodes, subresource=%s)", u.Name, verb, sub))
				return
			}
			if ok {
				next.ServeHTTP(w, r)
				return
			}
		}
		s.log.Info("Forbidden", "user", u.Name, "verb", verb, "resource", "nodes", "subresources", subresources)
		writeError(w, http.StatusForbidden, fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=nodes, subresource(s)=%v)\n", u.Name, verb, subresources))
	})
}

// authenticate returns the caller, or nil when it did not say who it is
// (or said it wrongly).
func (s *Server) authenticate(r *http.Request) (*user, error) {
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		cert := r.TLS.VerifiedChains[0][0]
		return &user{Name: cert.Subject.CommonName, Groups: cert.Subject.Organization}, nil
	}
	token := delegated.BearerToken(r)
	if token == "" {
		return nil, nil
	}
	return delegated.ReviewToken(r.Context(), s.client, token)
}

// requestAttributes maps a request to the verb and the nodes
// subresources to check, in order (any one allowed is enough).
func requestAttributes(r *http.Request) (verb string, subresources []string) {
	switch r.Method {
	case http.MethodPost:
		verb = "create"
	case http.MethodGet, http.MethodHead:
		verb = "get"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
	}
	p := r.URL.Path
	switch {
	case isSubpath(p, "/pods"), isSubpath(p, "/runningpods"):
		subresources = append(subresources, "pods")
	case isSubpath(p, "/healthz"):
		subresources = append(subresources, "healthz")
	case isSubpath(p, "/configz"):
		subresources = append(subresources, "configz")
	}
	switch {
	case isSubpath(p, "/stats"):
		subresources = append(subresources, "stats")
	case isSubpath(p, "/metrics"):
		subresources = append(subresources, "metrics")
	case isSubpath(p, "/logs"):
		subresources = append(subresources, "log")
	default:
		subresources = append(subresources, "proxy")
	}
	return verb, subresources
}

func isSubpath(subpath, path string) bool {
	return subpath == path || strings.HasPrefix(subpath, path+"/")
}

// authorize asks the apiserver whether u may verb nodes/<subresource> of
// this node.
func (s *Server) authorize(ctx context.Context, u *user, verb, subresource string) (bool, error) {
	allowed, _, err := delegated.Authorize(ctx, s.client, u, &authorizationv1.ResourceAttributes{Verb: verb, Version: "v1",
		Resource: "nodes", Subresource: subresource, Name: s.nodeName}, nil)
	return allowed, err
}
