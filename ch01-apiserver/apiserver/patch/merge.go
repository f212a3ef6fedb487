package patch

import (
	"encoding/json"
	"errors"
)

// Errors of MergePatch, worded as evanphx/json-patch's. The apiserver answers
// ErrBadJSONPatch with 400 BadRequest.
var (
	ErrBadJSONDoc   = errors.New("Invalid JSON Document")
	ErrBadJSONPatch = errors.New("Invalid JSON Patch")
)

// MergePatch applies an RFC 7386 JSON merge patch (application/merge-patch+json):
// objects merge key by key, null deletes a key, anything else replaces.
func MergePatch(original, patch []byte) ([]byte, error) {
	p, err := decode(patch)
	if err != nil {
		return nil, ErrBadJSONPatch
	}
	doc, err := decode(original)
	if err != nil {
		return nil, ErrBadJSONDoc
	}
	return json.Marshal(mergeValue(doc, p))
}

func mergeValue(doc, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return pruneNulls(patch)
	}
	dm, ok := doc.(map[string]any)
	if !ok {
		dm = map[string]any{}
	}
	for k, pv := range pm {
		if pv == nil {
			delete(dm, k)
			continue
		}
		dm[k] = mergeValue(dm[k], pv)
	}
	return dm
}

// pruneNulls drops null members of objects that a patch brings in whole.
func pruneNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				v[k] = pruneNulls(e)
			}
		}
	case []any:
		for i, e := range v {
			v[i] = pruneNulls(e)
		}
	}
	return v
}
