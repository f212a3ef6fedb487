package patch

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"kubik/ch01-apiserver/api/metav1"
)

// Managed fields: which field manager set which fields, stored in
// metadata.managedFields in upstream's FieldsV1 trie encoding
// ({"f:data":{".":{},"f:key":{}}}, list items by merge key k:{"name":"x"},
// primitive set items v:"x").
//
// Simplified against structured-merge-diff: associative lists are keyed by
// the strategic merge patch key (patchMergeKey) only, while upstream's
// OpenAPI may name several keys (containerPort and protocol); atomic structs
// (+structType=atomic, e.g. label selectors) are walked like other structs;
// non-merge lists are atomic, as upstream.

// pathSep joins the elements of a field path into a map key.
const pathSep = "\n"

// fieldPath is one node of an object: its elements, e.g. ["f:spec", "f:containers", `k:{"name":"nginx"}`, "f:image"].
type fieldPath []string

func (p fieldPath) key() string { return strings.Join(p, pathSep) }

func pathFromKey(k string) fieldPath { return strings.Split(k, pathSep) }

// String prints the path like structured-merge-diff: .spec.containers[name="nginx"].image.
func (p fieldPath) String() string {
	var b strings.Builder
	for _, e := range p {
		kind, rest, _ := strings.Cut(e, ":")
		switch kind {
		case "f":
			b.WriteString("." + rest)
		case "i":
			b.WriteString("[" + rest + "]")
		case "v":
			b.WriteString("[=" + rest + "]")
		case "k":
			var m map[string]json.RawMessage
			_ = json.Unmarshal([]byte(rest), &m)
			var parts []string
			for _, k := range sortedRawKeys(m) {
				parts = append(parts, k+"="+string(m[k]))
			}
			b.WriteString("[" + strings.Join(parts, ",") + "]")
		}
	}
	return b.String()
}

func sortedRawKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fieldSet is a set of field paths (by key).
type fieldSet map[string]bool

func (s fieldSet) union(o fieldSet) fieldSet {
	out := fieldSet{}
	for k := range s {
		out[k] = true
	}
	for k := range o {
		out[k] = true
	}
	return out
}

func (s fieldSet) minus(o fieldSet) fieldSet {
	out := fieldSet{}
	for k := range s {
		if !o[k] {
			out[k] = true
		}
	}
	return out
}

// sorted lists the paths in structured-merge-diff's order: fields, then
// keyed items, then values, then indices, each alphabetically.
func (s fieldSet) sorted() []fieldPath {
	paths := make([]fieldPath, 0, len(s))
	for k := range s {
		paths = append(paths, pathFromKey(k))
	}
	rank := map[byte]int{'f': 0, 'k': 1, 'v': 2, 'i': 3}
	sort.Slice(paths, func(i, j int) bool {
		a, b := paths[i], paths[j]
		for n := 0; n < len(a) && n < len(b); n++ {
			if a[n] != b[n] {
				if rank[a[n][0]] != rank[b[n][0]] {
					return rank[a[n][0]] < rank[b[n][0]]
				}
				return a[n] < b[n]
			}
		}
		return len(a) < len(b)
	})
	return paths
}

// encodeFieldsV1 writes the set as upstream's FieldsV1 trie.
func encodeFieldsV1(s fieldSet) json.RawMessage {
	root := map[string]any{}
	for k := range s {
		n := root
		for _, e := range pathFromKey(k) {
			child, ok := n[e].(map[string]any)
			if !ok {
				child = map[string]any{}
				n[e] = child
			}
			n = child
		}
		n["."] = map[string]any{}
	}
	var compact func(n map[string]any) map[string]any
	compact = func(n map[string]any) map[string]any {
		for k, v := range n {
			if k == "." {
				continue
			}
			c := compact(v.(map[string]any))
			if len(c) == 1 && c["."] != nil {
				c = map[string]any{}
			}
			n[k] = c
		}
		return n
	}
	b, _ := json.Marshal(compact(root))
	return b
}

