package apiserver

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/selection"
)

// The filters that ask package auth who is asking and whether they may:
// authentication, impersonation and authorization, in that order after
// RequestInfo (buildHandler). Upstream: k8s.io/apiserver/pkg/endpoints/filters
// (authentication.go, impersonation.go, authorization.go) and the 403 of
// endpoints/handlers/responsewriters.

// withAuthentication puts the user into the request context; the
// authenticators (newAuth) are asked in upstream's order: the client
// certificate, Config.Authenticators, then bearer tokens. Anonymous requests
// get through only to the public health and version paths; everything else
// answers 401 with the Status kubectl turns into
// "error: You must be logged in to the server (Unauthorized)".
func (s *Server) withAuthentication(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok, err := s.authenticator.AuthenticateRequest(r)
		if err != nil {
			s.log.Info("authentication failed", "path", r.URL.Path, "err", err)
			writeStatus(w, r, ErrUnauthorized())
			return
		}
		if !ok {
			// No credentials at all: the anonymous user, whom the
			// authorizers then judge like anyone else (RBAC's
			// system:public-info-viewer lets it read /healthz, /livez,
			// /readyz, /version); with --anonymous-auth=false, 401.
			if !s.anonymous {
				writeStatus(w, r, ErrUnauthorized())
				return
			}
			user = &auth.UserInfo{Name: auth.UserAnonymous, Groups: []string{auth.GroupUnauthenticated}}
		}
		if lw, ok := w.(*loggingWriter); ok {
			lw.user = user.Name
		}
		next.ServeHTTP(w, r.WithContext(auth.WithUser(r.Context(), user)))
	})
}

// withImpersonation lets the request go on as the user of its
// Impersonate-* headers when the real user may impersonate them.
func (s *Server) withImpersonation(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		im, ok := auth.ImpersonationFrom(r.Header)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if im.User == "" {
			writeStatus(w, r, ErrBadRequest("requested impersonation of groups, uid or extra without impersonating a user"))
			return
		}
		actor, _ := auth.UserFrom(r.Context())
		for _, a := range im.Checks(actor) {
			if !s.authorizer.Allowed(r.Context(), a) {
				writeStatus(w, r, errForbiddenAction(a, ""))
				return
			}
		}
		r = r.Clone(auth.WithUser(r.Context(), im.UserInfo()))
		for k := range r.Header {
			if strings.HasPrefix(k, "Impersonate-") {
				r.Header.Del(k)
			}
		}
		if lw, ok := w.(*loggingWriter); ok {
			lw.user = fmt.Sprintf("%s (as %s)", lw.user, im.User)
		}
		next.ServeHTTP(w, r)
	})
}

// withAuthorization refuses what the authorizers do not allow. The public
// health and version paths are allowed to everyone without asking (upstream
// grants them through the system:public-info-viewer binding; answering them
// even when storage is down is what a health check needs).
func (s *Server) withAuthorization(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isPublicPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		user, _ := auth.UserFrom(r.Context())
		a := requestAttributes(r, user)
		d, reason, err := s.authorizer.Authorize(r.Context(), a)
		if d == auth.DecisionAllow {
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			s.log.Info("authorization failed", "path", r.URL.Path, "user", userName(user), "err", err)
			writeStatus(w, r, ErrInternal(err))
			return
		}
		writeStatus(w, r, errForbiddenAction(a, reason))
	})
}

// requestAttributes turns an HTTP request into Attributes, as upstream's
// RequestInfo resolver and GetAuthorizerAttributes do.
func requestAttributes(r *http.Request, user *auth.UserInfo) *auth.Attributes {
	info := requestInfoFrom(r)
	a := &auth.Attributes{User: user, Verb: info.Verb, Path: r.URL.Path}
	if !info.IsResourceRequest {
		return a
	}
	a.IsResourceRequest = true
	a.Namespace, a.APIGroup, a.APIVersion = info.Namespace, info.APIGroup, info.APIVersion
	a.Resource, a.Subresource, a.Name = info.Resource, info.Subresource, info.Name
	if a.Resource == "namespaces" && len(info.Parts) == 1 {
		a.Namespace = "" // the collection of namespaces is cluster-scoped
	}
	a.FieldSelector = r.URL.Query().Get("fieldSelector")
	// A list or watch of one object by metadata.name=x is, for authorization,
	// a request about x (upstream's RequestInfoFactory does the same).
	if a.Name == "" && (a.Verb == "list" || a.Verb == "watch") && a.FieldSelector != "" {
		if sel, err := selection.ParseFieldSelector(a.FieldSelector); err == nil {
			if v, ok := sel.RequiresExactMatch("metadata.name"); ok {
				a.Name = v
			}
		}
	}
	return a
}

func userName(u *auth.UserInfo) string {
	if u == nil {
		return ""
	}
	return u.Name
}

// forbiddenMessage is upstream's responsewriters.forbiddenMessage.
func forbiddenMessage(a *auth.Attributes) string {
	name := userName(a.User)
	if !a.IsResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.Verb, resource, a.APIGroup)
}

// errForbiddenAction is the 403 of a refused request:
// `pods "x" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default"`,
// or `forbidden: User "alice" cannot get path "/api"` for a path.
func errForbiddenAction(a *auth.Attributes, reason string) *StatusError {
	msg := forbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	if !a.IsResourceRequest {
		return ErrForbidden("", "", "", "", errors.New(msg))
	}
	gr := a.Resource
	if a.APIGroup != "" {
		gr += "." + a.APIGroup
	}
	return ErrForbidden(a.APIGroup, a.Resource, gr, a.Name, errors.New(msg))
}
