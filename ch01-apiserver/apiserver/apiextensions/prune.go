package apiextensions

import (
	"strconv"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
)

// Pruning drops every field the schema does not specify, unless
// x-kubernetes-preserve-unknown-fields says to keep them: what makes a
// custom resource behave like a built-in kind, whose Go types cannot hold
// unknown fields. Upstream: pkg/apiserver/schema/pruning/algorithm.go.
// The paths of the pruned fields are returned for strict field
// validation ("unknown field \"spec.x\"").

// objectMetaFields are the JSON members of ObjectMeta: the metadata of an
// embedded resource is pruned to them (the root's metadata is typed anyway).
var objectMetaFields = map[string]bool{
	"name": true, "generateName": true, "namespace": true, "selfLink": true, "uid": true,
	"resourceVersion": true, "generation": true, "creationTimestamp": true, "deletionTimestamp": true,
	"deletionGracePeriodSeconds": true, "labels": true, "annotations": true, "ownerReferences": true,
	"finalizers": true, "managedFields": true,
}

// Prune removes unknown fields from obj (the root object: apiVersion,
// kind and metadata are kept) and returns their paths.
func Prune(obj map[string]any, s *apiextensionsv1.JSONSchemaProps) []string {
	p := &pruner{}
	p.object(obj, s, "", true, 0)
	return append(p.pruned, p.prunedMeta...) // upstream reports embedded metadata last
}

// UnknownMetadataFields lists the members of a metadata map that are not ObjectMeta's.
func UnknownMetadataFields(md map[string]any, prefix string) []string {
	var out []string
	for _, k := range sortedKeys(md) {
		if !objectMetaFields[k] {
			out = append(out, prefix+k)
		}
	}
	return out
}

type pruner struct {
	pruned, prunedMeta []string
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func preserves(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

func (p *pruner) value(x any, s *apiextensionsv1.JSONSchemaProps, path string, depth int) {
	if depth > maxSchemaDepth {
		return
	}
	switch t := x.(type) {
	case map[string]any:
		p.object(t, s, path, false, depth)
	case []any:
		if s == nil || preserves(s) && (s.Items == nil || s.Items.Schema == nil) {
			return
		}
		var items *apiextensionsv1.JSONSchemaProps
		if s.Items != nil {
			items = s.Items.Schema
		}
		for i, e := range t {
			p.value(e, items, path+"["+strconv.Itoa(i)+"]", depth+1)
		}
	}
}

func (p *pruner) object(m map[string]any, s *apiextensionsv1.JSONSchemaProps, path string, root bool, depth int) {
	if s == nil {
		return // below a field the schema does not type (int-or-string, preserve): kept as is
	}
	embedded := root || s.XEmbeddedResource
	for _, k := range sortedKeys(m) {
		child := join(path, k)
		if embedded && (k == "apiVersion" || k == "kind") {
			continue
		}
		if embedded && k == "metadata" {
			if md, ok := m[k].(map[string]any); ok && !root {
				for _, u := range UnknownMetadataFields(md, child+".") {
					p.prunedMeta = append(p.prunedMeta, u)
					delete(md, u[len(child)+1:])
				}
			}
			continue
		}
		if prop, ok := s.Properties[k]; ok {
			p.value(m[k], &prop, child, depth+1)
			continue
		}
		if ap := s.AdditionalProperties; ap != nil {
			if ap.Schema != nil {
				p.value(m[k], ap.Schema, child, depth+1)
			}
			continue // additionalProperties: true keeps the field and what is below it
		}
		if preserves(s) {
			continue
		}
		p.pruned = append(p.pruned, child)
		delete(m, k)
	}
}
