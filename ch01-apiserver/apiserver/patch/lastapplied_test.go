package patch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/metav1"
)

// clientSideApplied is a ConfigMap as `kubectl apply` (client-side) creates
// it: the configuration in the annotation, the fields credited to the
// Update manager kubectl-client-side-apply.
func clientSideApplied(t *testing.T) []byte {
	t.Helper()
	lastApplied := `{"apiVersion":"v1","data":{"key":"value","other":"o"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"m","namespace":"default"}}` + "\n"
	obj, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "m", "namespace": "default",
			"annotations": map[string]any{LastAppliedConfigAnnotation: lastApplied}},
		"data": map[string]any{"key": "value", "other": "o"},
	})
	live, err := UpdateManagedFields(nil, obj, configMapType, "kubectl-client-side-apply", "Update", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	return live
}

const changedConfig = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m","namespace":"default"},"data":{"key":"changed"}}`

func TestApplyMigratesFromClientSideApply(t *testing.T) {
	live := clientSideApplied(t)
	out, err := Apply(live, []byte(changedConfig), configMapType, "kubectl", false, t0)
	if err != nil {
		t.Fatalf("kubectl's server-side apply after client-side apply: %v", err)
	}
	cm := decodeCM(t, out)
	if cm.Data["key"] != "changed" {
		t.Errorf("data = %v", cm.Data)
	}
	if got := fieldsOf(cm, "kubectl"); got != `{"f:data":{"f:key":{}}}` {
		t.Errorf("kubectl owns %s", got)
	}
	if got := fieldsOf(cm, "kubectl-client-side-apply"); strings.Contains(got, "f:key") {
		t.Errorf("kubectl-client-side-apply still owns .data.key: %s", got)
	}
	// lastAppliedUpdater: the annotation is the configuration just applied.
	want := `{"apiVersion":"v1","data":{"key":"changed"},"kind":"ConfigMap","metadata":{"name":"m","namespace":"default"}}` + "\n"
	if got := cm.Annotations[LastAppliedConfigAnnotation]; got != want {
		t.Errorf("annotation = %q, want %q", got, want)
	}
}

func TestApplyMigrationOnlyForKubectl(t *testing.T) {
	live := clientSideApplied(t)
	_, err := Apply(live, []byte(changedConfig), configMapType, "other", false, t0)
	var conflicts *Conflicts
	if !errors.As(err, &conflicts) || err.Error() != `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key` {
		t.Errorf("another field manager: err = %v, want the conflict", err)
	}
	// Without the annotation there is nothing to migrate from.
	plain, err := UpdateManagedFields(nil, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m","namespace":"default"},"data":{"key":"value"}}`),
		configMapType, "kubectl-client-side-apply", "Update", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(plain, []byte(changedConfig), configMapType, "kubectl", false, t0); !errors.As(err, &conflicts) {
		t.Errorf("no annotation: err = %v, want the conflict", err)
	}
}

// A field changed by someone else since the last client-side apply stays a
// conflict, with that manager; the fields the annotation proves do not.
func TestApplyMigrationKeepsRealConflicts(t *testing.T) {
	live := clientSideApplied(t)
	var obj map[string]any
	_ = json.Unmarshal(live, &obj)
	obj["data"].(map[string]any)["other"] = "by-hand"
	edited, _ := json.Marshal(obj)
	live, err := UpdateManagedFields(live, edited, configMapType, "kubectl-patch", "Update", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	applied := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m","namespace":"default"},"data":{"key":"changed","other":"applied"}}`
	_, err = Apply(live, []byte(applied), configMapType, "kubectl", false, t0)
	if err == nil || err.Error() != `Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.other` {
		t.Errorf("err = %v, want only the conflict with kubectl-patch", err)
	}
}

func TestApplyMigrationKeyedListItems(t *testing.T) {
	lastApplied := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"default"},"spec":{"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"nginx"}]}}}}` + "\n"
	obj, _ := json.Marshal(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "default",
			"annotations": map[string]any{LastAppliedConfigAnnotation: lastApplied}},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			// defaulted fields the annotation does not hold
			map[string]any{"name": "nginx", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent"},
		}}}},
	})
	live, err := UpdateManagedFields(nil, obj, deploymentType, "kubectl-client-side-apply", "Update", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	applied := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`
	out, err := Apply(live, []byte(applied), deploymentType, "kubectl", false, t0)
	if err != nil {
		t.Fatalf("changing a container's image: %v", err)
	}
	if !strings.Contains(string(out), `"image":"nginx:1.28"`) || !strings.Contains(string(out), `"imagePullPolicy":"IfNotPresent"`) {
		t.Errorf("applied %s", out)
	}
}

// The annotation never pushes the annotations over their size limit: it is
// dropped instead, as upstream.
func TestApplyLastAppliedTooLarge(t *testing.T) {
	live := clientSideApplied(t)
	big := strings.Repeat("x", 300<<10)
	applied := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m","namespace":"default"},"data":{"key":"value","big":"` + big + `"}}`
	out, err := Apply(live, []byte(applied), configMapType, "kubectl", false, t0)
	if err != nil {
		t.Fatal(err)
	}
	cm := decodeCM(t, out)
	if _, ok := cm.Annotations[LastAppliedConfigAnnotation]; ok || cm.Data["big"] != big {
		t.Errorf("annotation kept (%d bytes) or data lost", len(cm.Annotations[LastAppliedConfigAnnotation]))
	}
}

