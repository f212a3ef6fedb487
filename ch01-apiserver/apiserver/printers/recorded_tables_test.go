package printers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/nodev1"
	"kubik/ch01-apiserver/api/storagev1"
)

// TestRecordedObjectTables renders the objects of Tables recorded from a
// real v1.35 apiserver with ?includeObject=Object (so each row carries its
// whole object) and compares columns and cells: Ingresses (with a load
// balancer status and more than three hosts), IngressClasses,
// NetworkPolicies, HorizontalPodAutoscalers (with current metrics),
// RuntimeClasses, ResourceQuotas (one without a status, one with request
// and limit resources), PodTemplates (several containers, no labels),
// LimitRanges (Created At, no Age) and ControllerRevisions (with and
// without a controller), VolumeAttributesClasses and
// CertificateSigningRequests (pending, approved, denied, failed),
// ServiceCIDRs and IPAddresses (whose rows have one cell more than columns).
func TestRecordedObjectTables(t *testing.T) {
	for file, newObj := range map[string]func() metav1.Object{
		"hpa.table.json":                        func() metav1.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
		"ingresses.table.json":                  func() metav1.Object { return &networkingv1.Ingress{} },
		"ingressclasses.table.json":             func() metav1.Object { return &networkingv1.IngressClass{} },
		"networkpolicies.table.json":            func() metav1.Object { return &networkingv1.NetworkPolicy{} },
		"runtimeclasses.table.json":             func() metav1.Object { return &nodev1.RuntimeClass{} },
		"resourcequotas.table.json":             func() metav1.Object { return &corev1.ResourceQuota{} },
		"podtemplates.table.json":               func() metav1.Object { return &corev1.PodTemplate{} },
		"limitranges.table.json":                func() metav1.Object { return &corev1.LimitRange{} },
		"controllerrevisions.table.json":        func() metav1.Object { return &appsv1.ControllerRevision{} },
		"volumeattributesclasses.table.json":    func() metav1.Object { return &storagev1.VolumeAttributesClass{} },
		"certificatesigningrequests.table.json": func() metav1.Object { return &certificatesv1.CertificateSigningRequest{} },
		"servicecidrs.table.json":               func() metav1.Object { return &networkingv1.ServiceCIDR{} },
		"ipaddresses.table.json":                func() metav1.Object { return &networkingv1.IPAddress{} },
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
				ai := ageIndex(real.ColumnDefinitions)
				if ai < 0 && len(row.Cells) > len(real.ColumnDefinitions) {
					ai = len(row.Cells) - 1 // IPAddresses: an age cell without a column
				}
				if ai >= 0 {
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
