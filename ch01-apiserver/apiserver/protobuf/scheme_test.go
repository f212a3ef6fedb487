package protobuf

import (
	"reflect"
	"testing"

	"kubik/ch01-apiserver/api/scheme"
)

// TestEveryServedKindHasProtobufForm: the apiserver answers protobuf
// clients (client-go, kubectl's typed commands, our own components) with
// Marshal of the served kinds, which writes only the fields that carry a
// protobuf tag. A field without one would be dropped from every protobuf
// answer without a word, so every field of every served kind must have a
// tag, with a number used once in its struct, and no interface fields.
func TestEveryServedKindHasProtobufForm(t *testing.T) {
	for _, r := range scheme.Resources {
		obj := r.New()
		checkProtobufForm(t, r.GroupVersion()+" "+r.Kind, reflect.TypeOf(obj), map[reflect.Type]bool{})
		if _, err := Marshal(obj); err != nil {
			t.Errorf("%s %s: %v", r.GroupVersion(), r.Kind, err)
		}
	}
}

func checkProtobufForm(t *testing.T, path string, typ reflect.Type, seen map[reflect.Type]bool) {
	t.Helper()
	for {
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice:
			if isBytes(typ) {
				return
			}
			typ = typ.Elem()
			continue
		case reflect.Map:
			checkProtobufForm(t, path+"[key]", typ.Key(), seen)
			typ = typ.Elem()
			continue
		case reflect.Interface:
			t.Errorf("%s: an interface (%s) has no protobuf form", path, typ)
			return
		}
		break
	}
	if typ.Kind() != reflect.Struct || seen[typ] || isSpecial(typ) {
		return
	}
	seen[typ] = true
	numbers := map[int]string{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() || f.Name == "TypeMeta" || f.Tag.Get("json") == "-" {
			continue
		}
		num, _, ok := parseTag(f.Tag.Get("protobuf"))
		if !ok {
			t.Errorf("%s.%s (%s.%s): no protobuf tag", path, f.Name, typ.PkgPath(), typ.Name())
			continue
		}
		if other, dup := numbers[int(num)]; dup {
			t.Errorf("%s (%s.%s): fields %s and %s both have number %d", path, typ.PkgPath(), typ.Name(), other, f.Name, num)
		}
		numbers[int(num)] = f.Name
		checkProtobufForm(t, path+"."+f.Name, f.Type, seen)
	}
}
