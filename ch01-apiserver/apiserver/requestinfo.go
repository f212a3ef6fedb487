package apiserver

import (
	"context"
	"net/http"
	"strings"
)

// RequestInfo is what the URL and method say about a resource request.
// Upstream: k8s.io/apiserver/pkg/endpoints/request/requestinfo.go.
//
//	/api/v1/namespaces/default/pods/web/status
//	 ^^^ ^^            ^^^^^^^ ^^^^ ^^^ ^^^^^^
//	 prefix version  namespace resource name subresource
type RequestInfo struct {
	IsResourceRequest bool
	Path              string
	Verb              string // get, list, watch, create, update, patch, delete, deletecollection
	APIPrefix         string // "api" or "apis"
	APIGroup          string
	APIVersion        string
	Namespace         string
	Resource          string
	Subresource       string
	Name              string
	Parts             []string
}

type requestInfoKey struct{}

// withRequestInfo parses the request's RequestInfo once, for every filter
// and handler after it (upstream's WithRequestInfo).
func withRequestInfo(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, parseRequestInfo(r))))
	})
}

// requestInfoFrom returns the RequestInfo withRequestInfo parsed, or
// parses it (a handler called without the filter, as in tests).
func requestInfoFrom(r *http.Request) *RequestInfo {
	if info, ok := r.Context().Value(requestInfoKey{}).(*RequestInfo); ok {
		return info
	}
	return parseRequestInfo(r)
}

// parseRequestInfo splits a request path the way upstream's RequestInfoFactory does.
func parseRequestInfo(r *http.Request) *RequestInfo {
	info := &RequestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := splitPath(r.URL.Path)
	if len(parts) == 0 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	info.APIPrefix = parts[0]
	parts = parts[1:]
	if len(parts) == 0 {
		return info // /api or /apis: discovery
	}
	if info.APIPrefix == "apis" {
		if len(parts) < 2 {
			return info // /apis/<group>: discovery
		}
		info.APIGroup = parts[0]
		parts = parts[1:]
	}
	info.APIVersion = parts[0]
	parts = parts[1:]
	if len(parts) == 0 {
		return info // /api/v1: discovery
	}
	info.IsResourceRequest = true

	// Legacy /watch/ prefix: /api/v1/watch/namespaces/default/pods
	watchPrefix := false
	if parts[0] == "watch" {
		watchPrefix = true
		parts = parts[1:]
	}
	// /namespaces/<ns>/<resource>... but /namespaces, /namespaces/<name> and
	// its subresources /namespaces/<name>/status|finalize are the namespaces resource itself.
	if parts[0] == "namespaces" && len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
		info.Namespace = parts[1]
		parts = parts[2:]
	}
	info.Parts = parts
	info.Resource = parts[0]
	if len(parts) >= 2 {
		info.Name = parts[1]
	}
	if len(parts) >= 3 {
		info.Subresource = parts[2]
	}
	if info.Resource == "namespaces" && info.Name != "" && len(parts) == 2 {
		info.Namespace = info.Name // a namespace is "in" itself for admission and authz
	}

	switch r.Method {
	case http.MethodPost:
		info.Verb = "create"
	case http.MethodGet, http.MethodHead:
		info.Verb = "get"
	case http.MethodPut:
		info.Verb = "update"
	case http.MethodPatch:
		info.Verb = "patch"
	case http.MethodDelete:
		info.Verb = "delete"
	}
	if info.Verb == "get" && info.Name == "" {
		info.Verb = "list"
	}
	if info.Verb == "delete" && info.Name == "" {
		info.Verb = "deletecollection"
	}
	if watchPrefix || (info.Verb == "list" || info.Verb == "get") && isWatch(r) {
		info.Verb = "watch"
	}
	return info
}

// isWatch: ?watch= read as upstream's parameter codec reads a boolean
// (anything but absent, "0" or "false" is true).
func isWatch(r *http.Request) bool {
	return queryBool(r.URL.Query()["watch"])
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
