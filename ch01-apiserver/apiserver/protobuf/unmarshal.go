package protobuf

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"
)

// maxDepth bounds the nesting of messages, so that a hostile body cannot
// exhaust the stack (the protobuf libraries use the same limit).
const maxDepth = 100

// Unmarshal decodes the protobuf bytes of an object (the raw field of the
// envelope) into into, a pointer to one of our API structs.
//
// Fields are matched by the numbers in the protobuf struct tags; unknown
// field numbers are skipped, as every protobuf reader does (there is no strict
// mode in protobuf). Like upstream's generated code, decoding merges into
// what into already holds.
func Unmarshal(raw []byte, into any) error {
	v := reflect.ValueOf(into)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("protobuf: Unmarshal needs a non-nil pointer to a struct, not %T", into)
	}
	if err := decodeMessage(raw, v.Elem(), 0); err != nil {
		return fmt.Errorf("protobuf: %w", err)
	}
	return nil
}

// decodeMessage decodes b into the struct v.
func decodeMessage(b []byte, v reflect.Value, depth int) error {
	if depth > maxDepth {
		return errors.New("messages nested too deeply")
	}
	t := v.Type()
	if isSpecial(t) {
		return decodeSpecial(b, v)
	}
	m := messageOf(t)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%s: %w", m.name, protowire.ParseError(n))
		}
		b = b[n:]
		f := m.byNum[num]
		if f == nil {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return fmt.Errorf("%s: field %d: %w", m.name, num, protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		n, err := decodeField(b, typ, v.FieldByIndex(f.index), depth)
		if err != nil {
			return fmt.Errorf("%s: %w", m.fieldName(f), err)
		}
		b = b[n:]
	}
	return nil
}

// decodeField decodes one occurrence of a field with wire type typ from the
// start of b into v, and returns how many bytes it used. Repeated fields and
// maps occur once per element.
func decodeField(b []byte, typ protowire.Type, v reflect.Value, depth int) (int, error) {
	t := v.Type()
	switch {
	case t.Kind() == reflect.Map:
		if typ != protowire.BytesType {
			return 0, wrongWireType(typ, protowire.BytesType)
		}
		entry, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return 0, protowire.ParseError(n)
		}
		return n, decodeMapEntry(entry, v, depth)

	case t.Kind() == reflect.Slice && !isBytes(t):
		elem := t.Elem()
		if typ == protowire.BytesType && isScalar(elem) {
			// A packed repeated scalar: many values in one length-delimited field.
			packed, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return 0, protowire.ParseError(n)
			}
			etyp, _ := wireType(elem)
			for len(packed) > 0 {
				e := reflect.New(elem).Elem()
				m, err := decodeValue(packed, etyp, e, depth)
				if err != nil {
					return 0, err
				}
				packed = packed[m:]
				v.Set(reflect.Append(v, e))
			}
			return n, nil
		}
		e := reflect.New(elem).Elem()
		n, err := decodeValue(b, typ, e, depth)
		if err != nil {
			return 0, err
		}
		v.Set(reflect.Append(v, e))
		return n, nil
	}
	return decodeValue(b, typ, v, depth)
}

// decodeMapEntry decodes a map entry message {key = 1; value = 2} into the map v.
// A missing key or value is the zero value, as in protobuf.
func decodeMapEntry(b []byte, v reflect.Value, depth int) error {
	t := v.Type()
	key := reflect.New(t.Key()).Elem()
	val := reflect.New(t.Elem()).Elem()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch num {
		case 1:
			n, err := decodeValue(b, typ, key, depth)
			if err != nil {
				return fmt.Errorf("map key: %w", err)
			}
			b = b[n:]
		case 2:
			n, err := decodeValue(b, typ, val, depth)
			if err != nil {
				return fmt.Errorf("map value: %w", err)
			}
			b = b[n:]
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(t))
	}
	v.SetMapIndex(key, val)
	return nil
}

// decodeValue decodes a single value (not a repeated field or a map) of wire
// type typ from the start of b into v, and returns how many bytes it used.
func decodeValue(b []byte, typ protowire.Type, v reflect.Value, depth int) (int, error) {
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return decodeValue(b, typ, v.Elem(), depth)
	}
	want, err := wireType(t)
	if err != nil {
		return 0, err
	}
	if typ != want {
		return 0, wrongWireType(typ, want)
	}
	switch typ {
	case protowire.VarintType:
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return 0, protowire.ParseError(n)
		}
		switch t.Kind() {
		case reflect.Bool:
			v.SetBool(x != 0)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			// Negative numbers are the two's complement as a 10-byte varint;
			// narrower kinds keep the low bits, as gogo's generated code does.
			v.SetInt(int64(x))
		default:
			v.SetUint(x)
		}
		return n, nil
	case protowire.Fixed64Type:
		x, n := protowire.ConsumeFixed64(b)
		if n < 0 {
			return 0, protowire.ParseError(n)
		}
		v.SetFloat(math.Float64frombits(x))
		return n, nil
	case protowire.Fixed32Type:
		x, n := protowire.ConsumeFixed32(b)
		if n < 0 {
			return 0, protowire.ParseError(n)
		}
		v.SetFloat(float64(math.Float32frombits(x)))
		return n, nil
	}

	data, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, protowire.ParseError(n)
	}
	switch {
	case t.Kind() == reflect.String:
		v.SetString(string(data))
	case isBytes(t):
		// Copy: the caller's buffer may be reused. Present but empty stays
		// non-nil, like upstream.
		v.SetBytes(append(make([]byte, 0, len(data)), data...))
	case isListMessage(t):
		if err := decodeListMessage(data, v, depth+1); err != nil {
			return 0, err
		}
	default: // a struct: a nested message
		if err := decodeMessage(data, v, depth+1); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// decodeListMessage decodes { repeated items = 1 } into the list v; other
// fields are skipped, as unknown fields are.
func decodeListMessage(b []byte, v reflect.Value, depth int) error {
	if depth > maxDepth {
		return errors.New("messages nested too deeply")
	}
	if v.IsNil() {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0)) // present but empty stays non-nil
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if num != 1 {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			continue
		}
		n, err := decodeField(b, typ, v, depth)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func wrongWireType(got, want protowire.Type) error {
	return fmt.Errorf("wrong wire type %d (want %d)", got, want)
}
