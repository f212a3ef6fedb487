package patch

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
)

// Conflict is one field that another manager owns and the apply would change.
type Conflict struct {
	Manager string // as upstream prints it: `"kubectl-create" using v1`
	Field   string // as upstream prints it: `.data.key`
	path    fieldPath
}

// Conflicts is the error of an apply that would take fields from other
// managers without force. The apiserver answers 409 Conflict with Error()
// as message and one cause per conflict: reason FieldManagerConflict,
// message "conflict with <Manager>", field <Field>.
type Conflicts []Conflict

func (c *Conflicts) Error() string {
	list := *c
	if len(list) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", list[0].Manager, list[0].Field)
	}
	byManager := map[string][]string{}
	var managers []string
	for _, x := range list {
		if _, ok := byManager[x.Manager]; !ok {
			managers = append(managers, x.Manager)
		}
		byManager[x.Manager] = append(byManager[x.Manager], x.Field)
	}
	sort.Strings(managers)
	var lines []string
	for _, m := range managers {
		lines = append(lines, fmt.Sprintf("conflicts with %s:", m))
		for _, f := range byManager[m] {
			lines = append(lines, "- "+f)
		}
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(list), strings.Join(lines, "\n"))
}

// Apply performs a server-side apply (application/apply-patch+yaml, already
// converted to JSON) of the configuration applied by manager onto live (nil
// when the object does not exist yet), for objects of Go type t.
//
// Applies by kubectl's default manager also migrate from client-side apply
// and keep its annotation up to date (lastapplied.go), as upstream's
// lastAppliedManager and lastAppliedUpdater wrap its structured merge
// manager.
func Apply(live []byte, applied []byte, t reflect.Type, manager string, force bool, now metav1.Time) ([]byte, error) {
	if manager != lastAppliedFieldManager {
		return structuredApply(live, applied, t, manager, force, now)
	}
	out, err := lastAppliedManagerApply(live, applied, t, manager, force, now)
	if err != nil {
		return nil, err
	}
	return updateLastApplied(out, applied)
}