// decodeFieldsV1 reads a FieldsV1 trie back into a set.
func decodeFieldsV1(raw []byte) fieldSet {
	s := fieldSet{}
	var root map[string]json.RawMessage
	if json.Unmarshal(raw, &root) != nil {
		return s
	}
	var walk func(prefix fieldPath, n map[string]json.RawMessage)
	walk = func(prefix fieldPath, n map[string]json.RawMessage) {
		for k, v := range n {
			if k == "." {
				s[prefix.key()] = true
				continue
			}
			p := append(append(fieldPath{}, prefix...), k)
			var child map[string]json.RawMessage
			_ = json.Unmarshal(v, &child)
			if len(child) == 0 {
				s[p.key()] = true
			} else {
				walk(p, child)
			}
		}
	}
	walk(nil, root)
	return s
}

// node is one flattened node of an object: its value, whether it is a
// member of the object's field set (leaves, list items, map entries), and
// whether its members are flattened too (a keyed list item, a map entry
// holding an object): such a node changes only by appearing or going away,
// a change under it is its children's.
type node struct {
	value      any
	member     bool
	structural bool
}

// flatten lists every node of obj (of Go type t) by path.
func flatten(obj any, t reflect.Type) map[string]node {
	out := map[string]node{}
	var walk func(p fieldPath, v any, t reflect.Type)
	walk = func(p fieldPath, v any, t reflect.Type) {
		switch v := v.(type) {
		case map[string]any:
			st := structOf(t)
			for k, e := range v {
				cp := append(append(fieldPath{}, p...), "f:"+k)
				f := lookup(t, k)
				em, isMap := e.(map[string]any)
				member := e == nil || (isMap && len(em) == 0)
				if st == nil || f.typ == nil {
					member = true // map entries (labels, data) and unknown members
				}
				switch e.(type) {
				case map[string]any, []any:
					if isLeaf(f.typ) {
						out[cp.key()] = node{value: e, member: true}
						continue
					}
				}
				if _, isList := e.([]any); isList {
					walkList(cp, e.([]any), f, out, walk)
					continue
				}
				out[cp.key()] = node{value: e, member: member || !isComposite(e), structural: isComposite(e)}
				walk(cp, e, f.typ)
			}
		}
	}
	walk(nil, obj, t)
	return out
}

