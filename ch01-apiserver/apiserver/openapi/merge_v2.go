package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Merging the OpenAPI v2 documents of aggregated apiservers into the
// served one, as upstream's kube-aggregator does with kube-openapi's
// pkg/aggregator: a backend's document keeps only the paths of its group
// version (FilterSpecByPathsWithoutSideEffects), then is merged after the
// local one (MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters):
// a path already served stays the earlier document's; a definition equal
// to one already there (but for x-kubernetes-group-version-kind) is
// shared, its group-version-kinds joined; a different one of the same
// name is renamed <name>_v2, <name>_v3, ... and the backend's references
// follow it; parameters likewise.

const (
	definitionRefPrefix = "#/definitions/"
	parameterRefPrefix  = "#/parameters/"
)

// ParseV2 decodes an OpenAPI v2 document in JSON and keeps the paths that
// begin with keepPrefix, with the definitions they need: a definition
// only the dropped paths referred to goes, one nothing referred to stays.
func ParseV2(body []byte, keepPrefix string) (V2CustomResources, error) {
	var doc struct {
		Swagger     string         `json:"swagger"`
		Paths       map[string]any `json:"paths"`
		Definitions map[string]any `json:"definitions"`
		Parameters  map[string]any `json:"parameters"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return V2CustomResources{}, err
	}
	if doc.Swagger != "2.0" {
		return V2CustomResources{}, fmt.Errorf("not an OpenAPI v2 document: swagger %q", doc.Swagger)
	}
	s := V2CustomResources{Paths: doc.Paths, Definitions: doc.Definitions, Parameters: doc.Parameters}
	if s.Paths == nil {
		return s, nil
	}
	return filterV2Paths(s, func(path string) bool { return strings.HasPrefix(path, keepPrefix) }), nil
}

// usedV2Definitions is every definition the paths refer to, directly or
// through definitions and parameters.
func usedV2Definitions(s V2CustomResources) map[string]bool {
	used, params := map[string]bool{}, map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if name, ok := strings.CutPrefix(ref, definitionRefPrefix); ok && !used[name] {
					used[name] = true
					if d, ok := s.Definitions[name]; ok {
						walk(d)
					}
				} else if name, ok := strings.CutPrefix(ref, parameterRefPrefix); ok && !params[name] {
					params[name] = true
					if p, ok := s.Parameters[name]; ok {
						walk(p)
					}
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, p := range s.Paths {
		walk(p)
	}
	return used
}

// filterV2Paths keeps the paths keep accepts and drops the definitions
// only the others used.
func filterV2Paths(s V2CustomResources, keep func(string) bool) V2CustomResources {
	initial := usedV2Definitions(s)
	out := V2CustomResources{Paths: map[string]any{}, Definitions: s.Definitions, Parameters: s.Parameters}
	for path, item := range s.Paths {
		if keep(path) {
			out.Paths[path] = item
		}
	}
	used := usedV2Definitions(out)
	out.Definitions = map[string]any{}
	for name, d := range s.Definitions {
		if used[name] || !initial[name] {
			out.Definitions[name] = d
		}
	}
	return out
}

// renameV2Refs rewrites the references prefix+old to prefix+new in the
// document's paths, definitions and parameters.
func renameV2Refs(s V2CustomResources, prefix string, renames map[string]string) {
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if name, ok := strings.CutPrefix(ref, prefix); ok {
					if to, ok := renames[name]; ok {
						x["$ref"] = prefix + to
					}
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, m := range []map[string]any{s.Paths, s.Definitions, s.Parameters} {
		for _, v := range m {
			walk(v)
		}
	}
}

// renameConflicts finds, for every entry of src whose name dest already
// uses for something else, the name it takes: an equal entry already
// renamed so, or the first free <name>_vN.
func renameConflicts(dest, src map[string]any, equal func(a, b any) bool) map[string]string {
	usedNames := map[string]bool{}
	for k := range dest {
		usedNames[k] = true
	}
	renames := map[string]string{}
	for _, k := range sortedKeys(src) {
		v := src[k]
		existing, found := dest[k]
		if !found || equal(existing, v) {
			continue
		}
		var newName string
		i := 1
		reused := false
		for found {
			i++
			newName = fmt.Sprintf("%s_v%d", k, i)
			existing, found = dest[newName]
			if found && equal(existing, v) {
				renames[k] = newName
				reused = true
				break
			}
		}
		if reused {
			continue
		}
		_, inSource := src[newName]
		for usedNames[newName] || inSource {
			i++
			newName = fmt.Sprintf("%s_v%d", k, i)
			_, inSource = src[newName]
		}
		renames[k] = newName
		usedNames[newName] = true
	}
	return renames
}

func renameKeys(m map[string]any, renames map[string]string) map[string]any {
	if len(renames) == 0 {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if to, ok := renames[k]; ok {
			k = to
		}
		out[k] = v
	}
	return out
}

// MergeV2 merges src into dest. src is consumed: its maps may be changed
// and end up in dest.
func MergeV2(dest *V2CustomResources, src V2CustomResources) {
	if src.Paths == nil {
		return // no paths: none of its definitions is used
	}
	if dest.Paths == nil {
		dest.Paths = map[string]any{}
	}
	if dest.Definitions == nil {
		dest.Definitions = map[string]any{}
	}
	keep := map[string]bool{}
	conflict := false
	for path := range src.Paths {
		if _, ok := dest.Paths[path]; ok {
			conflict = true
		} else {
			keep[path] = true
		}
	}
	if len(keep) == 0 {
		return
	}
	if conflict {
		src = filterV2Paths(src, func(path string) bool { return keep[path] })
	}

	if renames := renameConflicts(dest.Definitions, src.Definitions, equalModuloGVKs); len(renames) > 0 {
		renameV2Refs(src, definitionRefPrefix, renames)
		src.Definitions = renameKeys(src.Definitions, renames)
	}
	if renames := renameConflicts(dest.Parameters, src.Parameters, reflect.DeepEqual); len(renames) > 0 {
		renameV2Refs(src, parameterRefPrefix, renames)
		src.Parameters = renameKeys(src.Parameters, renames)
	}

	for name, d := range src.Definitions {
		existing, ok := dest.Definitions[name]
		if !ok {
			dest.Definitions[name] = d
			continue
		}
		mergeGVKs(existing, d)
	}
	for name, p := range src.Parameters {
		if _, ok := dest.Parameters[name]; !ok {
			if dest.Parameters == nil {
				dest.Parameters = map[string]any{}
			}
			dest.Parameters[name] = p
		}
	}
	for path, item := range src.Paths {
		dest.Paths[path] = item
	}
}

// equalModuloGVKs compares two definitions but for their
// x-kubernetes-group-version-kind.
func equalModuloGVKs(a, b any) bool {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if !okA || !okB {
		return reflect.DeepEqual(a, b)
	}
	strip := func(m map[string]any) map[string]any {
		if _, ok := m[groupVersionKindExtField]; !ok {
			return m
		}
		c := make(map[string]any, len(m))
		for k, v := range m {
			if k != groupVersionKindExtField {
				c[k] = v
			}
		}
		return c
	}
	return reflect.DeepEqual(strip(ma), strip(mb))
}

// mergeGVKs adds to the definition existing the group-version-kinds of
// the equal definition d it does not list, sorted as upstream sorts them.
func mergeGVKs(existing, d any) {
	me, okE := existing.(map[string]any)
	md, okD := d.(map[string]any)
	if !okE || !okD {
		return
	}
	add, found := md[groupVersionKindExtField]
	if !found {
		return
	}
	have, found := me[groupVersionKindExtField]
	if !found {
		me[groupVersionKindExtField] = add
		return
	}
	list1, ok1 := have.([]any)
	list2, ok2 := add.([]any)
	if !ok1 || !ok2 {
		return
	}
	key := func(x any) (string, bool) {
		m, ok := x.(map[string]any)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("%v/%v.%v", m["group"], m["version"], m["kind"]), true
	}
	type entry struct {
		key string
		v   any
	}
	var all []entry
	seen := map[string]bool{}
	for _, x := range list1 {
		k, ok := key(x)
		if !ok {
			return
		}
		all = append(all, entry{k, x})
		seen[k] = true
	}
	changed := false
	for _, x := range list2 {
		k, ok := key(x)
		if !ok {
			return
		}
		if !seen[k] {
			seen[k] = true
			all = append(all, entry{k, x})
			changed = true
		}
	}
	if !changed {
		return
	}
	slices.SortStableFunc(all, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	out := make([]any, len(all))
	for i, e := range all {
		out[i] = e.v
	}
	me[groupVersionKindExtField] = out
}
