package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Strategic merge patch directives.
const (
	directiveMarker                = "$patch"
	deleteDirective                = "delete"
	replaceDirective               = "replace"
	mergeDirective                 = "merge"
	retainKeysDirective            = "$retainKeys"
	deleteFromPrimitiveListPrefix  = "$deleteFromPrimitiveList"
	setElementOrderDirectivePrefix = "$setElementOrder"
)

// Errors of StrategicMergePatch with upstream's (mergepatch) texts. The
// apiserver answers the "bad format" ones with 400 BadRequest.
var (
	ErrBadJSONDocument                      = errors.New("invalid JSON document")
	ErrNoListOfLists                        = errors.New("lists of lists are not supported")
	ErrBadPatchFormatForPrimitiveList       = errors.New("invalid patch format of primitive list")
	ErrBadPatchFormatForRetainKeys          = errors.New("invalid patch format of retainKeys")
	ErrBadPatchFormatForSetElementOrderList = errors.New("invalid patch format of setElementOrder list")
)

func errNoMergeKey(m map[string]any, k string) error {
	return fmt.Errorf("map: %v does not contain declared merge key: %s", m, k)
}

func errBadPatchType(t any, m map[string]any) error {
	return fmt.Errorf("unknown patch type: %s in map: %v", t, m)
}

