package printers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// TestRecordedQuotaTables renders the objects of Tables a real v1.35
// apiserver returned with ?includeObject=Object: ResourceQuotas (one
// without a status, one with request and limit resources), PodTemplates
// (several containers, no labels), LimitRanges (Created At, no Age) and
// ControllerRevisions (with and without a controller).
func TestRecordedQuotaTables(t *testing.T) {
	for file, newObj := range map[string]func() metav1.Object{
		"resourcequotas.table.json":      func() metav1.Object { return &corev1.ResourceQuota{} },
		"podtemplates.table.json":        func() metav1.Object { return &corev1.PodTemplate{} },
		"limitranges.table.json":         func() metav1.Object { return &corev1.LimitRange{} },
		"controllerrevisions.table.json": func() metav1.Object { return &appsv1.ControllerRevision{} },
	} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			var real struct {
				ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
				Rows              []struct {
					Cells  []any           `json:"cells"`
					Object json.RawMessage `json:"object"`
				} `json:"rows"`
			}
			if err := json.Unmarshal(data, &real); err != nil {
				t.Fatal(err)
			}
			if len(real.Rows) == 0 {
				t.Fatal("no rows recorded")
			}
			for i, row := range real.Rows {
				obj := newObj()
				if err := json.Unmarshal(row.Object, obj); err != nil {
					t.Fatal(err)
				}
				if i == 0 && !reflect.DeepEqual(ColumnsFor(obj), real.ColumnDefinitions) {
					t.Errorf("columns:\n got %+v\nwant %+v", ColumnsFor(obj), real.ColumnDefinitions)
				}
				var age time.Duration
				if ai := ageIndex(real.ColumnDefinitions); ai >= 0 {
					if age, err = parseAge(row.Cells[ai].(string)); err != nil {
						t.Fatal(err)
					}
				}
				cells, _ := printerFor(obj).row(obj, obj.GetObjectMeta().CreationTimestamp.Add(age))
				if got := jsonRoundTrip(t, cells); !reflect.DeepEqual(got, row.Cells) {
					t.Errorf("row %d:\n got %#v\nwant %#v", i, got, row.Cells)
				}
			}
		})
	}
}
