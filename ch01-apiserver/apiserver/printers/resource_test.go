package printers

import (
	"reflect"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resourcev1"
)

// The columns and cells are upstream's (printers.go of v1.35).
func TestResourceCells(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := created.Add(90 * time.Second)
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, CreationTimestamp: created} }
	deleting := meta("gone")
	deleting.DeletionTimestamp = &created
	node := "worker-1"
	allocation := &resourcev1.AllocationResult{}
	reserved := []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "p", UID: "u"}}

	for _, tc := range []struct {
		name    string
		obj     metav1.Object
		columns []string
		cells   []any
	}{
		{"device class", &resourcev1.DeviceClass{ObjectMeta: meta("gpu.example.com")},
			[]string{"Name", "Age"}, []any{"gpu.example.com", "90s"}},
		{"claim template", &resourcev1.ResourceClaimTemplate{ObjectMeta: meta("one-gpu")},
			[]string{"Name", "Age"}, []any{"one-gpu", "90s"}},
		{"pending claim", &resourcev1.ResourceClaim{ObjectMeta: meta("c")},
			[]string{"Name", "State", "Age"}, []any{"c", "pending", "90s"}},
		{"allocated claim", &resourcev1.ResourceClaim{ObjectMeta: meta("c"), Status: resourcev1.ResourceClaimStatus{Allocation: allocation}},
			nil, []any{"c", "allocated", "90s"}},
		{"reserved claim", &resourcev1.ResourceClaim{ObjectMeta: meta("c"), Status: resourcev1.ResourceClaimStatus{Allocation: allocation, ReservedFor: reserved}},
			nil, []any{"c", "allocated,reserved", "90s"}},
		{"deleted pending claim", &resourcev1.ResourceClaim{ObjectMeta: deleting},
			nil, []any{"gone", "deleted", "90s"}},
		{"deleted reserved claim", &resourcev1.ResourceClaim{ObjectMeta: deleting, Status: resourcev1.ResourceClaimStatus{Allocation: allocation, ReservedFor: reserved}},
			nil, []any{"gone", "deleted,allocated,reserved", "90s"}},
		{"node slice", &resourcev1.ResourceSlice{ObjectMeta: meta("worker-1-gpu-x7k2p"), Spec: resourcev1.ResourceSliceSpec{
			Driver: "gpu.example.com", Pool: resourcev1.ResourcePool{Name: "worker-1"}, NodeName: &node}},
			[]string{"Name", "Node", "Driver", "Pool", "Age"}, []any{"worker-1-gpu-x7k2p", "worker-1", "gpu.example.com", "worker-1", "90s"}},
		{"network slice", &resourcev1.ResourceSlice{ObjectMeta: meta("net"), Spec: resourcev1.ResourceSliceSpec{
			Driver: "net.example.com", Pool: resourcev1.ResourcePool{Name: "fabric"}}},
			nil, []any{"net", "", "net.example.com", "fabric", "90s"}},
	} {
		if tc.columns != nil {
			var names []string
			for _, c := range ColumnsFor(tc.obj) {
				names = append(names, c.Name)
			}
			if !reflect.DeepEqual(names, tc.columns) {
				t.Errorf("%s: columns %v, want %v", tc.name, names, tc.columns)
			}
		}
		cells, _ := printerFor(tc.obj).row(tc.obj, now)
		if !reflect.DeepEqual(cells, tc.cells) {
			t.Errorf("%s: cells %#v, want %#v", tc.name, cells, tc.cells)
		}
	}
}

func TestResourceColumnDefinitions(t *testing.T) {
	cols := ColumnsFor(&resourcev1.ResourceClaim{})
	if cols[1].Type != "string" || cols[1].Description != "A summary of the current state (allocated, pending, reserved, etc.)." {
		t.Errorf("resource claim columns %+v", cols)
	}
	cols = ColumnsFor(&resourcev1.ResourceSlice{})
	if cols[3].Description != "Name is used to identify the pool. For node-local devices, this is often the node name, but this is not required.\n\nIt must not be longer than 253 characters and must consist of one or more DNS sub-domains separated by slashes. This field is immutable." {
		t.Errorf("resource slice pool column %+v", cols[3])
	}
}