// A manager whose first apply changes nothing is recorded without a time.
func TestApplyNoChangeNoTime(t *testing.T) {
	live := clientSideApplied(t)
	annotationOnly, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "m", "namespace": "default",
			"annotations": map[string]any{LastAppliedConfigAnnotation: decodeCM(t, live).Annotations[LastAppliedConfigAnnotation]}}})
	out, err := Apply(live, annotationOnly, configMapType, "kubectl-last-applied", false, metav1.NewTime(t0.Add(time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	cm := decodeCM(t, out)
	if cm.ManagedFields[0].Manager != "kubectl-last-applied" || cm.ManagedFields[0].Time != nil {
		t.Errorf("entries %+v", cm.ManagedFields)
	}
}

// kubectl's migration rewrites managedFields with a JSON patch: an update
// that sets them is honoured (upstream's decodeLiveOrNew); [{}] clears them.
func TestUpdateHonoursRequestedManagedFields(t *testing.T) {
	live := clientSideApplied(t)
	var obj map[string]any
	_ = json.Unmarshal(live, &obj)
	meta := obj["metadata"].(map[string]any)
	entries := meta["managedFields"].([]any)
	entries[0].(map[string]any)["manager"] = "kubectl"
	entries[0].(map[string]any)["operation"] = "Apply"
	migrated, _ := json.Marshal(obj)
	got, err := ManagedFieldsAfterUpdate(live, migrated, configMapType, "kubectl", "Update", "", false, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Manager != "kubectl" || got[0].Operation != "Apply" {
		t.Errorf("entries %+v", got)
	}
	// For a subresource the requested entries are not taken.
	if got, _ := ManagedFieldsAfterUpdate(live, migrated, configMapType, "kubectl", "Update", "status", false, t0); len(got) != 1 || got[0].Manager != "kubectl-client-side-apply" {
		t.Errorf("status write took the entries: %+v", got)
	}
	if got, _ := ManagedFieldsAfterUpdate(live, live, configMapType, "kubectl-patch", "Update", "", true, t0); len(got) != 0 {
		t.Errorf("reset kept %+v", got)
	}
	if !IsResetManagedFields([]metav1.ManagedFieldsEntry{{}}) || !IsResetManagedFields([]metav1.ManagedFieldsEntry{}) || IsResetManagedFields(nil) {
		t.Error("IsResetManagedFields")
	}
}
