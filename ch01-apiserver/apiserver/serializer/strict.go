package serializer

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// StrictErrors are the complaints of strict decoding: unknown and duplicate
// fields, each already worded like upstream (`unknown field "spec.contaienrs"`).
// The object itself decoded fine; whether they fail the request depends on
// the fieldValidation query parameter.
type StrictErrors []string

// Error is the text upstream puts after "<Kind> in version ... cannot be
// handled as a <Kind>: ".
func (e StrictErrors) Error() string {
	return "strict decoding error: " + strings.Join(e, ", ")
}

// Warnings returns one message per problem, for fieldValidation=Warn
// (sent back as `Warning: 299 - "<message>"` headers).
func (e StrictErrors) Warnings() []string {
	return append([]string(nil), e...)
}

// maxStrictErrors is upstream's cap on collected strict errors.
const maxStrictErrors = 100

// DecodeStrict decodes the JSON data into the pointer into like
// sigs.k8s.io/json's UnmarshalStrict: keys must match the json names exactly
// (case-sensitive), unknown and duplicate keys are collected as StrictErrors
// in document order (deduplicated, at most 100) and dropped from the object,
// and a real decoding error (bad syntax, wrong type) is returned as error with
// encoding/json's message, in which case the strict errors do not matter.
//
// Values of types with their own UnmarshalJSON (metav1.Time,
// resource.Quantity, intstr.IntOrString, FieldsV1) are leaves: nothing inside
// them is checked.
func DecodeStrict(data []byte, into any) (StrictErrors, error) {
	rv := reflect.ValueOf(into)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, &json.InvalidUnmarshalError{Type: reflect.TypeOf(into)}
	}
	if !json.Valid(data) {
		// Let encoding/json word the syntax error.
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, err
	}
	// First only check: most documents have nothing to drop, and then
	// they decode as they are.
	t := rv.Type().Elem()
	w := &strictWalker{data: data}
	w.value(t, false)
	if len(w.errs) == 0 {
		return nil, json.Unmarshal(data, into)
	}
	// Unknown or duplicate keys: walk again, writing a copy without them.
	w = &strictWalker{data: data}
	w.value(t, true)
	if err := json.Unmarshal(w.out.Bytes(), into); err != nil {
		return nil, err
	}
	return w.errs, nil
}

// strictWalker reads the JSON byte by byte beside the Go type it decodes
// into, writes a cleaned copy (unknown keys dropped) to out, and records the
// strict errors with upstream's paths: keys joined by ".", indices as "[i]".
// The data is valid JSON (DecodeStrict checks first), so the walker only
// finds where each value starts and ends; what it keeps it copies as is.
type strictWalker struct {
	data  []byte
	pos   int
	out   bytes.Buffer
	stack []string
	errs  StrictErrors
	seen  map[string]bool
}

func (w *strictWalker) fieldError(kind, field string) {
	path := field
	if len(w.stack) > 0 {
		path = strings.Join(w.stack, "") + "." + field
	}
	msg := kind + " " + strconv.Quote(path)
	if len(w.errs) >= maxStrictErrors || w.seen[msg] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[msg] = true
	w.errs = append(w.errs, msg)
}

func (w *strictWalker) pushKey(key string) {
	if len(w.stack) > 0 {
		w.stack = append(w.stack, ".", key)
	} else {
		w.stack = append(w.stack, key)
	}
}

func (w *strictWalker) pushIndex(i int) {
	w.stack = append(w.stack, "[", strconv.Itoa(i), "]")
}

func (w *strictWalker) skipSpace() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// value consumes one JSON value. t is the Go type it decodes into; nil means
// "skip": the value is consumed without checks and, unless emit, not written.
func (w *strictWalker) value(t reflect.Type, emit bool) {
	w.skipSpace()
	info := typeInfoFor(t)
	start := w.pos
	switch {
	case w.data[w.pos] == '{' && info != nil && (info.kind == kindStruct || info.kind == kindMap || info.kind == kindAny):
		w.object(info, emit)
	case w.data[w.pos] == '[' && info != nil && (info.kind == kindList || info.kind == kindAny):
		w.array(info, emit)
	default:
		// A scalar, or a value nothing inside of is checked (a type with
		// its own unmarshaler, a skipped key, a type mismatch that
		// json.Unmarshal will report).
		w.skipValue()
		if emit {
			w.out.Write(w.data[start:w.pos])
		}
	}
}

// next moves to element (or member) i of the array or object being read,
// past the comma before it; false when the container ends instead, its
// closing byte end consumed.
func (w *strictWalker) next(end byte, i int) bool {
	w.skipSpace()
	if w.data[w.pos] == end {
		w.pos++
		return false
	}
	if i > 0 {
		w.pos++ // ','
		w.skipSpace()
	}
	return true
}

