package openapi

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/scheme"
)

// V3 serves /openapi/v3 (the root: one URL per group version) and
// /openapi/v3/<group version> (one document each). Every document is built
// once, in NewV3.
type V3 struct {
	root  []byte
	docs  map[string]*v3Document // by "api/v1", "apis/apps/v1"
	order []string
}

type v3Document struct {
	body []byte
	hash string // upper-case hex SHA-512 of body, as upstream
}

// Document is an OpenAPI v3 document of one group version.
type Document struct {
	OpenAPI    string               `json:"openapi"`
	Info       Info                 `json:"info"`
	Paths      map[string]*PathItem `json:"paths"`
	Components Components           `json:"components"`
}

// Info is the document's title and the server's version.
type Info struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

// Components holds the schemas the paths reference.
type Components struct {
	Schemas map[string]*Schema `json:"schemas"`
}

// NewV3 builds the v3 documents of resources; serverVersion ("v1.33.1") goes
// into every document's info.
func NewV3(resources []*scheme.Resource, serverVersion string) *V3 {
	gvks := kindsOf(resources)
	v := &V3{docs: map[string]*v3Document{}}
	byGV := map[string][]*scheme.Resource{}
	for _, r := range resources {
		key := gvPath(r.Group, r.Version)
		if _, ok := byGV[key]; !ok {
			v.order = append(v.order, key)
		}
		byGV[key] = append(byGV[key], r)
	}

	type rootEntry struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	root := struct {
		Paths map[string]rootEntry `json:"paths"`
	}{Paths: map[string]rootEntry{}}
	for _, key := range v.order {
		b := newBuilder(false, gvks)
		doc := Document{OpenAPI: "3.0.0", Info: Info{Title: "Kubernetes", Version: serverVersion}, Paths: map[string]*PathItem{}}
		for _, r := range byGV[key] {
			b.pathsFor(doc.Paths, r)
		}
		doc.Components.Schemas = b.defs
		body := mustJSON(doc)
		sum := sha512.Sum512(body)
		d := &v3Document{body: body, hash: strings.ToUpper(fmt.Sprintf("%x", sum))}
		v.docs[key] = d
		root.Paths[key] = rootEntry{ServerRelativeURL: "/openapi/v3/" + key + "?hash=" + d.hash}
	}
	v.root = mustJSON(root)
	return v
}

// kindsOf maps every kind's Go type to its x-kubernetes-group-version-kind.
func kindsOf(resources []*scheme.Resource) map[reflect.Type][]GroupVersionKind {
	gvks := map[reflect.Type][]GroupVersionKind{}
	for _, r := range resources {
		t := reflect.TypeOf(r.New()).Elem()
		gvk := GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		if !containsGVK(gvks[t], gvk) {
			gvks[t] = append(gvks[t], gvk)
		}
	}
	return gvks
}

func containsGVK(list []GroupVersionKind, g GroupVersionKind) bool {
	for _, x := range list {
		if x == g {
			return true
		}
	}
	return false
}

// gvPath is "api/v1" or "apis/apps/v1": the key of a group version in the root.
func gvPath(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // our own types always encode
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// GroupVersions lists the keys of the root: "api/v1", "apis/apps/v1", ...
func (v *V3) GroupVersions() []string { return append([]string(nil), v.order...) }

// Document returns the JSON document of a group version ("api/v1") and its hash.
func (v *V3) Document(gv string) (body []byte, hash string, ok bool) {
	d, ok := v.docs[gv]
	if !ok {
		return nil, "", false
	}
	return d.body, d.hash, true
}

// ServeHTTP answers GET /openapi/v3 and GET /openapi/v3/<gv>, like upstream's
// kube-openapi handler: the root is never cached; a document asked for with
// its current hash is immutable; an old hash redirects to the current one.
func (v *V3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	if path == "/openapi/v3" {
		// Upstream writes the root with this content type (sic).
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache, private")
		w.Write(v.root)
		return
	}
	gv, found := strings.CutPrefix(path, "/openapi/v3/")
	d, ok := v.docs[gv]
	if !found || !ok {
		http.NotFound(w, r)
		return
	}
	etag := `"` + d.hash + `"`
	w.Header().Set("Etag", etag)
	w.Header().Set("Content-Type", "application/json")
	switch hash := r.URL.Query().Get("hash"); {
	case hash == "":
		w.Header().Set("Cache-Control", "no-cache, private")
	case hash != d.hash:
		w.Header().Set("Cache-Control", "no-cache, private")
		http.Redirect(w, r, "/openapi/v3/"+gv+"?hash="+d.hash, http.StatusMovedPermanently)
		return
	default:
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	if match := r.Header.Get("If-None-Match"); match == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	w.Write(d.body)
}
