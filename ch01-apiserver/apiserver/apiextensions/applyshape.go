package apiextensions

import (
	"fmt"
	"reflect"
	"strings"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/api/metav1"
)

// Server-side apply's field manager walks Go types (their json names and
// patchMergeKey tags). A custom resource has none, so one is built from
// its structural schema with reflect.StructOf, as upstream deduces its
// typed schema from the CRD: an object with properties is a struct, a
// list with x-kubernetes-list-type: map is merged by its first key, and
// anything the schema leaves open is a free-form value.

var (
	anyType    = reflect.TypeFor[any]()
	mapAnyType = reflect.TypeFor[map[string]any]()
)

// maxApplyTypeDepth bounds the generated types' nesting.
const maxApplyTypeDepth = 32

// ApplyType is the Go shape server-side apply uses for this version's objects.
func (s *Served) ApplyType() reflect.Type {
	if s.applyType == nil {
		return reflect.TypeFor[ApplyShape]()
	}
	return s.applyType
}

func buildApplyType(schema *apiextensionsv1.JSONSchemaProps) (t reflect.Type) {
	defer func() {
		if recover() != nil {
			t = reflect.TypeFor[ApplyShape]() // a schema reflect cannot express
		}
	}()
	fields := []reflect.StructField{
		{Name: "Kind", Type: reflect.TypeFor[string](), Tag: `json:"kind,omitempty"`},
		{Name: "APIVersion", Type: reflect.TypeFor[string](), Tag: `json:"apiVersion,omitempty"`},
		{Name: "Metadata", Type: reflect.TypeFor[metav1.ObjectMeta](), Tag: `json:"metadata"`},
	}
	for i, k := range sortedSchemaKeys(schema.Properties) {
		if k == "kind" || k == "apiVersion" || k == "metadata" || !tagSafe(k) {
			continue
		}
		p := schema.Properties[k]
		fields = append(fields, applyField(i, k, &p, 1))
	}
	return reflect.StructOf(fields)
}

// tagSafe: names that can be written in a struct tag as they are.
func tagSafe(name string) bool {
	return name != "" && !strings.ContainsAny(name, "\"`,\\ ") && name != "-"
}

func applyField(i int, name string, s *apiextensionsv1.JSONSchemaProps, depth int) reflect.StructField {
	t := applyTypeOf(s, depth)
	if t.Kind() == reflect.Struct {
		t = reflect.PointerTo(t)
	}
	tag := fmt.Sprintf(`json:"%s,omitempty"`, name)
	if s.Type == "array" && s.XListType != nil && *s.XListType == "map" && len(s.XListMapKeys) > 0 && tagSafe(s.XListMapKeys[0]) {
		tag += fmt.Sprintf(` patchStrategy:"merge" patchMergeKey:"%s"`, s.XListMapKeys[0])
	}
	return reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: t, Tag: reflect.StructTag(tag)}
}

func applyTypeOf(s *apiextensionsv1.JSONSchemaProps, depth int) reflect.Type {
	if s == nil || depth > maxApplyTypeDepth || s.XEmbeddedResource || s.XIntOrString {
		return anyType
	}
	switch s.Type {
	case "object":
		if len(s.Properties) == 0 {
			if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
				return reflect.MapOf(reflect.TypeFor[string](), applyTypeOf(ap.Schema, depth+1))
			}
			return mapAnyType
		}
		var fields []reflect.StructField
		for i, k := range sortedSchemaKeys(s.Properties) {
			if !tagSafe(k) {
				continue
			}
			p := s.Properties[k]
			fields = append(fields, applyField(i, k, &p, depth+1))
		}
		if len(fields) == 0 {
			return mapAnyType
		}
		return reflect.StructOf(fields)
	case "array":
		if s.Items == nil || s.Items.Schema == nil {
			return reflect.TypeFor[[]any]()
		}
		return reflect.SliceOf(applyTypeOf(s.Items.Schema, depth+1))
	}
	return anyType
}
