package apiserver

import (
	"encoding/json"
	"reflect"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/patch"
)

// managerName is who metadata.managedFields credits with a write: the
// fieldManager query parameter (kubectl always sends one: kubectl-create,
// kubectl-client-side-apply, kubectl-edit, ...), else the first word of the
// User-Agent, as upstream.
func managerName(q *request) string {
	if m := q.query("fieldManager"); m != "" {
		return m
	}
	ua := q.r.Header.Get("User-Agent")
	if i := strings.Index(ua, "/"); i >= 0 {
		ua = ua[:i]
	}
	if ua == "" {
		ua = "unknown"
	}
	return ua
}

// recordManagedFields records an Update entry for the fields this write set.
// Server-side apply records its own Apply entries in patch.Apply.
func (s *Server) recordManagedFields(q *request, old, obj metav1.Object, operation string) {
	if q.r == nil || (q.info.Verb == "patch" && patchType(q.r) == patchApply) {
		return
	}
	var oldJSON []byte
	if old != nil {
		oldJSON, _ = json.Marshal(old)
	}
	newJSON, err := json.Marshal(obj)
	if err != nil {
		return
	}
	sub := q.info.Subresource
	if sub == "scale" {
		sub = "" // upstream records these against the main resource... or the subresource; keep it simple
	}
	requested := obj.GetObjectMeta().ManagedFields
	reset := requested != nil && len(requested) == 0
	entries, err := patch.ManagedFieldsAfterUpdate(oldJSON, newJSON, reflect.TypeOf(obj).Elem(), managerName(q), operation, sub, reset, metav1.Now())
	if err != nil {
		s.log.Debug("managed fields not recorded", "err", err)
		return
	}
	obj.GetObjectMeta().ManagedFields = entries
}

// prepareManagedFields runs before validation, as upstream's field manager
// runs before the registry: a client's request to clear managedFields
// ([{}], IsResetManagedFields) becomes an empty list, which
// recordManagedFields then honours.
func prepareManagedFields(obj metav1.Object) {
	meta := obj.GetObjectMeta()
	if patch.IsResetManagedFields(meta.ManagedFields) {
		meta.ManagedFields = []metav1.ManagedFieldsEntry{}
	}
}
