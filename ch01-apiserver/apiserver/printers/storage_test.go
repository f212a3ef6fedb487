package printers

import (
	"reflect"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/api/storagev1"
)

// columnNames lists the headers of obj's table, as kubectl prints them.
func columnNames(obj metav1.Object) []string {
	var names []string
	for _, c := range ColumnsFor(obj) {
		names = append(names, c.Name)
	}
	return names
}

// The cells are upstream's for the same objects (printers.go of v1.35);
// unset fields print as their defaults.
func TestStorageCells(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := created.Add(5 * time.Minute)
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, CreationTimestamp: created} }
	retain := corev1.PersistentVolumeReclaimRetain
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	yes, no := true, false
	pv := "pvc-1"
	capacity := resource.MustParse("100Gi")

	defaultClass := &storagev1.StorageClass{ObjectMeta: meta("standard"), Provisioner: "rancher.io/local-path",
		ReclaimPolicy: &retain, VolumeBindingMode: &wait, AllowVolumeExpansion: &yes}
	defaultClass.Annotations = map[string]string{storagev1.AnnotationIsDefaultStorageClass: "true"}
	betaDefault := &storagev1.StorageClass{ObjectMeta: meta("old"), Provisioner: "kubernetes.io/no-provisioner"}
	betaDefault.Annotations = map[string]string{storagev1.BetaAnnotationIsDefaultStorageClass: "true"}

	for _, tc := range []struct {
		name    string
		obj     metav1.Object
		columns []string
		cells   []any
	}{
		{"default storage class", defaultClass,
			[]string{"Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode", "AllowVolumeExpansion", "Age"},
			[]any{"standard (default)", "rancher.io/local-path", "Retain", "WaitForFirstConsumer", true, "5m"}},
		{"unset storage class fields", betaDefault, nil,
			[]any{"old (default)", "kubernetes.io/no-provisioner", "Delete", "Immediate", false, "5m"}},
		{"csi driver", &storagev1.CSIDriver{ObjectMeta: meta("hostpath.csi.k8s.io"), Spec: storagev1.CSIDriverSpec{
			AttachRequired: &no, PodInfoOnMount: &yes, StorageCapacity: &yes, RequiresRepublish: &no,
			TokenRequests:        []storagev1.TokenRequest{{Audience: "vault"}, {Audience: "gcp"}},
			VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{"Persistent", "Ephemeral"}}},
			[]string{"Name", "AttachRequired", "PodInfoOnMount", "StorageCapacity", "TokenRequests", "RequiresRepublish", "Modes", "Age"},
			[]any{"hostpath.csi.k8s.io", false, true, true, "vault,gcp", false, "Persistent,Ephemeral", "5m"}},
		{"empty csi driver", &storagev1.CSIDriver{ObjectMeta: meta("x")}, nil,
			[]any{"x", true, false, false, "<unset>", false, "<none>", "5m"}},
		{"csi node", &storagev1.CSINode{ObjectMeta: meta("worker-1"), Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: "a"}, {Name: "b"}}}},
			[]string{"Name", "Drivers", "Age"}, []any{"worker-1", int64(2), "5m"}},
		{"storage capacity", &storagev1.CSIStorageCapacity{ObjectMeta: meta("csisc-1"), StorageClassName: "fast", Capacity: &capacity},
			[]string{"Name", "StorageClassName", "Capacity"}, []any{"csisc-1", "fast", "100Gi"}},
		{"unknown capacity", &storagev1.CSIStorageCapacity{ObjectMeta: meta("csisc-2"), StorageClassName: "fast"}, nil,
			[]any{"csisc-2", "fast", "<unset>"}},
		{"volume attachment", &storagev1.VolumeAttachment{ObjectMeta: meta("csi-123"),
			Spec:   storagev1.VolumeAttachmentSpec{Attacher: "hostpath.csi.k8s.io", NodeName: "worker-1", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pv}},
			Status: storagev1.VolumeAttachmentStatus{Attached: true}},
			[]string{"Name", "Attacher", "PV", "Node", "Attached", "Age"},
			[]any{"csi-123", "hostpath.csi.k8s.io", "pvc-1", "worker-1", true, "5m"}},
		{"inline volume attachment", &storagev1.VolumeAttachment{ObjectMeta: meta("csi-456"),
			Spec: storagev1.VolumeAttachmentSpec{Attacher: "pd.csi.storage.gke.io", NodeName: "worker-2", Source: storagev1.VolumeAttachmentSource{InlineVolumeSpec: &corev1.PersistentVolumeSpec{}}}},
			nil, []any{"csi-456", "pd.csi.storage.gke.io", "", "worker-2", false, "5m"}},
	} {
		if tc.columns != nil {
			if got := columnNames(tc.obj); !reflect.DeepEqual(got, tc.columns) {
				t.Errorf("%s: columns %v, want %v", tc.name, got, tc.columns)
			}
		}
		cells, _ := printerFor(tc.obj).row(tc.obj, now)
		if !reflect.DeepEqual(cells, tc.cells) {
			t.Errorf("%s: cells %#v, want %#v", tc.name, cells, tc.cells)
		}
	}
}

// Column types and descriptions are upstream's; kubectl right-aligns nothing
// by them, but `kubectl get -o json` of a Table shows them.
func TestStorageColumnDefinitions(t *testing.T) {
	cols := ColumnsFor(&storagev1.VolumeAttachment{})
	if cols[1].Format != "name" || cols[4].Type != "boolean" || cols[2].Description != "persistentVolumeName represents the name of the persistent volume to attach." {
		t.Errorf("volume attachment columns %+v", cols)
	}
	cols = ColumnsFor(&storagev1.StorageClass{})
	if cols[4].Type != "string" || cols[1].Description != "provisioner indicates the type of the provisioner." {
		t.Errorf("storage class columns %+v", cols)
	}
	if cols := ColumnsFor(&storagev1.CSINode{}); cols[1].Type != "integer" || cols[1].Description != "Drivers indicates the number of CSI drivers registered on the node" {
		t.Errorf("csinode columns %+v", cols)
	}
}
