package apiserver

import (
	"net/http"
	"strings"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/openapi"
)

// newOpenAPIHandler serves /openapi/v2 (protobuf; kubectl 1.27/1.28 need it
// for apply and create -f) and /openapi/v3 (kubectl 1.29+ and explain);
// custom answers first when custom resources add to them.
func newOpenAPIHandler(resources []*scheme.Resource, version string, custom func(http.ResponseWriter, *http.Request, *openapi.V3) bool) http.Handler {
	v3 := openapi.NewV3(resources, version)
	v2 := openapi.V2Handler(version)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case custom != nil && strings.HasPrefix(r.URL.Path, "/openapi/") && custom(w, r, v3):
		case r.URL.Path == "/openapi/v2":
			v2.ServeHTTP(w, r)
		case r.URL.Path == "/openapi/v3" || strings.HasPrefix(r.URL.Path, "/openapi/v3/"):
			v3.ServeHTTP(w, r)
		default:
			writeStatus(w, r, errNoSuchPath())
		}
	})
}
