package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/storage"
)

// The fast path of a JSON list. Decoding a stored pod into a corev1.Pod and
// encoding it back takes tens of microseconds — most of a LIST of 10,000 pods
// — and changes nothing: the stored value already is the object's JSON, as
// encodeForStorage wrote it, only without metadata.resourceVersion. So a
// plain JSON list writes the stored bytes into the answer and puts the
// resourceVersion back in; objects are decoded only as far as the selectors
// need. Upstream saves the same work differently: its watch cache keeps
// decoded objects and caches their serialized form.
//
// The answer is byte for byte what the slow path (list, then json.Marshal of
// a metav1.List) writes; TestListFastPathSameBytes checks it. Tables, and
// kinds stored in another form (events.k8s.io Events are stored as core
// Events), take the slow path. So does any value that does not start as
// encodeForStorage writes it. The fast path trusts the rest to be what this
// code wrote: a field the types no longer have (data left by an older
// version) would be dropped by decoding, and is kept here.

// writeListJSON answers a list with a metav1.List in JSON built from the
// stored bytes. The items are kept as pieces of the stored values (which
// the storage's List hands over to the caller), not copied into one growing
// buffer, and written through a 64 KiB buffer: HTTP/2 hands each write to
// the connection's goroutine, so fewer, larger writes are cheaper.
func (s *Server) writeListJSON(ctx context.Context, q *request, opts listOptions) error {
	res := q.res
	typed := isTypedList(q)
	var items net.Buffers // the items' JSON, comma separated
	listMeta, err := s.listStored(ctx, res, q.info.Namespace, opts, func(kv storage.KeyValue) (bool, error) {
		ok, err := matchesStored(res, &opts, kv)
		if err != nil || !ok {
			return false, err
		}
		if len(items) > 0 {
			items = append(items, comma)
		}
		if res.Storage != nil && !q.custom.StoredServable(kv.Value) {
			items, err = appendDecodedItemJSON(items, res, kv, typed)
		} else {
			items, err = appendItemJSON(items, res, kv, typed)
		}
		return err == nil, err
	})
	if err != nil {
		return err
	}
	// The envelope is an empty metav1.List, so that its fields come out as
	// the slow path writes them: {"kind":…,"metadata":{…},"items":[]}.
	envelope, err := json.Marshal(metav1.List{
		TypeMeta: metav1.TypeMeta{Kind: res.ListKind(), APIVersion: res.GroupVersion()},
		ListMeta: listMeta,
		Items:    []metav1.Object{},
	})
	if err != nil {
		return ErrInternal(err)
	}
	head, ok := bytes.CutSuffix(envelope, []byte("]}"))
	if !ok {
		return ErrInternal(fmt.Errorf("unexpected list envelope %s", envelope))
	}
	size := len(head) + len("]}\n")
	for _, b := range items {
		size += len(b)
	}
	h := q.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache, private")
	h.Set("Content-Length", strconv.Itoa(size))
	q.w.WriteHeader(http.StatusOK)
	w := bufio.NewWriterSize(q.w, 64<<10)
	w.Write(head)
	items.WriteTo(w)
	w.WriteString("]}\n")
	w.Flush()
	return nil
}

var comma = []byte(",")

// isTypedList: the items of a built-in kind's list carry no kind and
// apiVersion — the list's own say what they are — as upstream's typed lists
// (PodList, ConfigMapList…) come out of its conversion. The items of a custom
// resource's list, upstream's UnstructuredList, keep theirs.
func isTypedList(q *request) bool { return q.custom == nil }

// withoutTypeMeta clears the kind and apiVersion of a typed list's items
// (isTypedList), which are decoded for this answer alone.
func withoutTypeMeta(q *request, items []metav1.Object) []metav1.Object {
	if isTypedList(q) {
		for _, it := range items {
			*it.GetTypeMeta() = metav1.TypeMeta{}
		}
	}
	return items
}

// useListFastPath: plain JSON lists of kinds stored as they are served.
// A custom resource whose schema has defaults is one of them when read in
// its storage version: the items the defaults change nothing in (all of
// them, unless the schema got a default after they were written) are
// written as stored, the others decoded, defaulted and encoded.
func useListFastPath(q *request) bool {
	stored := q.res.Storage == nil || q.custom != nil && q.custom.ServesStored()
	return stored && !wantsTable(q.r)
}

// matchesStored applies the selectors to a stored object, decoding only what
// they look at: nothing without selectors, metadata for a label selector,
// the whole object for a field selector.
func matchesStored(res *scheme.Resource, opts *listOptions, kv storage.KeyValue) (bool, error) {
	if opts.Labels.Empty() && opts.Fields.Empty() {
		return true, nil
	}
	if opts.Fields.Empty() {
		if at := storedMetadataAt(res, kv.Value); at > 0 {
			var meta struct {
				Labels map[string]string `json:"labels"`
			}
			// A Decoder reads only the metadata object, not what follows it.
			if err := json.NewDecoder(bytes.NewReader(kv.Value[at:])).Decode(&meta); err == nil {
				return opts.Labels.Matches(meta.Labels), nil
			}
		}
	}
	obj, err := decodeFromStorage(res, kv)
	if err != nil {
		return false, ErrInternal(err)
	}
	return opts.matches(obj), nil
}

