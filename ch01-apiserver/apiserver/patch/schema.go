package patch

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// field is what the patch code knows about one JSON member of a Go type:
// its type and the strategic merge patch tags it carries.
type field struct {
	typ      reflect.Type // nil when unknown: no schema below
	strategy string       // "", "merge", "replace", "retainKeys", "merge,retainKeys"
	mergeKey string
}

// hasStrategy reports whether s is one of the comma-separated strategies.
func (f field) hasStrategy(s string) bool {
	for _, p := range strings.Split(f.strategy, ",") {
		if p == s {
			return true
		}
	}
	return false
}

var (
	structFieldsCache   sync.Map // reflect.Type → map[string]field
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// deref strips pointers.
func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// isLeaf reports types that marshal themselves (metav1.Time,
// resource.Quantity, intstr.IntOrString, FieldsV1): patches replace them whole.
func isLeaf(t reflect.Type) bool {
	t = deref(t)
	if t == nil {
		return false
	}
	p := reflect.PointerTo(t)
	return p.Implements(jsonUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// structOf returns t if it (behind pointers) is a struct walked member by member.
func structOf(t reflect.Type) reflect.Type {
	t = deref(t)
	if t == nil || t.Kind() != reflect.Struct || isLeaf(t) {
		return nil
	}
	return t
}

// lookup returns the member name of the object type t (a struct: its json
// fields, including those of inline embedded structs; a map: its element).
func lookup(t reflect.Type, name string) field {
	t = deref(t)
	if t == nil || isLeaf(t) {
		return field{}
	}
	switch t.Kind() {
	case reflect.Map:
		return field{typ: t.Elem()}
	case reflect.Struct:
		return structFields(t)[name]
	}
	return field{}
}

// elemOf is the element type of a list type.
func elemOf(t reflect.Type) reflect.Type {
	t = deref(t)
	if t == nil || isLeaf(t) {
		return nil
	}
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		return t.Elem()
	}
	return nil
}

func structFields(t reflect.Type) map[string]field {
	if v, ok := structFieldsCache.Load(t); ok {
		return v.(map[string]field)
	}
	fields := map[string]field{}
	collect(t, fields, 0)
	structFieldsCache.Store(t, fields)
	return fields
}

func collect(t reflect.Type, fields map[string]field, depth int) {
	if depth > 10 {
		return
	}
	var inline []reflect.Type
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if et := deref(f.Type); et.Kind() == reflect.Struct {
				inline = append(inline, et)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := fields[name]; !dup {
			fields[name] = field{typ: f.Type, strategy: f.Tag.Get("patchStrategy"), mergeKey: f.Tag.Get("patchMergeKey")}
		}
	}
	for _, et := range inline {
		promoted := map[string]field{}
		collect(et, promoted, depth+1)
		for name, f := range promoted {
			if _, dup := fields[name]; !dup {
				fields[name] = f
			}
		}
	}
}