func isComposite(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// walkList flattens a list member: items of merge lists by key or value,
// other lists as one atomic member.
func walkList(p fieldPath, list []any, f field, out map[string]node, walk func(fieldPath, any, reflect.Type)) {
	if !f.hasStrategy(mergeDirective) {
		out[p.key()] = node{value: list, member: true}
		return
	}
	out[p.key()] = node{value: list, structural: true}
	for _, item := range list {
		var e string
		if m, ok := item.(map[string]any); ok && f.mergeKey != "" {
			kv, ok := m[f.mergeKey]
			if !ok {
				continue
			}
			b, _ := json.Marshal(map[string]any{f.mergeKey: kv})
			e = "k:" + string(b)
		} else if !isComposite(item) {
			b, _ := json.Marshal(item)
			e = "v:" + string(b)
		} else {
			continue
		}
		cp := append(append(fieldPath{}, p...), e)
		out[cp.key()] = node{value: item, member: true, structural: isComposite(item)}
		walk(cp, item, elemOf(f.typ))
	}
}

// ignored reports paths never tracked: identity and bookkeeping fields, and
// status or spec depending on the subresource written.
func ignored(p fieldPath, subresource string) bool {
	if len(p) == 0 {
		return true
	}
	switch p[0] {
	case "f:apiVersion", "f:kind":
		return true
	case "f:status":
		return subresource != "status"
	case "f:metadata":
		if subresource == "status" {
			return true
		}
		if len(p) > 1 {
			switch p[1] {
			case "f:name", "f:namespace", "f:uid", "f:resourceVersion", "f:generation",
				"f:creationTimestamp", "f:selfLink", "f:managedFields", "f:deletionTimestamp", "f:deletionGracePeriodSeconds":
				return true
			}
		}
	default:
		return subresource == "status"
	}
	return false
}

// members is the field set of a flattened object.
func members(nodes map[string]node, subresource string) fieldSet {
	s := fieldSet{}
	for k, n := range nodes {
		if n.member && !ignored(pathFromKey(k), subresource) {
			s[k] = true
		}
	}
	return s
}

// managerEntry is one metadata.managedFields entry with its set decoded.
type managerEntry struct {
	Manager, Operation, APIVersion, Subresource string
	Time                                        *metav1.Time
	Set                                         fieldSet
}

// id is the identity of a manager as upstream builds it: for Apply the name
// (and subresource), for Update also the API version.
func (e *managerEntry) id() string {
	return e.Manager + "\x00" + e.Operation + "\x00" + e.Subresource + "\x00" + map[bool]string{true: e.APIVersion}[e.Operation != "Apply"]
}

// describe names the manager in conflict messages, like upstream's printManager.
func (e *managerEntry) describe() string {
	s := fmt.Sprintf("%q", e.Manager)
	if e.Subresource != "" {
		s = fmt.Sprintf("%s with subresource %q", s, e.Subresource)
	}
	if e.Operation == "Update" {
		s = fmt.Sprintf("%s using %v", s, e.APIVersion)
	}
	return s
}

func readEntries(obj map[string]any) []*managerEntry {
	meta, _ := obj["metadata"].(map[string]any)
	raw, _ := json.Marshal(meta["managedFields"])
	var list []metav1.ManagedFieldsEntry
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []*managerEntry
	for _, m := range list {
		e := &managerEntry{Manager: m.Manager, Operation: m.Operation, APIVersion: m.APIVersion, Subresource: m.Subresource, Time: m.Time, Set: fieldSet{}}
		if m.FieldsV1 != nil {
			e.Set = decodeFieldsV1(m.FieldsV1.Raw)
		}
		out = append(out, e)
	}
	return out
}

// writeEntries stores the entries, sorted like upstream (operation, time,
// manager, version, subresource), dropping empty ones.
func writeEntries(obj map[string]any, entries []*managerEntry) error {
	list := entryList(entries)
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	if len(list) == 0 {
		delete(meta, "managedFields")
		return nil
	}
	raw, err := json.Marshal(list)
	if err != nil {
		return err
	}
	v, err := decode(raw)
	if err != nil {
		return err
	}
	meta["managedFields"] = v
	return nil
}

// entryList is the managedFields list of entries, in upstream's order
// (operation, time, manager, apiVersion, subresource); empty sets drop out.
func entryList(entries []*managerEntry) []metav1.ManagedFieldsEntry {
	var list []metav1.ManagedFieldsEntry
	for _, e := range entries {
		if len(e.Set) == 0 {
			continue
		}
		list = append(list, metav1.ManagedFieldsEntry{
			Manager: e.Manager, Operation: e.Operation, APIVersion: e.APIVersion, Time: e.Time,
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: encodeFieldsV1(e.Set)}, Subresource: e.Subresource,
		})
	}
	sort.SliceStable(list, func(i, j int) bool {
		p, q := list[i], list[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		var ps, qs int64
		if p.Time != nil {
			ps = p.Time.Unix()
		}
		if q.Time != nil {
			qs = q.Time.Unix()
		}
		if ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
	return list
}

// zeroObject is how an absent object looks to the comparison: the zero
// value of t as JSON, so that non-pointer structs count as already there
// (upstream marks "." only on members that appear: maps, pointer structs).
func zeroObject(t reflect.Type) map[string]any {
	t = deref(t)
	if t == nil {
		return map[string]any{}
	}
	b, err := json.Marshal(reflect.New(t).Interface())
	if err != nil {
		return map[string]any{}
	}
	v, _ := decode(b)
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

var zeroNodesCache sync.Map // reflect.Type → map[string]node

// zeroNodes is the flattened zero object of t, what a create changes from;
// it is computed once per type and only read.
func zeroNodes(t reflect.Type) map[string]node {
	if v, ok := zeroNodesCache.Load(t); ok {
		return v.(map[string]node)
	}
	n := flatten(zeroObject(t), t)
	zeroNodesCache.Store(t, n)
	return n
}

// changes compares two flattened objects: nodes added or whose member value
// changed, and members that disappeared.
func changes(oldNodes, newNodes map[string]node, subresource string) (changed, removed fieldSet) {
	changed, removed = fieldSet{}, fieldSet{}
	for k, n := range newNodes {
		if ignored(pathFromKey(k), subresource) {
			continue
		}
		o, ok := oldNodes[k]
		switch {
		case !ok:
			changed[k] = true
		case n.member && !n.structural && !equal(o.value, n.value):
			changed[k] = true
		}
	}
	for k, o := range oldNodes {
		if _, ok := newNodes[k]; !ok && o.member && !ignored(pathFromKey(k), subresource) {
			removed[k] = true
		}
	}
	return changed, removed
}

func apiVersionOf(obj map[string]any) string {
	s, _ := obj["apiVersion"].(string)
	return s
}

// UpdateManagedFields records an ordinary write (POST, PUT, PATCH, not
// apply) in newObj's metadata.managedFields: the fields the request added or
// changed go to manager's "Update" entry and are taken from every other
// manager; fields it removed leave every set. oldObj is nil on create.
//
// A write to the main resource may set managedFields itself, as upstream's
// decodeLiveOrNew allows (kubectl's migration to server-side apply rewrites
// them with a JSON patch): entries in newObj replace the old object's;
// without any (or for a subresource) the old object's stay.
//
// Simplified: for a main-resource write status is not tracked, for a status
// write only status is.
func UpdateManagedFields(oldObj, newObj []byte, t reflect.Type, manager, operation, subresource string, now metav1.Time) ([]byte, error) {
	newMap, entries, err := updateEntries(oldObj, newObj, t, manager, operation, subresource, false, now)
	if err != nil {
		return nil, err
	}
	if err := writeEntries(newMap, entries); err != nil {
		return nil, err
	}
	return json.Marshal(newMap)
}

// ManagedFieldsAfterUpdate is UpdateManagedFields for a caller that holds the
// new object already: it returns only the new metadata.managedFields. reset
// says the client asked to clear them (IsResetManagedFields): only this
// write's fields are recorded.
func ManagedFieldsAfterUpdate(oldObj, newObj []byte, t reflect.Type, manager, operation, subresource string, reset bool, now metav1.Time) ([]metav1.ManagedFieldsEntry, error) {
	_, entries, err := updateEntries(oldObj, newObj, t, manager, operation, subresource, reset, now)
	if err != nil {
		return nil, err
	}
	return entryList(entries), nil
}

// updateEntries gives the write's manager the fields it changed and takes
// them from the other managers.
func updateEntries(oldObj, newObj []byte, t reflect.Type, manager, operation, subresource string, reset bool, now metav1.Time) (map[string]any, []*managerEntry, error) {
	nv, err := decode(newObj)
	if err != nil {
		return nil, nil, err
	}
	newMap, ok := nv.(map[string]any)
	if !ok {
		return nil, nil, ErrBadJSONDocument
	}
	oldNodes := zeroNodes(t)
	var entries []*managerEntry
	if oldObj != nil {
		ov, err := decode(oldObj)
		if err != nil {
			return nil, nil, err
		}
		if m, ok := ov.(map[string]any); ok {
			oldNodes = flatten(m, t)
			entries = readEntries(m)
		}
	}
	if subresource == "" {
		if reset {
			entries = nil
		} else if requested := readEntries(newMap); len(requested) > 0 {
			entries = requested
		}
	}
	if operation == "" {
		operation = "Update"
	}
	changed, removed := changes(oldNodes, flatten(newMap, t), subresource)
	me := &managerEntry{Manager: manager, Operation: operation, APIVersion: apiVersionOf(newMap), Subresource: subresource, Set: fieldSet{}}
	var mine *managerEntry
	for _, e := range entries {
		if e.id() == me.id() {
			mine = e
			continue
		}
		e.Set = e.Set.minus(removed).minus(changed)
	}
	if mine == nil {
		mine = me
		entries = append(entries, mine)
	}
	mine.Set = mine.Set.minus(removed).union(changed)
	if len(changed) > 0 || mine.Time == nil {
		tm := now
		mine.Time = &tm
	}
	return newMap, entries, nil
}

// IsResetManagedFields reports whether a client asked to clear
// metadata.managedFields, as upstream's isResetManagedFields: an empty list
// (not an absent one) or a list of one empty entry.
func IsResetManagedFields(list []metav1.ManagedFieldsEntry) bool {
	if list == nil {
		return false
	}
	if len(list) == 0 {
		return true
	}
	return len(list) == 1 && reflect.ValueOf(list[0]).IsZero()
}