// array consumes an array whose elements decode into info.elem.
func (w *strictWalker) array(info *typeInfo, emit bool) {
	w.pos++ // '['
	if emit {
		w.out.WriteByte('[')
	}
	for i := 0; w.next(']', i); i++ {
		if i > 0 && emit {
			w.out.WriteByte(',')
		}
		mark := len(w.stack)
		w.pushIndex(i)
		w.value(info.elem, emit)
		w.stack = w.stack[:mark]
	}
	if emit {
		w.out.WriteByte(']')
	}
}

// object consumes an object decoded into a struct (keys checked against its
// json names), a map or an interface (keys checked for duplicates).
func (w *strictWalker) object(info *typeInfo, emit bool) {
	w.pos++ // '{'
	if emit {
		w.out.WriteByte('{')
	}
	var seen map[string]bool
	first := true
	for i := 0; w.next('}', i); i++ {
		keyStart := w.pos
		key := w.str()
		keyEnd := w.pos
		w.skipSpace()
		w.pos++ // ':'

		var sub reflect.Type
		known := true
		if seen == nil {
			seen = map[string]bool{}
		}
		if info.kind == kindStruct {
			sub, known = info.fields[key]
			if !known {
				w.fieldError("unknown field", key)
			}
		} else {
			sub = info.elem
		}
		if known {
			if seen[key] {
				w.fieldError("duplicate field", key)
			}
			seen[key] = true
		}
		emitValue := emit && known
		if emitValue {
			if !first {
				w.out.WriteByte(',')
			}
			first = false
			w.out.Write(w.data[keyStart:keyEnd])
			w.out.WriteByte(':')
		}
		mark := len(w.stack)
		if known {
			w.pushKey(key)
		}
		w.value(sub, emitValue)
		w.stack = w.stack[:mark]
	}
	if emit {
		w.out.WriteByte('}')
	}
}

// str consumes a string and returns its value.
func (w *strictWalker) str() string {
	start := w.pos
	escaped := false
	for w.pos++; w.data[w.pos] != '"'; w.pos++ {
		if w.data[w.pos] == '\\' {
			escaped = true
			w.pos++
		}
	}
	w.pos++
	if !escaped {
		return string(w.data[start+1 : w.pos-1])
	}
	var s string
	_ = json.Unmarshal(w.data[start:w.pos], &s) // valid: checked before
	return s
}

// skipValue consumes any value.
func (w *strictWalker) skipValue() {
	switch w.data[w.pos] {
	case '"':
		w.str()
	case '{', '[':
		depth := 0
		for {
			switch w.data[w.pos] {
			case '"':
				w.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			w.pos++
			if depth == 0 {
				return
			}
		}
	default: // number, true, false, null
		for w.pos < len(w.data) {
			switch w.data[w.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			w.pos++
		}
	}
}

type typeKind int

const (
	kindLeaf   typeKind = iota // scalars and types with their own unmarshaler
	kindStruct                 // fields by json name
	kindMap                    // string keys, values of elem
	kindList                   // slices and arrays of elem
	kindAny                    // interface{}: any JSON, duplicates still checked
)

// typeInfo is what the walker needs to know about a Go type.
type typeInfo struct {
	kind   typeKind
	elem   reflect.Type
	fields map[string]reflect.Type
}

var typeInfoCache sync.Map // reflect.Type → *typeInfo

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func typeInfoFor(t reflect.Type) *typeInfo {
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v, ok := typeInfoCache.Load(t); ok {
		return v.(*typeInfo)
	}
	info := &typeInfo{kind: kindLeaf}
	switch {
	case reflect.PointerTo(t).Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType):
	case t.Kind() == reflect.Struct:
		info.kind = kindStruct
		info.fields = map[string]reflect.Type{}
		collectFields(t, info.fields, 0)
	case t.Kind() == reflect.Map:
		info.kind = kindMap
		info.elem = t.Elem()
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8, t.Kind() == reflect.Array:
		info.kind = kindList
		info.elem = t.Elem()
	case t.Kind() == reflect.Interface && t.NumMethod() == 0:
		info.kind = kindAny
		info.elem = t
	}
	typeInfoCache.Store(t, info)
	return info
}

// collectFields adds the json names of t's fields, descending into embedded
// structs without a json name (`json:",inline"` or no tag) like encoding/json.
// Shallower fields win over promoted ones.
func collectFields(t reflect.Type, fields map[string]reflect.Type, depth int) {
	if depth > 10 {
		return
	}
	type embedded struct{ t reflect.Type }
	var inline []embedded
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				inline = append(inline, embedded{et})
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "string") {
			ft = reflect.TypeFor[string]() // ",string" fields: a quoted scalar, a leaf
		}
		if _, dup := fields[name]; !dup {
			fields[name] = ft
		}
	}
	for _, e := range inline {
		promoted := map[string]reflect.Type{}
		collectFields(e.t, promoted, depth+1)
		for name, ft := range promoted {
			if _, dup := fields[name]; !dup {
				fields[name] = ft
			}
		}
	}
}