// StrategicMergePatch applies a strategic merge patch
// (application/strategic-merge-patch+json) to original, an object of Go type
// t. Like a JSON merge patch, except that lists tagged
// `patchStrategy:"merge"` merge: items with a `patchMergeKey` by that key,
// primitive items as a set. The directives kubectl sends are honoured:
// `$patch: replace|delete` in maps and list items, `$setElementOrder/<list>`,
// `$deleteFromPrimitiveList/<list>` and `$retainKeys`.
// Members unknown to t are merged like JSON (their lists replaced).
func StrategicMergePatch(original, patch []byte, t reflect.Type) ([]byte, error) {
	o, err := decode(original)
	if err != nil {
		return nil, ErrBadJSONDocument
	}
	p, err := decode(patch)
	if err != nil {
		return nil, err
	}
	om, ok := o.(map[string]any)
	if !ok && o != nil {
		return nil, ErrBadJSONDocument
	}
	pm, ok := p.(map[string]any)
	if !ok {
		return nil, ErrBadJSONDocument
	}
	merged, err := mergeMap(om, pm, t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(merged)
}

// mergeMap merges the patch object into original (both may be modified).
func mergeMap(original, patch map[string]any, t reflect.Type) (map[string]any, error) {
	if v, ok := patch[directiveMarker]; ok {
		switch v {
		case replaceDirective:
			delete(patch, directiveMarker)
			return patch, nil
		case deleteDirective:
			return map[string]any{}, nil
		}
		return nil, errBadPatchType(v, patch)
	}
	if original == nil {
		original = map[string]any{}
	}
	if err := applyRetainKeys(original, patch); err != nil {
		return nil, err
	}
	if err := applySetElementOrder(original, patch, t); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(patch) {
		patchV := patch[k]
		isDeleteList := false
		if strings.HasPrefix(k, deleteFromPrimitiveListPrefix+"/") {
			k = strings.TrimPrefix(k, deleteFromPrimitiveListPrefix+"/")
			isDeleteList = true
		}
		if patchV == nil {
			delete(original, k)
			continue
		}
		origV, ok := original[k]
		if !ok || reflect.TypeOf(origV) != reflect.TypeOf(patchV) {
			if !isDeleteList {
				discardNulls(patchV)
				if v, keep := removeDirectives(patchV); keep {
					original[k] = v
				} else {
					delete(original, k)
				}
			}
			continue
		}
		f := lookup(t, k)
		var err error
		switch ov := origV.(type) {
		case map[string]any:
			if f.hasStrategy(replaceDirective) {
				original[k] = patchV
			} else {
				original[k], err = mergeMap(ov, patchV.(map[string]any), f.typ)
			}
		case []any:
			if f.hasStrategy(mergeDirective) || isDeleteList {
				original[k], err = mergeSlice(ov, patchV.([]any), elemOf(f.typ), f.mergeKey, isDeleteList)
			} else {
				original[k] = patchV
			}
		default:
			original[k] = patchV
		}
		if err != nil {
			return nil, err
		}
	}
	return original, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// applyRetainKeys clears the members of original that the patch's
// $retainKeys list does not name (union types, e.g. a Deployment strategy).
func applyRetainKeys(original, patch map[string]any) error {
	v, ok := patch[retainKeysDirective]
	if !ok {
		return nil
	}
	delete(patch, retainKeysDirective)
	list, ok := v.([]any)
	if !ok {
		return ErrBadPatchFormatForRetainKeys
	}
	keep := map[any]bool{}
	for _, k := range list {
		keep[scalarKey(k)] = true
	}
	for k, pv := range patch {
		if pv == nil || strings.HasPrefix(k, deleteFromPrimitiveListPrefix) || strings.HasPrefix(k, setElementOrderDirectivePrefix) {
			continue
		}
		if !keep[k] {
			return ErrBadPatchFormatForRetainKeys
		}
	}
	for k := range original {
		if !keep[k] {
			delete(original, k)
		}
	}
	return nil
}

// applySetElementOrder merges each list named by a $setElementOrder/<list>
// directive and puts its items in the given order; server-only items keep
// their place relative to the others.
func applySetElementOrder(original, patch map[string]any, t reflect.Type) error {
	for _, key := range sortedKeys(patch) {
		if !strings.HasPrefix(key, setElementOrderDirectivePrefix+"/") {
			continue
		}
		order, ok := patch[key].([]any)
		delete(patch, key)
		if !ok {
			return ErrBadPatchFormatForSetElementOrderList
		}
		name := strings.TrimPrefix(key, setElementOrderDirectivePrefix+"/")
		f := lookup(t, name)
		origList, foundOrig := original[name].([]any)
		patchList, foundPatch := patch[name].([]any)
		if _, present := patch[name]; present && !foundPatch {
			return ErrBadPatchFormatForSetElementOrderList
		}
		var merged []any
		var err error
		switch {
		case foundOrig && !foundPatch:
			merged = origList
		case !foundOrig && foundPatch:
			v, _ := removeDirectives(patchList)
			merged, _ = v.([]any)
		case foundOrig && foundPatch:
			if f.hasStrategy(mergeDirective) {
				merged, err = mergeSlice(origList, patchList, elemOf(f.typ), f.mergeKey, false)
			} else {
				merged = patchList
			}
			if err != nil {
				return err
			}
		default:
			continue
		}
		isMap := f.mergeKey != ""
		inOrder, serverOnly := partition(merged, order, f.mergeKey, isMap)
		original[name] = normalizeOrder(inOrder, serverOnly, order, origList, f.mergeKey, isMap)
		delete(patch, name)
	}
	return nil
}

// mergeSlice merges a patch list into a list tagged patchStrategy merge.
func mergeSlice(original, patch []any, elem reflect.Type, mergeKey string, isDeleteList bool) ([]any, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	isMap := false
	for _, v := range append(append([]any{}, original...), patch...) {
		switch v.(type) {
		case map[string]any:
			isMap = true
		case []any:
			return nil, ErrNoListOfLists
		}
	}
	var merged []any
	if !isMap {
		if isDeleteList {
			drop := map[any]bool{}
			for _, v := range patch {
				drop[scalarKey(v)] = true
			}
			out := make([]any, 0, len(original))
			for _, v := range original {
				if !drop[scalarKey(v)] {
					out = append(out, v)
				}
			}
			return out, nil
		}
		seen := map[any]bool{}
		for _, v := range append(append([]any{}, original...), patch...) {
			if !seen[scalarKey(v)] {
				seen[scalarKey(v)] = true
				merged = append(merged, v)
			}
		}
	} else {
		if mergeKey == "" {
			return nil, fmt.Errorf("cannot merge lists without merge key for %s", typeName(elem))
		}
		var err error
		if original, patch, err = mergeSpecialElements(original, patch, mergeKey); err != nil {
			return nil, err
		}
		merged = append([]any{}, original...)
		for _, v := range patch {
			pm, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("expected a map, but received a %T", v)
			}
			key, ok := pm[mergeKey]
			if !ok {
				return nil, errNoMergeKey(pm, mergeKey)
			}
			if i := findByKey(merged, mergeKey, key); i >= 0 {
				m, err := mergeMap(merged[i].(map[string]any), pm, elem)
				if err != nil {
					return nil, err
				}
				merged[i] = m
			} else {
				m, err := mergeMap(nil, pm, elem)
				if err != nil {
					return nil, err
				}
				merged = append(merged, m)
			}
		}
	}
	inPatch, serverOnly := partition(merged, patch, mergeKey, isMap)
	return normalizeOrder(inPatch, serverOnly, patch, original, mergeKey, isMap), nil
}

// mergeSpecialElements handles list items that are directives:
// {"name":"x","$patch":"delete"} deletes the item, {"$patch":"replace"}
// makes the rest of the patch list replace the original.
func mergeSpecialElements(original, patch []any, mergeKey string) ([]any, []any, error) {
	rest := []any{}
	replace := false
	for _, v := range patch {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("expected a map, but received a %T", v)
		}
		d, ok := m[directiveMarker]
		if !ok {
			rest = append(rest, v)
			continue
		}
		switch d {
		case deleteDirective:
			key, ok := m[mergeKey]
			if !ok {
				return nil, nil, errNoMergeKey(m, mergeKey)
			}
			kept := make([]any, 0, len(original))
			for _, o := range original {
				if om, ok := o.(map[string]any); !ok || !equal(om[mergeKey], key) {
					kept = append(kept, o)
				}
			}
			original = kept
		case replaceDirective:
			replace = true
		case mergeDirective:
			return nil, nil, fmt.Errorf("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, errBadPatchType(d, m)
		}
	}
	if replace {
		return rest, nil, nil
	}
	return original, rest, nil
}

func findByKey(list []any, mergeKey string, key any) int {
	for i, v := range list {
		if m, ok := v.(map[string]any); ok {
			if mv, ok := m[mergeKey]; ok && equal(mv, key) {
				return i
			}
		}
	}
	return -1
}

// itemKey identifies a list item: its merge key value, or itself.
func itemKey(v any, mergeKey string, isMap bool) any {
	if isMap {
		if m, ok := v.(map[string]any); ok {
			return scalarKey(m[mergeKey])
		}
		return nil
	}
	return scalarKey(v)
}

func indexOf(list []any, v any, mergeKey string, isMap bool) int {
	k := itemKey(v, mergeKey, isMap)
	for i, e := range list {
		if itemKey(e, mergeKey, isMap) == k {
			return i
		}
	}
	return -1
}

// partition splits merged into the items named by by and the rest.
func partition(merged, by []any, mergeKey string, isMap bool) (in, rest []any) {
	for _, v := range merged {
		if indexOf(by, v, mergeKey, isMap) >= 0 {
			in = append(in, v)
		} else {
			rest = append(rest, v)
		}
	}
	return in, rest
}

// normalizeOrder sorts the patch items by patchOrder and the server-only
// items by serverOrder, then interleaves them by their server positions,
// exactly as upstream's normalizeElementOrder.
func normalizeOrder(inPatch, serverOnly, patchOrder, serverOrder []any, mergeKey string, isMap bool) []any {
	sortBy := func(l, order []any) {
		sort.SliceStable(l, func(i, j int) bool {
			if ii := indexOf(order, l[i], mergeKey, isMap); ii >= 0 {
				if ij := indexOf(order, l[j], mergeKey, isMap); ij >= 0 {
					return ii < ij
				}
			}
			return true
		})
	}
	sortBy(inPatch, patchOrder)
	sortBy(serverOnly, serverOrder)
	out := make([]any, 0, len(inPatch)+len(serverOnly))
	i, j := 0, 0
	for i < len(serverOnly) || j < len(inPatch) {
		switch {
		case i >= len(serverOnly):
			out = append(out, inPatch[j])
			j++
		case j >= len(inPatch):
			out = append(out, serverOnly[i])
			i++
		default:
			li := indexOf(serverOrder, serverOnly[i], mergeKey, isMap)
			ri := indexOf(serverOrder, inPatch[j], mergeKey, isMap)
			if li >= 0 && ri >= 0 && li < ri {
				out = append(out, serverOnly[i])
				i++
			} else {
				out = append(out, inPatch[j])
				j++
			}
		}
	}
	return out
}

// removeDirectives drops directive-carrying maps from a value that is taken
// over whole; it reports false when the value itself is such a map.
func removeDirectives(v any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[directiveMarker]; ok {
			return nil, false
		}
		for k, e := range v {
			if ne, keep := removeDirectives(e); keep {
				v[k] = ne
			} else {
				delete(v, k)
			}
		}
		return v, true
	case []any:
		out := []any{}
		for _, e := range v {
			if ne, keep := removeDirectives(e); keep {
				out = append(out, ne)
			}
		}
		return out, true
	}
	return v, true
}

// discardNulls drops null members: deleting what is not there is a no-op.
func discardNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				discardNulls(e)
			}
		}
	case []any:
		for _, e := range v {
			discardNulls(e)
		}
	}
}

func typeName(t reflect.Type) string {
	if t = deref(t); t != nil {
		return t.Name()
	}
	return ""
}
