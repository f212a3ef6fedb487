package garbagecollector

import (
	"encoding/json"

	"kubik/ch01-apiserver/api/metav1"
)

// Strategic merge patches of metadata.ownerReferences, a list merged by uid:
// they touch only the references named, so they never conflict with a
// controller updating the same object. metadata.uid makes them apply only to
// the object the graph knows (the apiserver answers 409 otherwise).
// Upstream: patch.go and pkg/controller's GenerateDeleteOwnerRefStrategicMergeBytes.

// deleteOwnerRefStrategicMergePatch removes the references to ownerUIDs:
//
//	{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"A"}],"uid":"D"}}
func deleteOwnerRefStrategicMergePatch(dependentUID string, ownerUIDs ...string) []byte {
	refs := make([]map[string]string, 0, len(ownerUIDs))
	for _, uid := range ownerUIDs {
		refs = append(refs, map[string]string{"$patch": "delete", "uid": uid})
	}
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": refs, "uid": dependentUID}})
	return b
}

// unblockOwnerReferencesStrategicMergePatch sets blockOwnerDeletion to false
// on every reference that blocks.
func unblockOwnerReferencesStrategicMergePatch(dependentUID string, refs []metav1.OwnerReference) []byte {
	var out []map[string]any
	for _, r := range refs {
		if r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
			out = append(out, map[string]any{"uid": r.UID, "blockOwnerDeletion": false})
		}
	}
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": out, "uid": dependentUID}})
	return b
}
