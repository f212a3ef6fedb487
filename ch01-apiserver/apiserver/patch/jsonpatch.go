package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Errors wrapped by JSONPatch, with evanphx/json-patch's texts (the message
// the apiserver returns ends in them, e.g. `...: missing value`).
var (
	ErrTestFailed   = errors.New("test failed")
	ErrMissing      = errors.New("missing value")
	ErrInvalid      = errors.New("invalid state detected")
	ErrInvalidIndex = errors.New("invalid index referenced")
)

// BadJSONPatchError means the patch document itself could not be read as a
// list of operations; the apiserver answers it with 400 BadRequest. Every
// other JSONPatch error happened while applying and is answered with 422.
type BadJSONPatchError struct{ Err error }

func (e *BadJSONPatchError) Error() string { return e.Err.Error() }
func (e *BadJSONPatchError) Unwrap() error { return e.Err }

// operation is one RFC 6902 step; members are kept raw to tell a missing
// "value" from a null one.
type operation map[string]*json.RawMessage

// JSONPatch applies an RFC 6902 JSON patch (application/json-patch+json).
// Like evanphx/json-patch v4: "add" does not create missing parents, "-"
// appends, ~1 and ~0 are unescaped, and the error texts are the library's.
func JSONPatch(original, patch []byte) ([]byte, error) {
	var ops []operation
	if err := json.Unmarshal(patch, &ops); err != nil {
		return nil, &BadJSONPatchError{err}
	}
	if len(original) == 0 {
		return original, nil
	}
	doc, err := decode(original)
	if err != nil {
		return nil, err
	}
	for _, op := range ops {
		if doc, err = applyOp(doc, op); err != nil {
			return nil, err
		}
	}
	return json.Marshal(doc)
}

