package cel

import (
	"github.com/google/cel-go/cel"
)

// Schema is the part of an OpenAPI schema node CEL typing needs. The CRD
// code adapts its JSONSchemaProps to it; ValidatingAdmissionPolicy will
// adapt the built-in kinds' schemas. Upstream: k8s.io/apiserver/pkg/cel/common.Schema.
type Schema interface {
	Type() string
	Format() string
	Items() Schema
	Properties() map[string]Schema
	// AdditionalProperties is the schema of a map's values, nil when the
	// node is not a map.
	AdditionalProperties() Schema
	IsXIntOrString() bool
	IsXEmbeddedResource() bool
	IsXPreserveUnknownFields() bool
	Nullable() bool
	// MaxLength, MaxItems and MaxProperties are the node's bounds, nil
	// when unset; the cost estimator sizes values from them.
	MaxLength() *int64
	MaxItems() *int64
	MaxProperties() *int64
}

// maxTypeDepth bounds the walk of a schema.
const maxTypeDepth = 64

// TypeOf returns the CEL type of values of a schema node, leaving objects
// untyped: it is the type of the nodes DeclTypes does not name.
//
//   - integer → int, number → double, boolean → bool, string → string
//     (format byte → bytes, date-time → timestamp, duration → duration);
//   - array → list(items);
//   - object with additionalProperties → map(string, values);
//   - other objects → map(string, dyn): fields are selected with
//     self.name and has(self.name) tests presence;
//   - x-kubernetes-int-or-string and nodes without a type → dyn.
func TypeOf(s Schema) *cel.Type { return typeOf(s, 0) }

func typeOf(s Schema, depth int) *cel.Type {
	if s == nil || depth > maxTypeDepth {
		return cel.DynType
	}
	if s.IsXIntOrString() {
		return cel.DynType
	}
	switch s.Type() {
	case "integer":
		return cel.IntType
	case "number":
		return cel.DoubleType
	case "boolean":
		return cel.BoolType
	case "string":
		switch s.Format() {
		case "byte":
			return cel.BytesType
		case "date-time":
			return cel.TimestampType
		case "duration":
			return cel.DurationType
		}
		return cel.StringType
	case "array":
		return cel.ListType(typeOf(s.Items(), depth+1))
	case "object":
		if ap := s.AdditionalProperties(); ap != nil && len(s.Properties()) == 0 && !s.IsXEmbeddedResource() {
			return cel.MapType(cel.StringType, typeOf(ap, depth+1))
		}
		return cel.MapType(cel.StringType, cel.DynType)
	}
	return cel.DynType
}
