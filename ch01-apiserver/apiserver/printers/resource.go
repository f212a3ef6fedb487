package printers

import (
	"strings"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resourcev1"
)

// resource.k8s.io/v1 printers: upstream's printDeviceClass,
// printResourceClaim, printResourceClaimTemplate and printResourceSlice.

// DeviceClasses and ResourceClaimTemplates: name and age only.
var deviceClassPrinter = printer{
	columns: []metav1.TableColumnDefinition{nameColumn, ageColumn},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		m := obj.GetObjectMeta()
		return []any{m.Name, age(m.CreationTimestamp, now)}, nil
	},
}

var resourceClaimTemplatePrinter = deviceClassPrinter

// ResourceClaims: State summarizes the claim's life, see resourceClaimState.
var resourceClaimPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("State", "string", "A summary of the current state (allocated, pending, reserved, etc.)."),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		c := obj.(*resourcev1.ResourceClaim)
		return []any{c.Name, resourceClaimState(c), age(c.CreationTimestamp, now)}, nil
	},
}

// resourceClaimState is "pending" until the scheduler allocates devices,
// then "allocated", plus "reserved" while pods use the claim; a claim being
// deleted is "deleted" first ("deleted,allocated,reserved").
func resourceClaimState(c *resourcev1.ResourceClaim) string {
	var states []string
	if c.DeletionTimestamp != nil {
		states = append(states, "deleted")
	}
	if c.Status.Allocation == nil {
		if c.DeletionTimestamp == nil {
			states = append(states, "pending")
		}
	} else {
		states = append(states, "allocated")
		if len(c.Status.ReservedFor) > 0 {
			states = append(states, "reserved")
		}
	}
	return strings.Join(states, ",")
}

// ResourceSlices: which node, driver and pool the devices belong to.
var resourceSlicePrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Node", "string", doc("resource/v1 ResourceSliceSpec.nodeName")),
		column("Driver", "string", doc("resource/v1 ResourceSliceSpec.driver")),
		column("Pool", "string", doc("resource/v1 ResourcePool.name")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		s := obj.(*resourcev1.ResourceSlice)
		return []any{s.Name, derefOr(s.Spec.NodeName, ""), s.Spec.Driver, s.Spec.Pool.Name, age(s.CreationTimestamp, now)}, nil
	},
}
