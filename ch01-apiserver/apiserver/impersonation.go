package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"kubik/ch01-apiserver/api/authenticationv1"
)

// Impersonation: "kubectl --as alice --as-group dev" sends
// Impersonate-User: alice and Impersonate-Group: dev. If the real user may
// "impersonate" that user (and each group, uid and extra), the request goes on
// as alice — which is how an admin checks what someone else may do
// ("kubectl auth can-i list pods --as alice"). Upstream:
// k8s.io/apiserver/pkg/endpoints/filters/impersonation.go.

func (s *Server) withImpersonation(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header
		userName := h.Get(authenticationv1.ImpersonateUserHeader)
		groups := h.Values(authenticationv1.ImpersonateGroupHeader)
		uid := h.Get(authenticationv1.ImpersonateUIDHeader)
		extra := map[string][]string{}
		for k, vs := range h {
			if strings.HasPrefix(k, authenticationv1.ImpersonateUserExtraHeaderPrefix) {
				key, err := url.PathUnescape(strings.ToLower(strings.TrimPrefix(k, authenticationv1.ImpersonateUserExtraHeaderPrefix)))
				if err != nil {
					key = strings.ToLower(strings.TrimPrefix(k, authenticationv1.ImpersonateUserExtraHeaderPrefix))
				}
				extra[key] = append(extra[key], vs...)
			}
		}
		if userName == "" && len(groups) == 0 && uid == "" && len(extra) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		if userName == "" {
			writeStatus(w, r, ErrBadRequest("requested impersonation of groups, uid or extra without impersonating a user"))
			return
		}
		actor, _ := UserFrom(r.Context())
		check := func(a *Attributes) bool {
			a.User, a.Verb, a.IsResourceRequest = actor, "impersonate", true
			if s.allowed(r.Context(), a) {
				return true
			}
			writeStatus(w, r, errForbiddenAction(a, ""))
			return false
		}
		// The user: a ServiceAccount is impersonated as serviceaccounts/<name> in its namespace.
		if ns, name, ok := splitServiceAccountUsername(userName); ok {
			if !check(&Attributes{Resource: "serviceaccounts", Namespace: ns, Name: name}) {
				return
			}
			if len(groups) == 0 {
				groups = []string{GroupServiceAccounts, GroupServiceAccounts + ":" + ns}
			}
		} else if !check(&Attributes{Resource: "users", Name: userName}) {
			return
		}
		for _, g := range h.Values(authenticationv1.ImpersonateGroupHeader) {
			if !check(&Attributes{Resource: "groups", Name: g}) {
				return
			}
		}
		if uid != "" && !check(&Attributes{APIGroup: "authentication.k8s.io", Resource: "uids", Name: uid}) {
			return
		}
		for k, vs := range extra {
			for _, v := range vs {
				if !check(&Attributes{APIGroup: "authentication.k8s.io", Resource: "userextras", Subresource: k, Name: v}) {
					return
				}
			}
		}
		u := &UserInfo{Name: userName, UID: uid, Groups: append([]string(nil), groups...)}
		if len(extra) > 0 {
			u.Extra = extra
		}
		if userName == UserAnonymous {
			u.Groups = appendIfMissing(u.Groups, GroupUnauthenticated)
		} else {
			u.Groups = appendIfMissing(u.Groups, GroupAuthenticated)
		}
		r = r.Clone(context.WithValue(r.Context(), userKey{}, u))
		for k := range r.Header {
			if strings.HasPrefix(k, "Impersonate-") {
				r.Header.Del(k)
			}
		}
		if lw, ok := w.(*loggingWriter); ok {
			lw.user = fmt.Sprintf("%s (as %s)", lw.user, userName)
		}
		next.ServeHTTP(w, r)
	})
}

// splitServiceAccountUsername splits "system:serviceaccount:<ns>:<name>".
func splitServiceAccountUsername(u string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(u, "system:serviceaccount:")
	if !found {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	if !ok || namespace == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return namespace, name, true
}
