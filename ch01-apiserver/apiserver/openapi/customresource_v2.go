package openapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
)

// OpenAPI v2 of custom resources: every served custom resource version
// adds its kind and list kind to /openapi/v2's definitions and its
// operations to the paths, as upstream's apiextensions-apiserver merges
// them into the aggregated v2 document (pkg/controller/openapi: the
// builder with Options{V2: true}, v2.ToStructuralOpenAPIV2, and the
// defaults pruned before publishing).

const (
	listMetaDescription = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// ToStructuralOpenAPIV2 converts a CRD's OpenAPI v3 schema (as decoded
// JSON) into what OpenAPI v2 and kubectl can read, as upstream's
// ToStructuralOpenAPIV2: allOf/oneOf/anyOf/not are dropped; a nullable
// field loses its type, items and properties; a field preserving unknown
// fields loses its items and properties (and type object); an array
// without items loses its type; nullable fields are not required. The
// defaults go too (upstream prunes them before publishing v2). The input
// is not changed.
func ToStructuralOpenAPIV2(in map[string]any) map[string]any {
	if in == nil {
		return nil
	}
	return toV2(in, 0)
}

// maxSchemaDepth bounds the recursion over a schema a client wrote.
const maxSchemaDepth = 64

func toV2(in map[string]any, depth int) map[string]any {
	s := make(map[string]any, len(in))
	for k, v := range in {
		s[k] = v
	}
	for _, k := range []string{"allOf", "oneOf", "anyOf", "not", "default"} {
		delete(s, k)
	}
	if isTrue(s["nullable"]) {
		delete(s, "type")
		delete(s, "nullable")
		delete(s, "items")
		delete(s, "properties")
	}
	preserve := isTrue(s["x-kubernetes-preserve-unknown-fields"])
	if preserve {
		delete(s, "items")
		delete(s, "properties")
	}
	if _, ok := s["items"]; !ok && s["type"] == "array" {
		delete(s, "type")
	}
	if preserve && s["type"] == "object" {
		delete(s, "type")
	}
	props, _ := s["properties"].(map[string]any)
	if req, ok := s["required"].([]any); ok {
		var kept []any
		for _, f := range req {
			name, _ := f.(string)
			if p, _ := props[name].(map[string]any); p != nil && isTrue(p["nullable"]) {
				continue
			}
			kept = append(kept, f)
		}
		if ap, _ := s["additionalProperties"].(map[string]any); ap != nil && isTrue(ap["nullable"]) {
			kept = nil
		}
		if len(kept) == 0 {
			delete(s, "required")
		} else {
			s["required"] = kept
		}
	}
	if depth >= maxSchemaDepth {
		delete(s, "properties")
		delete(s, "items")
		delete(s, "additionalProperties")
		return s
	}
	if props != nil {
		out := make(map[string]any, len(props))
		for name, p := range props {
			if m, ok := p.(map[string]any); ok {
				out[name] = toV2(m, depth+1)
			}
		}
		s["properties"] = out
	}
	if items, ok := s["items"].(map[string]any); ok {
		s["items"] = toV2(items, depth+1)
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		s["additionalProperties"] = toV2(ap, depth+1)
	}
	return s
}

func isTrue(v any) bool { b, _ := v.(bool); return b }

// customKindSchemaV2 is the v2 definition of a custom kind: the converted
// schema with apiVersion, kind and metadata, or only {type: object} when
// the whole object preserves unknown fields (kubectl would otherwise
// reject every field it does not know).
func customKindSchemaV2(k CustomKind, b *builder) map[string]any {
	var schema map[string]any
	if len(k.Schema) > 0 {
		_ = json.Unmarshal(k.Schema, &schema)
	}
	r := k.Resource
	gvk := []GroupVersionKind{{Group: r.Group, Kind: r.Kind, Version: r.Version}}
	if len(schema) == 0 || isTrue(schema["x-kubernetes-preserve-unknown-fields"]) {
		return map[string]any{"type": "object", "x-kubernetes-group-version-kind": gvk}
	}
	s := ToStructuralOpenAPIV2(schema)
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props["apiVersion"] = map[string]any{"description": apiVersionDescription, "type": "string"}
	props["kind"] = map[string]any{"description": kindDescription, "type": "string"}
	props["metadata"] = map[string]any{"description": metadataDescription, "$ref": b.ref(reflect.TypeFor[metav1.ObjectMeta]())}
	s["properties"] = props
	s["x-kubernetes-group-version-kind"] = gvk
	return s
}

// customListSchemaV2 is the v2 definition of a custom kind's list.
func customListSchemaV2(k CustomKind, kindRef string, b *builder) map[string]any {
	r := k.Resource
	listKind := r.Kind + "List"
	return map[string]any{
		"description": listKind + " is a list of " + r.Kind,
		"required":    []any{"items"},
		"type":        "object",
		"properties": map[string]any{
			"apiVersion": map[string]any{"description": apiVersionDescription, "type": "string"},
			"items": map[string]any{
				"description": "List of " + r.Resource + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
				"type":        "array",
				"items":       map[string]any{"$ref": kindRef},
			},
			"kind":     map[string]any{"description": kindDescription, "type": "string"},
			"metadata": map[string]any{"description": listMetaDescription, "$ref": b.ref(reflect.TypeFor[metav1.ListMeta]())},
		},
		"x-kubernetes-group-version-kind": []GroupVersionKind{{Group: r.Group, Kind: listKind, Version: r.Version}},
	}
}

// customPathsV2 are the kind's operations, each with its operationId,
// x-kubernetes-action and x-kubernetes-group-version-kind as upstream's
// builder names them.
func customPathsV2(k CustomKind, kindRef, listRef string, paths map[string]any) {
	r := k.Resource
	gvk := GroupVersionKind{Group: r.Group, Kind: r.Kind, Version: r.Version}
	scope := ""
	if r.Namespaced {
		scope = "Namespaced"
	}
	op := func(id, action, ref string) map[string]any {
		return map[string]any{
			"operationId":                     id,
			"produces":                        []any{"application/json", "application/yaml"},
			"schemes":                         []any{"https"},
			"tags":                            []any{groupTag(r.Group) + "_" + r.Version},
			"responses":                       map[string]any{"200": map[string]any{"description": "OK", "schema": map[string]any{"$ref": ref}}},
			"x-kubernetes-action":             action,
			"x-kubernetes-group-version-kind": gvk,
		}
	}
	root := "/apis/" + r.Group + "/" + r.Version
	if r.Namespaced {
		paths[root+"/"+r.Resource] = map[string]any{"get": op("list"+r.Kind+"ForAllNamespaces", "list", listRef)}
		root += "/namespaces/{namespace}"
	}
	root += "/" + r.Resource
	paths[root] = map[string]any{
		"get":    op("list"+scope+r.Kind, "list", listRef),
		"post":   op("create"+scope+r.Kind, "post", kindRef),
		"delete": op("deletecollection"+scope+r.Kind, "deletecollection", "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status"),
	}
	paths[root+"/{name}"] = map[string]any{
		"get":    op("read"+scope+r.Kind, "get", kindRef),
		"put":    op("replace"+scope+r.Kind, "put", kindRef),
		"patch":  op("patch"+scope+r.Kind, "patch", kindRef),
		"delete": op("delete"+scope+r.Kind, "delete", "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status"),
	}
	for _, sub := range r.Subresources {
		if sub.Name != "status" {
			continue
		}
		paths[root+"/{name}/status"] = map[string]any{
			"get":   op("read"+scope+r.Kind+"Status", "get", kindRef),
			"put":   op("replace"+scope+r.Kind+"Status", "put", kindRef),
			"patch": op("patch"+scope+r.Kind+"Status", "patch", kindRef),
		}
	}
}

// V2CustomResources is the v2 document's part contributed by custom
// resources: its paths and definitions (with the metav1 types they refer
// to), ready to be merged into the document.
type V2CustomResources struct {
	Paths       map[string]any
	Definitions map[string]any
	// Parameters: the shared parameters of an aggregated apiserver's
	// document (MergeV2); custom resources have none.
	Parameters map[string]any
}

// BuildV2CustomResources builds the paths and definitions of the given
// custom resource versions.
func BuildV2CustomResources(kinds []CustomKind) V2CustomResources {
	out := V2CustomResources{Paths: map[string]any{}, Definitions: map[string]any{}}
	b := newBuilder(true, nil)
	b.ref(reflect.TypeFor[metav1.Status]())
	for _, k := range kinds {
		r := k.Resource
		name := customDefinitionName(r.Group, r.Version, r.Kind)
		listName := name + "List"
		out.Definitions[name] = customKindSchemaV2(k, b)
		out.Definitions[listName] = customListSchemaV2(k, b.refPrefix()+name, b)
		customPathsV2(k, b.refPrefix()+name, b.refPrefix()+listName, out.Paths)
	}
	for defName, s := range b.defs {
		// Round-trip through JSON so the encoders see plain maps.
		var m map[string]any
		_ = json.Unmarshal(mustJSON(s), &m)
		out.Definitions[defName] = m
	}
	return out
}

// V2JSON is the v2 document in JSON: {swagger, info, paths, definitions,
// parameters if any}.
func V2JSON(serverVersion string, c V2CustomResources) []byte {
	doc := map[string]any{
		"swagger":     "2.0",
		"info":        Info{Title: "Kubernetes", Version: serverVersion},
		"paths":       c.Paths,
		"definitions": c.Definitions,
	}
	if len(c.Parameters) > 0 {
		doc["parameters"] = c.Parameters
	}
	return mustJSON(doc)
}

// V2Protobuf is the v2 document in gnostic's protobuf form, with the
// definitions (kubectl explain --output=plaintext-openapiv2 and kubectl
// 1.27's models read them); the paths are left out, as in V2Document.
func V2Protobuf(serverVersion string, c V2CustomResources) []byte {
	doc := V2Document(serverVersion)
	var defs []byte
	for _, name := range sortedKeys(c.Definitions) {
		m, _ := c.Definitions[name].(map[string]any)
		var named []byte
		named = appendString(named, namedName, name)
		named = appendMessage(named, namedValue, encodeV2Schema(m, 0))
		defs = appendMessage(defs, definitionsAdditional, named)
	}
	return appendMessage(doc, documentDefs, defs)
}

// V2ETag is the entity tag of a document body.
func V2ETag(body []byte) string {
	sum := sha512.Sum512(body)
	return `"` + strings.ToUpper(fmt.Sprintf("%x", sum)) + `"`
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
