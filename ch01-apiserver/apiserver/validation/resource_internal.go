package validation

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"

	"kubik/ch01-apiserver/api/resourcev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// resourcePkg is the package path of our resource.k8s.io/v1 types.
var resourcePkg = reflect.TypeFor[resourcev1.DeviceClaim]().PkgPath()

// validateImmutableInternal is ValidateImmutableField for a value of the
// resource.k8s.io types, printed the way upstream prints it: upstream
// validates its internal types, which carry no json tags, so the "Invalid
// value" of its message is encoding/json's rendering of Go field names with
// every field, empty ones included: {"Devices":{"Requests":[{"Name":"gpu",...
func validateImmutableInternal(newVal, oldVal any, fldPath *field.Path) field.ErrorList {
	if semanticEqual(newVal, oldVal) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, internalForm{newVal}, FieldImmutableErrorMsg)}
}

// internalForm renders a resourcev1 value as the internal type's JSON.
type internalForm struct{ v any }

// MarshalJSON writes Go field names for resourcev1 structs and the normal
// JSON for everything else (metav1 and Quantity have json tags upstream too).
func (f internalForm) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	err := writeInternal(&b, reflect.ValueOf(f.v))
	return b.Bytes(), err
}

func writeInternal(b *bytes.Buffer, v reflect.Value) error {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		v = v.Elem()
	}
	switch {
	case v.Kind() == reflect.Struct && v.Type().PkgPath() == resourcePkg:
		b.WriteByte('{')
		first := true
		if err := writeInternalFields(b, v, &first); err != nil {
			return err
		}
		b.WriteByte('}')
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() != reflect.Uint8:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeInternal(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case v.Kind() == reflect.Map:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			name, _ := json.Marshal(k.String())
			b.Write(name)
			b.WriteByte(':')
			if err := writeInternal(b, v.MapIndex(k)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		j, err := json.Marshal(v.Interface())
		if err != nil {
			return err
		}
		b.Write(j)
	}
	return nil
}

// writeInternalFields writes the fields of a struct; embedded structs are
// flattened, as encoding/json does with untagged embedded fields.
func writeInternalFields(b *bytes.Buffer, v reflect.Value, first *bool) error {
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if f.Type.PkgPath() == resourcePkg {
				if err := writeInternalFields(b, v.Field(i), first); err != nil {
					return err
				}
				continue
			}
			// metav1.ObjectMeta keeps its json names: splice its members in.
			j, err := json.Marshal(v.Field(i).Interface())
			if err != nil {
				return err
			}
			if inner := bytes.TrimSpace(j[1 : len(j)-1]); len(inner) > 0 {
				if !*first {
					b.WriteByte(',')
				}
				b.Write(inner)
				*first = false
			}
			continue
		}
		if !*first {
			b.WriteByte(',')
		}
		*first = false
		name, _ := json.Marshal(f.Name)
		b.Write(name)
		b.WriteByte(':')
		if err := writeInternal(b, v.Field(i)); err != nil {
			return err
		}
	}
	return nil
}
