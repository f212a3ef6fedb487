package openapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
)

// Custom resources have no Go type: their OpenAPI v3 document is built
// per request from the CRDs, with the same paths as a built-in kind and
// the kind's schema taken from the CRD version's openAPIV3Schema, as
// upstream's apiextensions-apiserver does (pkg/controller/openapi/builder).

// CustomKind is one custom resource of a group version and its schema
// (the CRD version's openAPIV3Schema as JSON).
type CustomKind struct {
	Resource *scheme.Resource
	Schema   json.RawMessage
}

// customDefinitionName is upstream's name of a custom kind's schema:
// the reversed group, the version and the kind (com.example.v1.Widget).
func customDefinitionName(group, version, kind string) string {
	parts := strings.Split(group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + version + "." + kind
}

const (
	apiVersionDescription = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	kindDescription       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	metadataDescription   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// CustomResourceDocument returns the v3 document of one group version of
// custom resources and its hash.
func CustomResourceDocument(kinds []CustomKind, serverVersion string) ([]byte, string) {
	paths := map[string]any{}
	schemas := map[string]any{}
	for _, k := range kinds {
		r := k.Resource
		b := newBuilder(false, nil)
		p := map[string]*PathItem{}
		b.pathsFor(p, r)
		generic := b.refPrefix() + definitionName(reflect.TypeOf(r.New()).Elem())
		name := customDefinitionName(r.Group, r.Version, r.Kind)
		// The paths refer to the Go type's schema; point them at the kind's.
		raw := strings.ReplaceAll(string(mustJSON(p)), `"`+generic+`"`, `"`+b.refPrefix()+name+`"`)
		var kp map[string]any
		if err := json.Unmarshal([]byte(raw), &kp); err == nil {
			for path, item := range kp {
				paths[path] = item
			}
		}
		schemas[name] = customKindSchema(k, b)
		for defName, s := range b.defs {
			if b.refPrefix()+defName != generic {
				schemas[defName] = s
			}
		}
	}
	doc := map[string]any{
		"openapi":    "3.0.0",
		"info":       Info{Title: "Kubernetes CRD Swagger", Version: "v0.1.0"},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	}
	body := mustJSON(doc)
	sum := sha512.Sum512(body)
	return body, strings.ToUpper(fmt.Sprintf("%x", sum))
}

// customKindSchema is the CRD's schema with apiVersion, kind and metadata
// described as upstream's builder describes them.
func customKindSchema(k CustomKind, b *builder) map[string]any {
	s := map[string]any{}
	if len(k.Schema) > 0 {
		_ = json.Unmarshal(k.Schema, &s)
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props["apiVersion"] = map[string]any{"description": apiVersionDescription, "type": "string"}
	props["kind"] = map[string]any{"description": kindDescription, "type": "string"}
	props["metadata"] = map[string]any{"description": metadataDescription,
		"allOf": []any{map[string]any{"$ref": b.ref(reflect.TypeFor[metav1.ObjectMeta]())}}}
	s["properties"] = props
	s["type"] = "object"
	r := k.Resource
	s["x-kubernetes-group-version-kind"] = []GroupVersionKind{{Group: r.Group, Kind: r.Kind, Version: r.Version}}
	return s
}
