package protobuf

import (
	"fmt"
	"reflect"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// The hand-written protobuf forms (upstream: apis/meta/v1/time_proto.go,
// micro_time_proto.go and api/resource/quantity_proto.go):
//
//	metav1.Time, metav1.MicroTime: message Timestamp { int64 seconds = 1; int32 nanos = 2; }
//	                               (the zero time is an empty message)
//	resource.Quantity:             message Quantity { string string = 1; }
//
// metav1.Duration {int64 duration = 1}, intstr.IntOrString {int64 type = 1;
// int32 intVal = 2; string strVal = 3} and metav1.FieldsV1 {bytes Raw = 1}
// carry protobuf tags that say exactly that, so they need nothing here.

// decodeSpecial decodes the message b into v, whose type is one of the above.
func decodeSpecial(b []byte, v reflect.Value) error {
	switch v.Type() {
	case quantityType:
		var s string
		var seen bool
		err := eachField(b, func(num protowire.Number, typ protowire.Type, val []byte, x uint64) error {
			if num == 1 && typ == protowire.BytesType {
				s, seen = string(val), true
			}
			return nil
		})
		if err != nil || !seen {
			return err
		}
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return fmt.Errorf("quantity %q: %w", s, err)
		}
		v.Set(reflect.ValueOf(q))
		return nil
	}

	// Time and MicroTime.
	var t time.Time
	if len(b) > 0 {
		var seconds, nanos int64
		err := eachField(b, func(num protowire.Number, typ protowire.Type, val []byte, x uint64) error {
			switch {
			case num == 1 && typ == protowire.VarintType:
				seconds = int64(x)
			case num == 2 && typ == protowire.VarintType:
				nanos = int64(int32(x))
			}
			return nil
		})
		if err != nil {
			return err
		}
		t = time.Unix(seconds, nanos).UTC()
	}
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(metav1.Time{Time: t}))
	} else {
		v.Set(reflect.ValueOf(metav1.MicroTime{Time: t}))
	}
	return nil
}

// eachField calls fn for every field of the message b: with the bytes of a
// length-delimited field, or the number of a varint.
func eachField(b []byte, fn func(num protowire.Number, typ protowire.Type, val []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var val []byte
		var x uint64
		switch typ {
		case protowire.BytesType:
			val, n = protowire.ConsumeBytes(b)
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := fn(num, typ, val, x); err != nil {
			return err
		}
	}
	return nil
}

// appendSpecial appends the message form of v (without tag and length).
func appendSpecial(b []byte, v reflect.Value) []byte {
	switch v.Type() {
	case quantityType:
		q := v.Interface().(resource.Quantity)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		return protowire.AppendString(b, q.String())
	case timeType:
		return appendTimestamp(b, v.Interface().(metav1.Time).Time)
	default:
		return appendTimestamp(b, v.Interface().(metav1.MicroTime).Time)
	}
}

func appendTimestamp(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(t.Unix()))
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(int64(t.Nanosecond())))
}
