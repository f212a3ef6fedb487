package policy

import (
	"encoding/json"
	"strings"
	"sync"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/cel"
	"kubik/ch01-apiserver/apiserver/openapi"
)

// BuiltinSchemas are the schemas of the built-in kinds, from the OpenAPI
// v3 documents the apiserver serves (upstream's type checker resolves
// them from its compiled-in OpenAPI definitions). Custom resources are
// not in it: a policy on them is not type checked.
func BuiltinSchemas() Schemas {
	builtinOnce.Do(func() { builtin = buildBuiltinSchemas() })
	return builtin
}

var (
	builtinOnce sync.Once
	builtin     *builtinSchemas
)

type builtinSchemas struct {
	kinds   map[[3]string][]GroupVersionKind // group, version, resource
	schemas map[GroupVersionKind]*oaSchema
}

func buildBuiltinSchemas() *builtinSchemas {
	b := &builtinSchemas{kinds: map[[3]string][]GroupVersionKind{}, schemas: map[GroupVersionKind]*oaSchema{}}
	v3 := openapi.NewV3(scheme.Resources, "v0.0.0")
	for _, gv := range v3.GroupVersions() {
		body, _, ok := v3.Document(gv)
		if !ok {
			continue
		}
		var doc openapi.Document
		if json.Unmarshal(body, &doc) != nil {
			continue
		}
		for _, s := range doc.Components.Schemas {
			for _, g := range s.GroupVersionKind {
				gvk := GroupVersionKind{g.Group, g.Version, g.Kind}
				if _, ok := b.schemas[gvk]; !ok && gvPath(g.Group, g.Version) == gv {
					b.schemas[gvk] = &oaSchema{s: s, defs: doc.Components.Schemas}
				}
			}
		}
	}
	for _, r := range scheme.Resources {
		gvk := GroupVersionKind{r.Group, r.Version, r.Kind}
		if _, ok := b.schemas[gvk]; ok {
			key := [3]string{r.Group, r.Version, r.Resource}
			b.kinds[key] = append(b.kinds[key], gvk)
		}
	}
	return b
}

func gvPath(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

func (b *builtinSchemas) KindsFor(group, version, resource string) []GroupVersionKind {
	return b.kinds[[3]string{group, version, resource}]
}

func (b *builtinSchemas) Schema(gvk GroupVersionKind) cel.Schema {
	if s, ok := b.schemas[gvk]; ok {
		return s
	}
	return nil
}

// oaSchema adapts an OpenAPI v3 schema (references resolved in defs) to
// cel.Schema.
type oaSchema struct {
	s    *openapi.Schema
	defs map[string]*openapi.Schema
}

// node is the schema itself, or what its $ref (or single allOf entry)
// points to; the description and default around a reference do not matter here.
func (o *oaSchema) node() *openapi.Schema {
	s := o.s
	for range 8 {
		switch {
		case s.Ref != "":
			d, ok := o.defs[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
			if !ok {
				return &openapi.Schema{}
			}
			s = d
		case len(s.AllOf) == 1 && s.Type == "":
			s = s.AllOf[0]
		default:
			return s
		}
	}
	return s
}

func (o *oaSchema) wrap(s *openapi.Schema) cel.Schema {
	if s == nil {
		return nil
	}
	return &oaSchema{s: s, defs: o.defs}
}

func (o *oaSchema) Type() string   { return o.node().Type }
func (o *oaSchema) Format() string { return o.node().Format }
func (o *oaSchema) Items() cel.Schema {
	return o.wrap(o.node().Items)
}
func (o *oaSchema) Properties() map[string]cel.Schema {
	n := o.node()
	if len(n.Properties) == 0 {
		return nil
	}
	out := make(map[string]cel.Schema, len(n.Properties))
	for k, v := range n.Properties {
		out[k] = o.wrap(v)
	}
	return out
}
func (o *oaSchema) AdditionalProperties() cel.Schema { return o.wrap(o.node().AdditionalProperties) }

// IsXIntOrString: int-or-string values and quantities (oneOf string or
// number) are dyn.
func (o *oaSchema) IsXIntOrString() bool {
	n := o.node()
	return n.Format == "int-or-string" || (n.Type == "" && len(n.OneOf) > 0)
}
func (o *oaSchema) IsXEmbeddedResource() bool      { return false }
func (o *oaSchema) IsXPreserveUnknownFields() bool { return o.node().PreserveUnknownFields }
func (o *oaSchema) Nullable() bool                 { return false }
func (o *oaSchema) MaxLength() *int64              { return nil }
func (o *oaSchema) MaxItems() *int64               { return nil }
func (o *oaSchema) MaxProperties() *int64          { return nil }
