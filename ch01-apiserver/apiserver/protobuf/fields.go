package protobuf

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// A few types look different in protobuf than their Go struct suggests.
// Upstream writes their Marshal/Unmarshal by hand; so do we (special.go).
var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	quantityType  = reflect.TypeFor[resource.Quantity]()
)

// field is one protobuf field of a Go struct.
type field struct {
	num   protowire.Number
	name  string // the proto name from the tag, for error messages
	index []int  // reflect index of the Go field
	typ   reflect.Type
}

// message is the protobuf view of a Go struct: its fields by number.
type message struct {
	name   string
	fields []field // sorted by number: gogo writes fields in that order
	byNum  map[protowire.Number]*field
}

var messages sync.Map // reflect.Type → *message

// messageOf returns the cached field table of struct type t.
func messageOf(t reflect.Type) *message {
	if m, ok := messages.Load(t); ok {
		return m.(*message)
	}
	m := &message{name: t.Name(), byNum: map[protowire.Number]*field{}}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		num, name, ok := parseTag(sf.Tag.Get("protobuf"))
		if !ok {
			// No protobuf tag (TypeMeta, inlined with json:",inline") or
			// "-": not part of the protobuf message.
			continue
		}
		if !sf.IsExported() {
			continue
		}
		m.fields = append(m.fields, field{num: num, name: name, index: sf.Index, typ: sf.Type})
	}
	sort.SliceStable(m.fields, func(i, j int) bool { return m.fields[i].num < m.fields[j].num })
	for i := range m.fields {
		m.byNum[m.fields[i].num] = &m.fields[i]
	}
	actual, _ := messages.LoadOrStore(t, m)
	return actual.(*message)
}

// parseTag reads `protobuf:"bytes,3,opt,name=namespace,casttype=..."`.
// Only the number and the name matter: the wire type follows from the Go
// type (a few upstream tags say "bytes" for an int64 that is a varint).
func parseTag(tag string) (num protowire.Number, name string, ok bool) {
	if tag == "" || tag == "-" {
		return 0, "", false
	}
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return 0, "", false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n <= 0 || protowire.Number(n) > protowire.MaxValidNumber {
		return 0, "", false
	}
	for _, p := range parts[2:] {
		if v, found := strings.CutPrefix(p, "name="); found {
			name = v
		}
	}
	return protowire.Number(n), name, true
}

// isSpecial reports whether t has a hand-written protobuf form.
func isSpecial(t reflect.Type) bool {
	return t == timeType || t == microTimeType || t == quantityType
}

// isBytes reports whether t is []byte (or a named type of it, like json.RawMessage).
func isBytes(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}

// isListMessage reports whether t is a named list type that upstream
// encodes as a message of its own, { repeated items = 1 }: the ExtraValue
// of user info (map values cannot be repeated in protobuf).
func isListMessage(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Name() != "" && !isBytes(t)
}

// wireType is the protobuf wire type of one value of Go type t
// (an element, for repeated fields and maps).
func wireType(t reflect.Type) (protowire.Type, error) {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return protowire.VarintType, nil
	case reflect.Float64:
		return protowire.Fixed64Type, nil
	case reflect.Float32:
		return protowire.Fixed32Type, nil
	case reflect.String, reflect.Struct:
		return protowire.BytesType, nil
	case reflect.Slice:
		if isBytes(t) || isListMessage(t) {
			return protowire.BytesType, nil
		}
	case reflect.Pointer:
		return wireType(t.Elem())
	}
	return 0, fmt.Errorf("the Go type %s has no protobuf form", t)
}

// isScalar reports whether values of t may be packed in a repeated field.
func isScalar(t reflect.Type) bool {
	wt, err := wireType(t)
	return err == nil && wt != protowire.BytesType
}

// fieldName is "ObjectMeta.labels": for error messages.
func (m *message) fieldName(f *field) string {
	if f.name != "" {
		return m.name + "." + f.name
	}
	return fmt.Sprintf("%s.%d", m.name, f.num)
}
