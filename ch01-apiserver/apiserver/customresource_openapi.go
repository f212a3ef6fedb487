package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/openapi"
)

// OpenAPI v3 of custom resources: the root lists the built-in group
// versions and those of the served custom resources; a custom group
// version's document is built from the CRDs when asked for, so kubectl
// explain and kubectl's field-validation checks see the kinds as upstream
// publishes them.

// serveCustomOpenAPI answers /openapi/v3 and the custom group versions'
// documents; it returns false for everything else (the static handler's).
func (s *Server) serveCustomOpenAPI(w http.ResponseWriter, r *http.Request, v3 *openapi.V3) bool {
	custom := s.crds.Resources()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if r.URL.Path == "/openapi/v2" {
		remote := s.agg.openAPIV2Documents()
		if len(custom) == 0 && len(remote) == 0 {
			return false
		}
		return s.serveCustomOpenAPIV2(w, r, custom, remote)
	}
	if len(custom) == 0 || !strings.HasPrefix(r.URL.Path, "/openapi/v3") {
		return false
	}
	byGV := map[string][]openapi.CustomKind{}
	var order []string
	for _, res := range custom {
		key := "apis/" + res.Group + "/" + res.Version
		if _, ok := byGV[key]; !ok {
			order = append(order, key)
		}
		var schema []byte
		if cr := s.crds.Served(res); cr != nil {
			schema, _ = json.Marshal(cr.Schema)
		}
		byGV[key] = append(byGV[key], openapi.CustomKind{Resource: res, Schema: schema})
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	if path == "/openapi/v3" {
		type entry struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		}
		root := struct {
			Paths map[string]entry `json:"paths"`
		}{Paths: map[string]entry{}}
		for _, gv := range v3.GroupVersions() {
			if _, hash, ok := v3.Document(gv); ok {
				root.Paths[gv] = entry{"/openapi/v3/" + gv + "?hash=" + hash}
			}
		}
		for _, gv := range order {
			_, hash := openapi.CustomResourceDocument(byGV[gv], Version.GitVersion)
			root.Paths[gv] = entry{"/openapi/v3/" + gv + "?hash=" + hash}
		}
		b, _ := json.Marshal(root)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache, private")
		w.Write(b)
		return true
	}
	gv := strings.TrimPrefix(path, "/openapi/v3/")
	kinds, ok := byGV[gv]
	if !ok || scheme.Lookup(kinds[0].Resource.Group, kinds[0].Resource.Version, kinds[0].Resource.Resource) != nil {
		return false
	}
	body, hash := openapi.CustomResourceDocument(kinds, Version.GitVersion)
	etag := `"` + hash + `"`
	w.Header().Set("Etag", etag)
	w.Header().Set("Content-Type", "application/json")
	switch h := r.URL.Query().Get("hash"); {
	case h == "":
		w.Header().Set("Cache-Control", "no-cache, private")
	case h != hash:
		w.Header().Set("Cache-Control", "no-cache, private")
		http.Redirect(w, r, "/openapi/v3/"+gv+"?hash="+hash, http.StatusMovedPermanently)
		return true
	default:
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	if r.Method != http.MethodHead {
		w.Write(body)
	}
	return true
}

// v2Document is the last /openapi/v2 built with custom resources and the
// aggregated apiservers' documents, kept until the served custom
// resources, their schemas or the backends' documents change.
type v2Document struct {
	key                 string
	json, proto         []byte
	jsonETag, protoETag string
}

// v2Cache holds one Server's v2Document.
type v2Cache struct {
	mu  sync.Mutex
	doc v2Document
}

// serveCustomOpenAPIV2 answers /openapi/v2 with the custom resources'
// paths and definitions merged in, then the aggregated apiservers' (in
// their order): JSON by default, protobuf when asked (kubectl asks), as
// upstream's aggregated v2 handler.
func (s *Server) serveCustomOpenAPIV2(w http.ResponseWriter, r *http.Request, custom []*scheme.Resource, remote []aggregatedOpenAPIV2) bool {
	var kinds []openapi.CustomKind
	var key strings.Builder
	for _, res := range custom {
		if scheme.Lookup(res.Group, res.Version, res.Resource) != nil {
			continue
		}
		var schema []byte
		if cr := s.crds.Served(res); cr != nil {
			schema, _ = json.Marshal(cr.Schema)
		}
		kinds = append(kinds, openapi.CustomKind{Resource: res, Schema: schema})
		fmt.Fprintf(&key, "%s/%s/%s/%s/%v/%v\x00%s\x00", res.Group, res.Version, res.Resource, res.Kind, res.Namespaced, res.Subresources, schema)
	}
	for _, d := range remote {
		fmt.Fprintf(&key, "\x01%s %s", d.name, d.hash)
	}
	s.openAPIV2.mu.Lock()
	doc := s.openAPIV2.doc
	if doc.key != key.String() || doc.json == nil {
		c := openapi.BuildV2CustomResources(kinds)
		for _, d := range remote {
			// Checked when fetched; parsed again for maps of its own.
			if src, err := openapi.ParseV2(d.body, "/apis/"+d.group+"/"+d.version+"/"); err == nil {
				openapi.MergeV2(&c, src)
			}
		}
		doc = v2Document{key: key.String(), json: openapi.V2JSON(Version.GitVersion, c), proto: openapi.V2Protobuf(Version.GitVersion, c)}
		doc.jsonETag, doc.protoETag = openapi.V2ETag(doc.json), openapi.V2ETag(doc.proto)
		s.openAPIV2.doc = doc
	}
	s.openAPIV2.mu.Unlock()

	body, etag, ctype := doc.json, doc.jsonETag, "application/json"
	if strings.Contains(r.Header.Get("Accept"), "protobuf") {
		body, etag, ctype = doc.proto, doc.protoETag, openapi.V2ContentType
	}
	w.Header().Set("Etag", etag)
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache, private")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	if r.Method != http.MethodHead {
		w.Write(body)
	}
	return true
}