// appendItemJSON appends the JSON of a stored object as a list item: the
// stored bytes, in two pieces, with the resourceVersion between them; for a
// typed list (isTypedList) without the leading kind and apiVersion, in three.
// A value that does not have the shape encodeForStorage writes is decoded and
// encoded instead.
func appendItemJSON(dst net.Buffers, res *scheme.Resource, kv storage.KeyValue, typed bool) (net.Buffers, error) {
	if at, field, ok := resourceVersionAt(res, kv); ok {
		if typed {
			// {"kind":"Pod","apiVersion":"v1","metadata":{… → {"metadata":{…
			return append(dst, openBrace, kv.Value[typeMetaLen(res):at], field, kv.Value[at:]), nil
		}
		return append(dst, kv.Value[:at], field, kv.Value[at:]), nil
	}
	return appendDecodedItemJSON(dst, res, kv, typed)
}

var openBrace = []byte("{")

// typeMetaLen is the length of the `{"kind":"Pod","apiVersion":"v1",` that
// starts a value encodeForStorage wrote (resourceVersionAt has checked it),
// counted without building the string: this runs for every item of a list.
func typeMetaLen(res *scheme.Resource) int {
	gv := len(res.Version)
	if res.Group != "" {
		gv += len(res.Group) + len("/")
	}
	return len(`{"kind":"","apiVersion":"",`) + len(res.Kind) + gv
}

// appendDecodedItemJSON appends the JSON of a stored object decoded (and
// converted, for a kind stored in another form) and encoded again.
func appendDecodedItemJSON(dst net.Buffers, res *scheme.Resource, kv storage.KeyValue, typed bool) (net.Buffers, error) {
	obj, err := decodeFromStorage(res, kv)
	if err != nil {
		return dst, ErrInternal(err)
	}
	if typed {
		*obj.GetTypeMeta() = metav1.TypeMeta{}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return dst, ErrInternal(err)
	}
	return append(dst, b), nil
}

// storedMetadataAt returns where the metadata object starts in a stored value
// of res, which encodeForStorage writes as
//
//	{"kind":"Pod","apiVersion":"v1","metadata":{...},"spec":...}
//
// or -1 when the value does not start that way.
func storedMetadataAt(res *scheme.Resource, value []byte) int {
	head := `{"kind":"` + res.Kind + `","apiVersion":"` + res.GroupVersion() + `","metadata":{`
	if !bytes.HasPrefix(value, []byte(head)) {
		return -1
	}
	return len(head) - 1
}

// metaFieldsBeforeRV are the JSON names of the ObjectMeta fields that
// encoding/json writes before resourceVersion: those declared before it
// (name, generateName, namespace, selfLink, uid — all strings).
var metaFieldsBeforeRV = func() map[string]bool {
	before := map[string]bool{}
	t := reflect.TypeFor[metav1.ObjectMeta]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "resourceVersion" {
			break
		}
		before[name] = true
	}
	return before
}()

// resourceVersionAt tells where in a stored value metadata.resourceVersion
// goes, and the text to insert there ("resourceVersion":"<ModRevision>" and
// a comma), so that the result is what json.Marshal of the decoded object
// writes: the field comes after those declared before it in ObjectMeta. ok
// is false when the value is not shaped as expected.
func resourceVersionAt(res *scheme.Resource, kv storage.KeyValue) (at int, field []byte, ok bool) {
	v := kv.Value
	meta := storedMetadataAt(res, v)
	if meta < 0 {
		return 0, nil, false
	}
	// Walk the metadata's leading "key":"string" pairs.
	i := meta + 1 // just after the metadata's '{'
	for i < len(v) && v[i] == '"' {
		keyEnd := bytes.IndexByte(v[i+1:], '"') + i + 1 // field names have no escapes
		if keyEnd <= i || keyEnd+1 >= len(v) || v[keyEnd+1] != ':' {
			return 0, nil, false
		}
		key := v[i+1 : keyEnd]
		if string(key) == "resourceVersion" {
			return 0, nil, false // stored values have none
		}
		if !metaFieldsBeforeRV[string(key)] {
			break // resourceVersion goes before this field
		}
		if i = skipString(v, keyEnd+2); i < 0 {
			return 0, nil, false
		}
		if i < len(v) && v[i] == ',' {
			i++
		}
	}
	if i >= len(v) {
		return 0, nil, false
	}
	field = make([]byte, 0, 40)
	if v[i] == '}' && i > meta+1 { // resourceVersion is the last field
		field = append(field, ',')
	}
	field = append(field, `"resourceVersion":"`...)
	field = append(strconv.AppendInt(field, kv.ModRevision, 10), '"')
	switch v[i] {
	case '"': // more fields follow
		return i, append(field, ','), true
	case '}':
		return i, field, true
	}
	return 0, nil, false
}

// skipString returns the index just after the JSON string that starts at
// v[i], or -1.
func skipString(v []byte, i int) int {
	if i >= len(v) || v[i] != '"' {
		return -1
	}
	for i++; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++ // the escaped character
		case '"':
			return i + 1
		}
	}
	return -1
}
