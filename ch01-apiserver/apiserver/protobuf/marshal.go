package protobuf

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Marshal encodes obj, a struct or a pointer to one, the way upstream's
// generated code does, so that the bytes are identical: fields in number
// order; proto2 rules, where strings, numbers and non-pointer structs are
// always written (even when empty or zero), nil pointers and nil byte slices
// are left out; repeated scalars unpacked; map entries sorted by key.
func Marshal(obj any) ([]byte, error) {
	v := reflect.ValueOf(obj)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("protobuf: Marshal needs a struct or a pointer to one, not %T", obj)
	}
	b, err := appendMessage(nil, v)
	if err != nil {
		return nil, fmt.Errorf("protobuf: %w", err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// appendMessage appends the fields of the struct v.
func appendMessage(b []byte, v reflect.Value) ([]byte, error) {
	if isSpecial(v.Type()) {
		return appendSpecial(b, v), nil
	}
	m := messageOf(v.Type())
	for i := range m.fields {
		f := &m.fields[i]
		var err error
		if b, err = appendField(b, f.num, v.FieldByIndex(f.index)); err != nil {
			return nil, fmt.Errorf("%s: %w", m.fieldName(f), err)
		}
	}
	return b, nil
}

// appendField appends every occurrence of field num holding v.
func appendField(b []byte, num protowire.Number, v reflect.Value) ([]byte, error) {
	t := v.Type()
	switch {
	case t.Kind() == reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, compareKeys)
		for _, k := range keys {
			b = protowire.AppendTag(b, num, protowire.BytesType)
			var err error
			b, err = appendNested(b, func(b []byte) ([]byte, error) {
				b, err := appendValue(b, 1, k)
				if err != nil {
					return nil, err
				}
				return appendValue(b, 2, v.MapIndex(k))
			})
			if err != nil {
				return nil, err
			}
		}
		return b, nil
	case t.Kind() == reflect.Slice && !isBytes(t):
		for i := 0; i < v.Len(); i++ {
			var err error
			if b, err = appendValue(b, num, v.Index(i)); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return appendValue(b, num, v)
}

// appendValue appends field num holding the single value v, unless v is a
// nil pointer or a nil byte slice.
func appendValue(b []byte, num protowire.Number, v reflect.Value) ([]byte, error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return b, nil
		}
		v = v.Elem()
	}
	typ, err := wireType(v.Type())
	if err != nil {
		return nil, err
	}
	switch typ {
	case protowire.VarintType:
		b = protowire.AppendTag(b, num, typ)
		switch v.Kind() {
		case reflect.Bool:
			return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool())), nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return protowire.AppendVarint(b, uint64(v.Int())), nil
		default:
			return protowire.AppendVarint(b, v.Uint()), nil
		}
	case protowire.Fixed64Type:
		b = protowire.AppendTag(b, num, typ)
		return protowire.AppendFixed64(b, math.Float64bits(v.Float())), nil
	case protowire.Fixed32Type:
		b = protowire.AppendTag(b, num, typ)
		return protowire.AppendFixed32(b, math.Float32bits(float32(v.Float()))), nil
	}
	switch {
	case v.Kind() == reflect.String:
		b = protowire.AppendTag(b, num, typ)
		return protowire.AppendString(b, v.String()), nil
	case isBytes(v.Type()):
		if v.IsNil() {
			return b, nil
		}
		b = protowire.AppendTag(b, num, typ)
		return protowire.AppendBytes(b, v.Bytes()), nil
	}
	b = protowire.AppendTag(b, num, typ)
	return appendNested(b, func(b []byte) ([]byte, error) {
		if isListMessage(v.Type()) {
			return appendField(b, 1, v) // { repeated items = 1 }
		}
		return appendMessage(b, v)
	})
}

// appendNested appends a length-delimited nested message written by
// write, in place: one byte is kept for the length, and the message is
// moved up in the rare case its length needs more (128 bytes or more need
// two). A message built in a buffer of its own, then copied, costs an
// allocation per nested message: dozens for a pod.
func appendNested(b []byte, write func([]byte) ([]byte, error)) ([]byte, error) {
	at := len(b)
	b = append(b, 0)
	b, err := write(b)
	if err != nil {
		return nil, err
	}
	n := len(b) - at - 1
	if n < 0x80 {
		b[at] = byte(n)
		return b, nil
	}
	extra := protowire.SizeVarint(uint64(n)) - 1
	for range extra {
		b = append(b, 0)
	}
	copy(b[at+1+extra:], b[at+1:at+1+n])
	protowire.AppendVarint(b[:at], uint64(n))
	return b, nil
}

// compareKeys orders map keys as gogo does: strings and numbers ascending.
func compareKeys(a, b reflect.Value) int {
	switch a.Kind() {
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.Bool:
		return cmp.Compare(protowire.EncodeBool(a.Bool()), protowire.EncodeBool(b.Bool()))
	}
	return 0
}
