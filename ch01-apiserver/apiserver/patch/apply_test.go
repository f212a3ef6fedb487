package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

var configMapType = reflect.TypeFor[corev1.ConfigMap]()

var t0 = metav1.NewTime(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC))

func decodeCM(t *testing.T, b []byte) *corev1.ConfigMap {
	t.Helper()
	var cm corev1.ConfigMap
	if err := json.Unmarshal(b, &cm); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return &cm
}

func fieldsOf(cm *corev1.ConfigMap, manager string) string {
	for _, e := range cm.ManagedFields {
		if e.Manager == manager {
			return string(e.FieldsV1.Raw)
		}
	}
	return ""
}

func TestApplyCreateReapplyPrune(t *testing.T) {
	out, err := Apply(nil, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa","namespace":"default","labels":{"app":"x"}},"data":{"key":"value","other":"o"}}`), configMapType, "kubectl", false, t0)
	if err != nil {
		t.Fatal(err)
	}
	cm := decodeCM(t, out)
	if cm.Data["key"] != "value" || len(cm.ManagedFields) != 1 {
		t.Fatalf("created %s", out)
	}
	e := cm.ManagedFields[0]
	if e.Manager != "kubectl" || e.Operation != "Apply" || e.APIVersion != "v1" || e.FieldsType != "FieldsV1" || !e.Time.Equal(t0.Time) {
		t.Errorf("entry %+v", e)
	}
	if got, want := string(e.FieldsV1.Raw), `{"f:data":{"f:key":{},"f:other":{}},"f:metadata":{"f:labels":{"f:app":{}}}}`; got != want {
		t.Errorf("fieldsV1 = %s, want %s", got, want)
	}

	// Same manager changes a value and drops "other": changed, pruned.
	out, err = Apply(out, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa","labels":{"app":"x"}},"data":{"key":"value2"}}`), configMapType, "kubectl", false, t0)
	if err != nil {
		t.Fatal(err)
	}
	cm = decodeCM(t, out)
	if cm.Data["key"] != "value2" || len(cm.Data) != 1 || cm.Name != "ssa" || cm.Namespace != "default" {
		t.Errorf("reapplied %s", out)
	}
	if got := fieldsOf(cm, "kubectl"); got != `{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:app":{}}}}` {
		t.Errorf("fieldsV1 after reapply = %s", got)
	}
}

func TestApplyConflictWithUpdateManager(t *testing.T) {
	created := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa","namespace":"default"},"data":{"key":"value"}}`)
	live, err := UpdateManagedFields(nil, created, configMapType, "kubectl-create", "Update", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := fieldsOf(decodeCM(t, live), "kubectl-create"); got != `{"f:data":{".":{},"f:key":{}}}` {
		t.Fatalf("kubectl-create fields = %s", got)
	}
	applied := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa","namespace":"default"},"data":{"key":"other"}}`)
	_, err = Apply(live, applied, configMapType, "kubectl", false, t0)
	var conflicts *Conflicts
	if !errors.As(err, &conflicts) {
		t.Fatalf("err = %v, want conflicts", err)
	}
	if want := `Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.key`; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if c := (*conflicts)[0]; c.Manager != `"kubectl-create" using v1` || c.Field != ".data.key" {
		t.Errorf("conflict = %+v", c)
	}

	// Applying the same value is shared ownership, not a conflict.
	if _, err := Apply(live, created, configMapType, "kubectl", false, t0); err != nil {
		t.Errorf("same value: %v", err)
	}

	// Force takes the field over.
	out, err := Apply(live, applied, configMapType, "kubectl", true, t0)
	if err != nil {
		t.Fatal(err)
	}
	cm := decodeCM(t, out)
	if cm.Data["key"] != "other" {
		t.Errorf("forced %s", out)
	}
	if got := fieldsOf(cm, "kubectl-create"); got != `{"f:data":{}}` {
		t.Errorf("kubectl-create after force = %s", got)
	}
	if got := fieldsOf(cm, "kubectl"); got != `{"f:data":{"f:key":{}}}` {
		t.Errorf("kubectl after force = %s", got)
	}
	if cm.ManagedFields[0].Operation != "Apply" {
		t.Errorf("Apply entries sort first: %+v", cm.ManagedFields)
	}
}

func TestConflictsMessageMany(t *testing.T) {
	c := &Conflicts{{Manager: `"m2"`, Field: ".b"}, {Manager: `"m1" using v1`, Field: ".a"}, {Manager: `"m2"`, Field: ".c"}}
	want := "Apply failed with 3 conflicts: conflicts with \"m1\" using v1:\n- .a\nconflicts with \"m2\":\n- .b\n- .c"
	if c.Error() != want {
		t.Errorf("got %q", c.Error())
	}
}

func TestApplyDeploymentListsByKey(t *testing.T) {
	applied := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`
	out, err := Apply([]byte(liveDeployment), []byte(applied), deploymentType, "kubectl", false, t0)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.Contains(s, `"image":"nginx:1.28"`) || !strings.Contains(s, `"name":"sidecar"`) {
		t.Errorf("merged %s", s)
	}
	if !strings.Contains(s, `k:{\"name\":\"nginx\"}`) && !strings.Contains(s, `"k:{\"name\":\"nginx\"}"`) {
		t.Errorf("no keyed list item in managed fields: %s", s)
	}
	p := fieldPath{"f:spec", "f:containers", `k:{"name":"nginx"}`, "f:image"}
	if p.String() != `.spec.containers[name="nginx"].image` {
		t.Errorf("path = %s", p.String())
	}
}

func TestUpdateManagedFieldsTracksChanges(t *testing.T) {
	old := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`)
	live, err := UpdateManagedFields(nil, old, configMapType, "kubectl-create", "Update", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	next := []byte(strings.Replace(string(live), `"data":{"a":"1"}`, `"data":{"a":"1","b":"2"},"metadata2":1`, 1))
	next = []byte(strings.Replace(string(next), `,"metadata2":1`, ``, 1))
	out, err := UpdateManagedFields(live, next, configMapType, "kubectl-edit", "Update", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	cm := decodeCM(t, out)
	if got := fieldsOf(cm, "kubectl-edit"); got != `{"f:data":{"f:b":{}}}` {
		t.Errorf("kubectl-edit = %s", got)
	}
	if got := fieldsOf(cm, "kubectl-create"); got != `{"f:data":{".":{},"f:a":{}}}` {
		t.Errorf("kubectl-create = %s", got)
	}
}

// Re-applying the same configuration later changes nothing, not even the
// manager's timestamp (upstream's managedFieldsUpdater), so the apiserver
// answers without a write; a real change moves the timestamp.
func TestApplySameConfigurationKeepsTime(t *testing.T) {
	cfg := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa","namespace":"default"},"data":{"a":"1"}}`)
	first, err := Apply(nil, cfg, configMapType, "alice", false, t0)
	if err != nil {
		t.Fatal(err)
	}
	later := metav1.NewTime(t0.Add(time.Hour))
	again, err := Apply(first, cfg, configMapType, "alice", false, later)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Errorf("re-apply changed the object:\n%s\n%s", first, again)
	}
	changed, err := Apply(first, bytes.Replace(cfg, []byte(`"1"`), []byte(`"2"`), 1), configMapType, "alice", false, later)
	if err != nil {
		t.Fatal(err)
	}
	if cm := decodeCM(t, changed); !cm.ManagedFields[0].Time.Equal(later.Time) {
		t.Errorf("time after a change = %v, want %v", cm.ManagedFields[0].Time, later)
	}
}
