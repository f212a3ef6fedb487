package cel

import (
	"sort"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// DeclTypes are the object types of a schema: every object node with
// declared properties (and neither x-kubernetes-preserve-unknown-fields
// nor x-kubernetes-embedded-resource) becomes a named CEL object type
// whose fields are its properties (names escaped), so the checker
// refuses self.nope and types self.replicas as int. Values stay CEL maps
// at runtime: field selection and has() on an object type fall back to
// map lookups. Upstream: DeclType and DeclTypeProvider in types.go.
type DeclTypes struct {
	base   types.Provider
	fields map[string]map[string]*types.FieldType
	root   *cel.Type
	// verbatim: property names are field names as they are, not escaped.
	verbatim bool
}

// NewDeclTypes builds the types of the schema rooted at s, named after
// rootName, over the base provider.
func NewDeclTypes(base types.Provider, rootName string, s Schema) *DeclTypes {
	d := &DeclTypes{base: base, fields: map[string]map[string]*types.FieldType{}}
	d.root = d.declType(s, rootName, 0)
	return d
}

// NewDeclTypesVerbatim is NewDeclTypes for a schema written for CEL, whose
// property names are the field names as they are (upstream's hand-built
// DeclTypes, such as the AdmissionRequest of admission expressions, whose
// request.namespace is not escaped).
func NewDeclTypesVerbatim(base types.Provider, rootName string, s Schema) *DeclTypes {
	d := &DeclTypes{base: base, fields: map[string]map[string]*types.FieldType{}, verbatim: true}
	d.root = d.declType(s, rootName, 0)
	return d
}

// Root is the CEL type of the schema's root.
func (d *DeclTypes) Root() *cel.Type { return d.root }

func (d *DeclTypes) declType(s Schema, name string, depth int) *cel.Type {
	if s == nil || depth > maxTypeDepth || s.IsXIntOrString() {
		return cel.DynType
	}
	switch s.Type() {
	case "array":
		return cel.ListType(d.declType(s.Items(), name+".@idx", depth+1))
	case "object":
		props := s.Properties()
		if len(props) == 0 || s.IsXPreserveUnknownFields() || s.IsXEmbeddedResource() {
			if ap := s.AdditionalProperties(); ap != nil && len(props) == 0 {
				return cel.MapType(cel.StringType, d.declType(ap, name+".@elem", depth+1))
			}
			return cel.MapType(cel.StringType, cel.DynType)
		}
		fields := map[string]*types.FieldType{}
		d.fields[name] = fields
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			escaped, ok := k, true
			if !d.verbatim {
				escaped, ok = Escape(k)
			}
			if !ok {
				continue
			}
			fields[escaped] = &types.FieldType{Type: d.declType(props[k], name+"."+k, depth+1)}
		}
		return cel.ObjectType(name)
	}
	return TypeOf(s)
}

func (d *DeclTypes) EnumValue(enumName string) ref.Val { return d.base.EnumValue(enumName) }

func (d *DeclTypes) FindIdent(identName string) (ref.Val, bool) { return d.base.FindIdent(identName) }

func (d *DeclTypes) FindStructType(structType string) (*types.Type, bool) {
	if _, ok := d.fields[structType]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(structType)), true
	}
	return d.base.FindStructType(structType)
}

func (d *DeclTypes) FindStructFieldNames(structType string) ([]string, bool) {
	if f, ok := d.fields[structType]; ok {
		names := make([]string, 0, len(f))
		for n := range f {
			names = append(names, n)
		}
		sort.Strings(names)
		return names, true
	}
	return d.base.FindStructFieldNames(structType)
}

func (d *DeclTypes) FindStructFieldType(structType, fieldName string) (*types.FieldType, bool) {
	if f, ok := d.fields[structType]; ok {
		ft, ok := f[fieldName]
		return ft, ok
	}
	return d.base.FindStructFieldType(structType, fieldName)
}

// NewValue: objects are not built in expressions.
func (d *DeclTypes) NewValue(structType string, fields map[string]ref.Val) ref.Val {
	return d.base.NewValue(structType, fields)
}