// structuredApply is the apply itself, upstream's structured merge manager
// with its managed fields updater.
//
// The applied configuration is merged into live with strategic merge rules
// (maps merge, lists with a merge key merge by key, other lists are
// replaced). Fields this manager applied before and no longer applies are
// removed unless another manager also owns them. Changing a field owned by
// another manager is a conflict (*Conflicts) unless force, which moves the
// ownership. The result carries the updated metadata.managedFields, with the
// manager's "Apply" entry set to exactly the applied fields.
func structuredApply(live []byte, applied []byte, t reflect.Type, manager string, force bool, now metav1.Time) ([]byte, error) {
	av, err := decode(applied)
	if err != nil {
		return nil, err
	}
	appliedMap, ok := av.(map[string]any)
	if !ok {
		return nil, ErrBadJSONDocument
	}
	liveMap := map[string]any{}
	if live != nil {
		lv, err := decode(live)
		if err != nil {
			return nil, err
		}
		if liveMap, ok = lv.(map[string]any); !ok {
			return nil, ErrBadJSONDocument
		}
	}
	entries := readEntries(liveMap)
	// managedFields in the applied configuration are not applied.
	if meta, ok := appliedMap["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}

	appliedSet := members(flatten(appliedMap, t), "")
	me := &managerEntry{Manager: manager, Operation: "Apply", APIVersion: apiVersionOf(appliedMap), Set: fieldSet{}}
	var mine *managerEntry
	others := fieldSet{}
	for _, e := range entries {
		if e.id() == me.id() {
			mine = e
		} else {
			others = others.union(e.Set)
		}
	}
	if mine == nil {
		mine = me
		entries = append(entries, mine)
	}

	baseline := zeroObject(t)
	if live != nil {
		baseline = liveMap
	}
	merged, err := mergeMap(deepCopy(liveMap).(map[string]any), deepCopy(appliedMap).(map[string]any), t)
	if err != nil {
		return nil, err
	}
	// Prune what this manager stopped applying and nobody else owns (a map
	// or list this manager owned as a whole stays while fields under it are
	// still applied).
	for _, p := range mine.Set.minus(appliedSet).minus(others).sorted() {
		if !ownsBelow(others, p) && !ownsBelow(appliedSet, p) {
			removePath(merged, p, t)
		}
	}

	changed, _ := changes(flatten(baseline, t), flatten(merged, t), "")
	var conflicts Conflicts
	var conflictSets []fieldSet
	for _, e := range entries {
		if e == mine {
			continue
		}
		var set fieldSet
		for _, p := range e.Set.sorted() {
			if changed[p.key()] && appliedSet[p.key()] {
				if set == nil {
					set = fieldSet{}
				}
				set[p.key()] = true
				conflicts = append(conflicts, Conflict{Manager: e.describe(), Field: p.String(), path: p})
			}
		}
		conflictSets = append(conflictSets, set)
	}
	if len(conflicts) > 0 && !force {
		sort.SliceStable(conflicts, func(i, j int) bool { return conflicts[i].Manager < conflicts[j].Manager })
		return nil, &conflicts
	}
	i := 0
	for _, e := range entries {
		if e == mine {
			continue
		}
		if conflictSets[i] != nil {
			e.Set = e.Set.minus(conflictSets[i])
		}
		i++
	}
	mine.Set = appliedSet
	mine.APIVersion = me.APIVersion
	// As upstream's managedFieldsUpdater: the manager's timestamp moves only
	// when the apply changed the object, so re-applying the same
	// configuration is a no-op (same resourceVersion), and a manager whose
	// first apply changed nothing is recorded without a time.
	if live == nil || !equal(withoutManagedFields(merged), withoutManagedFields(liveMap)) {
		tm := now
		mine.Time = &tm
	}
	if err := writeEntries(merged, entries); err != nil {
		return nil, err
	}
	return json.Marshal(merged)
}

// withoutManagedFields is obj without metadata.managedFields (a shallow copy
// where they differ).
func withoutManagedFields(obj map[string]any) map[string]any {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	if _, ok := meta["managedFields"]; !ok {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	m := make(map[string]any, len(meta))
	for k, v := range meta {
		if k != "managedFields" {
			m[k] = v
		}
	}
	out["metadata"] = m
	return out
}

// ownsBelow reports whether set holds p or any path under it.
func ownsBelow(set fieldSet, p fieldPath) bool {
	prefix := p.key()
	for k := range set {
		if k == prefix || strings.HasPrefix(k, prefix+pathSep) {
			return true
		}
	}
	return false
}

// removePath deletes the node at p from obj, if it is there.
func removePath(obj map[string]any, p fieldPath, t reflect.Type) {
	var cur any = obj
	var parentMap map[string]any
	var parentKey string
	var curField field
	for i, e := range p {
		kind, rest, _ := strings.Cut(e, ":")
		last := i == len(p)-1
		switch kind {
		case "f":
			m, ok := cur.(map[string]any)
			if !ok {
				return
			}
			if last {
				delete(m, rest)
				return
			}
			curField = lookup(t, rest)
			t = curField.typ
			parentMap, parentKey = m, rest
			cur = m[rest]
		case "k", "v":
			list, ok := cur.([]any)
			if !ok {
				return
			}
			idx := -1
			var want map[string]any
			var wantV any
			if kind == "k" {
				wv, _ := decode([]byte(rest))
				want, _ = wv.(map[string]any)
			} else {
				wantV, _ = decode([]byte(rest))
			}
			for j, item := range list {
				if kind == "k" {
					im, ok := item.(map[string]any)
					if ok && matchesKey(im, want) {
						idx = j
						break
					}
				} else if equal(item, wantV) {
					idx = j
					break
				}
			}
			if idx < 0 {
				return
			}
			if last {
				parentMap[parentKey] = append(append([]any{}, list[:idx]...), list[idx+1:]...)
				return
			}
			t = elemOf(curField.typ)
			cur = list[idx]
		default:
			return
		}
	}
}

func matchesKey(item, key map[string]any) bool {
	if len(key) == 0 {
		return false
	}
	for k, v := range key {
		if !equal(item[k], v) {
			return false
		}
	}
	return true
}