func (op operation) str(name string) (string, bool) {
	raw := op[name]
	if raw == nil {
		return "", false
	}
	var s string
	if err := json.Unmarshal(*raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func (op operation) value() (any, bool) {
	raw, ok := op["value"]
	if !ok {
		return nil, false
	}
	if raw == nil {
		return nil, true // "value": null
	}
	v, err := decode(*raw)
	if err != nil {
		return nil, false
	}
	return v, true
}

func applyOp(doc any, op operation) (any, error) {
	kind, ok := op.str("op")
	if !ok {
		kind = "unknown"
	}
	path, hasPath := op.str("path")
	switch kind {
	case "add":
		if !hasPath {
			return nil, fmt.Errorf("add operation failed to decode path: %w", ErrMissing)
		}
		v, _ := op.value()
		if path == "" {
			return v, nil
		}
		parent, key, ok := findParent(doc, path)
		if !ok {
			return nil, fmt.Errorf("add operation does not apply: doc is missing path: \"%s\": %w", path, ErrMissing)
		}
		if err := parent.add(key, v); err != nil {
			return nil, fmt.Errorf("error in add for path: '%s': %w", path, err)
		}
	case "remove":
		if !hasPath {
			return nil, fmt.Errorf("remove operation failed to decode path: %w", ErrMissing)
		}
		parent, key, ok := findParent(doc, path)
		if !ok {
			return nil, fmt.Errorf("remove operation does not apply: doc is missing path: \"%s\": %w", path, ErrMissing)
		}
		if err := parent.remove(key); err != nil {
			return nil, fmt.Errorf("error in remove for path: '%s': %w", path, err)
		}
	case "replace":
		if !hasPath {
			return nil, fmt.Errorf("replace operation failed to decode path: %w", ErrMissing)
		}
		v, _ := op.value()
		if path == "" {
			switch v.(type) {
			case map[string]any, []any:
				return v, nil
			}
			return nil, fmt.Errorf("replace operation value must be object or array: %w", ErrInvalid)
		}
		parent, key, ok := findParent(doc, path)
		if !ok {
			return nil, fmt.Errorf("replace operation does not apply: doc is missing path: %s: %w", path, ErrMissing)
		}
		if _, err := parent.get(key); err != nil {
			return nil, fmt.Errorf("replace operation does not apply: doc is missing key: %s: %w", path, ErrMissing)
		}
		if err := parent.set(key, v); err != nil {
			return nil, fmt.Errorf("error in remove for path: '%s': %w", path, err)
		}
	case "move", "copy":
		from, ok := op.str("from")
		if !ok {
			return nil, fmt.Errorf("%s operation failed to decode from: %w", kind, ErrMissing)
		}
		if kind == "move" && from == "" {
			return nil, fmt.Errorf("unable to move entire document to another path: %w", ErrInvalid)
		}
		src, skey, ok := findParent(doc, from)
		if !ok {
			if kind == "copy" {
				return nil, fmt.Errorf("copy operation does not apply: doc is missing from path: %s: %w", from, ErrMissing)
			}
			return nil, fmt.Errorf("move operation does not apply: doc is missing from path: %s: %w", from, ErrMissing)
		}
		v, err := src.get(skey)
		if err != nil {
			if kind == "copy" {
				return nil, fmt.Errorf("error in copy for from: '%s': %w", from, err)
			}
			return nil, fmt.Errorf("error in move for path: '%s': %w", skey, err)
		}
		if kind == "move" {
			if err := src.remove(skey); err != nil {
				return nil, fmt.Errorf("error in move for path: '%s': %w", skey, err)
			}
		} else {
			v = deepCopy(v)
		}
		if !hasPath {
			return nil, fmt.Errorf("%s operation failed to decode path: %w", kind, ErrMissing)
		}
		dst, dkey, ok := findParent(doc, path)
		if !ok {
			return nil, fmt.Errorf("%s operation does not apply: doc is missing destination path: %s: %w", kind, path, ErrMissing)
		}
		if err := dst.add(dkey, v); err != nil {
			if kind == "copy" {
				return nil, fmt.Errorf("error while adding value during copy: %w", err)
			}
			return nil, fmt.Errorf("error in move for path: '%s': %w", path, err)
		}
	case "test":
		if !hasPath {
			return nil, fmt.Errorf("test operation failed to decode path: %w", ErrMissing)
		}
		want, _ := op.value()
		if path == "" {
			if equal(doc, want) {
				return doc, nil
			}
			return nil, fmt.Errorf("testing value %s failed: %w", path, ErrTestFailed)
		}
		parent, key, ok := findParent(doc, path)
		if !ok {
			return nil, fmt.Errorf("test operation does not apply: is missing path: %s: %w", path, ErrMissing)
		}
		got, err := parent.get(key)
		if err != nil {
			return nil, fmt.Errorf("error in test for path: '%s': %w", path, err)
		}
		if !equal(got, want) {
			return nil, fmt.Errorf("testing value %s failed: %w", path, ErrTestFailed)
		}
	default:
		return nil, fmt.Errorf("Unexpected kind: %s", kind)
	}
	return doc, nil
}

// container is an object or an array reached by a JSON pointer; for arrays
// the parent holding it is kept so that growing the slice is visible.
type container struct {
	obj    map[string]any
	arr    []any
	setArr func([]any)
}

// unescape decodes one JSON pointer token.
func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// findParent walks path to the container of its last token.
func findParent(doc any, path string) (*container, string, bool) {
	parts := strings.Split(path, "/")
	if len(parts) < 2 {
		return nil, "", false
	}
	cur := &container{}
	switch d := doc.(type) {
	case map[string]any:
		cur.obj = d
	case []any:
		cur.arr = d
		cur.setArr = func([]any) {} // replacing the root array is not possible in place
	default:
		return nil, "", false
	}
	for _, raw := range parts[1 : len(parts)-1] {
		next, err := cur.get(unescape(raw))
		if err != nil || next == nil {
			return nil, "", false
		}
		switch n := next.(type) {
		case map[string]any:
			cur = &container{obj: n}
		case []any:
			parent, key := cur, unescape(raw)
			cur = &container{arr: n}
			cur.setArr = func(a []any) { _ = parent.set(key, a) }
		default:
			return nil, "", false
		}
	}
	return cur, unescape(parts[len(parts)-1]), true
}

func (c *container) index(key string, size int) (int, error) {
	i, err := strconv.Atoi(key)
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= size {
		return 0, fmt.Errorf("Unable to access invalid index: %d: %w", i, ErrInvalidIndex)
	}
	return i, nil
}

func (c *container) get(key string) (any, error) {
	if c.obj != nil {
		return c.obj[key], nil
	}
	i, err := c.index(key, len(c.arr))
	if err != nil {
		return nil, err
	}
	return c.arr[i], nil
}

func (c *container) set(key string, v any) error {
	if c.obj != nil {
		c.obj[key] = v
		return nil
	}
	i, err := c.index(key, len(c.arr))
	if err != nil {
		return err
	}
	c.arr[i] = v
	return nil
}

func (c *container) add(key string, v any) error {
	if c.obj != nil {
		c.obj[key] = v
		return nil
	}
	if key == "-" {
		c.arr = append(c.arr, v)
		c.setArr(c.arr)
		return nil
	}
	i, err := strconv.Atoi(key)
	if err != nil {
		return fmt.Errorf("value was not a proper array index: '%s': %w", key, err)
	}
	if i < 0 || i > len(c.arr) {
		return fmt.Errorf("Unable to access invalid index: %d: %w", i, ErrInvalidIndex)
	}
	arr := make([]any, 0, len(c.arr)+1)
	arr = append(arr, c.arr[:i]...)
	arr = append(arr, v)
	arr = append(arr, c.arr[i:]...)
	c.arr = arr
	c.setArr(arr)
	return nil
}

func (c *container) remove(key string) error {
	if c.obj != nil {
		if _, ok := c.obj[key]; !ok {
			return fmt.Errorf("Unable to remove nonexistent key: %s: %w", key, ErrMissing)
		}
		delete(c.obj, key)
		return nil
	}
	i, err := c.index(key, len(c.arr))
	if err != nil {
		return err
	}
	arr := append(append([]any{}, c.arr[:i]...), c.arr[i+1:]...)
	c.arr = arr
	c.setArr(arr)
	return nil
}
