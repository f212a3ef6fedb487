package auth

import (
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

// Impersonation is what the Impersonate-* headers of a request ask for.
type Impersonation struct {
	User   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// ImpersonationFrom reads the Impersonate-* headers; ok is false when there
// are none.
func ImpersonationFrom(h http.Header) (im *Impersonation, ok bool) {
	im = &Impersonation{
		User:   h.Get(authenticationv1.ImpersonateUserHeader),
		Groups: h.Values(authenticationv1.ImpersonateGroupHeader),
		UID:    h.Get(authenticationv1.ImpersonateUIDHeader),
		Extra:  map[string][]string{},
	}
	for k, vs := range h {
		if strings.HasPrefix(k, authenticationv1.ImpersonateUserExtraHeaderPrefix) {
			key, err := url.PathUnescape(strings.ToLower(strings.TrimPrefix(k, authenticationv1.ImpersonateUserExtraHeaderPrefix)))
			if err != nil {
				key = strings.ToLower(strings.TrimPrefix(k, authenticationv1.ImpersonateUserExtraHeaderPrefix))
			}
			im.Extra[key] = append(im.Extra[key], vs...)
		}
	}
	if im.User == "" && len(im.Groups) == 0 && im.UID == "" && len(im.Extra) == 0 {
		return nil, false
	}
	return im, true
}

// Checks are the actions actor must be allowed, in order, to impersonate:
// the user (a ServiceAccount as serviceaccounts/<name> in its namespace),
// each group, the uid and each extra value.
func (im *Impersonation) Checks(actor *UserInfo) []*Attributes {
	var checks []*Attributes
	check := func(a *Attributes) {
		a.User, a.Verb, a.IsResourceRequest = actor, "impersonate", true
		checks = append(checks, a)
	}
	if ns, name, ok := SplitServiceAccountUsername(im.User); ok {
		check(&Attributes{Resource: "serviceaccounts", Namespace: ns, Name: name})
	} else {
		check(&Attributes{Resource: "users", Name: im.User})
	}
	for _, g := range im.Groups {
		check(&Attributes{Resource: "groups", Name: g})
	}
	if im.UID != "" {
		check(&Attributes{APIGroup: "authentication.k8s.io", Resource: "uids", Name: im.UID})
	}
	for k, vs := range im.Extra {
		for _, v := range vs {
			check(&Attributes{APIGroup: "authentication.k8s.io", Resource: "userextras", Subresource: k, Name: v})
		}
	}
	return checks
}

// UserInfo is the user the request goes on as. A ServiceAccount without
// impersonated groups gets the ServiceAccount groups; every user gets
// system:authenticated (system:anonymous: system:unauthenticated).
func (im *Impersonation) UserInfo() *UserInfo {
	groups := im.Groups
	if ns, _, ok := SplitServiceAccountUsername(im.User); ok && len(groups) == 0 {
		groups = []string{GroupServiceAccounts, GroupServiceAccounts + ":" + ns}
	}
	u := &UserInfo{Name: im.User, UID: im.UID, Groups: append([]string(nil), groups...)}
	if len(im.Extra) > 0 {
		u.Extra = im.Extra
	}
	if im.User == UserAnonymous {
		u.Groups = appendIfMissing(u.Groups, GroupUnauthenticated)
	} else {
		u.Groups = appendIfMissing(u.Groups, GroupAuthenticated)
	}
	return u
}
