package printers

import (
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/storagev1"
)

// storage.k8s.io/v1 printers: upstream's printStorageClass, printCSIDriver,
// printCSINode, printCSIStorageCapacity and printVolumeAttachment. Unset
// fields print as the value their defaulting would give.

// StorageClasses: the default class (either annotation) is marked in the name.
var storageClassPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Provisioner", "string", doc("storage/v1 StorageClass.provisioner")),
		column("ReclaimPolicy", "string", doc("storage/v1 StorageClass.reclaimPolicy")),
		column("VolumeBindingMode", "string", doc("storage/v1 StorageClass.volumeBindingMode")),
		column("AllowVolumeExpansion", "string", doc("storage/v1 StorageClass.allowVolumeExpansion")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		sc := obj.(*storagev1.StorageClass)
		name := sc.Name
		if sc.Annotations[storagev1.AnnotationIsDefaultStorageClass] == "true" || sc.Annotations[storagev1.BetaAnnotationIsDefaultStorageClass] == "true" {
			name += " (default)"
		}
		reclaim := string(corev1.PersistentVolumeReclaimDelete)
		if sc.ReclaimPolicy != nil {
			reclaim = string(*sc.ReclaimPolicy)
		}
		binding := string(storagev1.VolumeBindingImmediate)
		if sc.VolumeBindingMode != nil {
			binding = string(*sc.VolumeBindingMode)
		}
		return []any{name, sc.Provisioner, reclaim, binding, boolOr(sc.AllowVolumeExpansion, false), age(sc.CreationTimestamp, now)}, nil
	},
}

// CSIDrivers: TokenRequests lists the audiences, "<unset>" when there are none.
var csiDriverPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("AttachRequired", "boolean", doc("storage/v1 CSIDriverSpec.attachRequired")),
		column("PodInfoOnMount", "boolean", doc("storage/v1 CSIDriverSpec.podInfoOnMount")),
		column("StorageCapacity", "boolean", doc("storage/v1 CSIDriverSpec.storageCapacity")),
		column("TokenRequests", "string", doc("storage/v1 CSIDriverSpec.tokenRequests")),
		column("RequiresRepublish", "boolean", doc("storage/v1 CSIDriverSpec.requiresRepublish")),
		column("Modes", "string", doc("storage/v1 CSIDriverSpec.volumeLifecycleModes")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		d := obj.(*storagev1.CSIDriver)
		var modes []string
		for _, m := range d.Spec.VolumeLifecycleModes {
			modes = append(modes, string(m))
		}
		modeCell := strings.Join(modes, ",")
		if modeCell == "" {
			modeCell = "<none>"
		}
		tokens := "<unset>"
		if d.Spec.TokenRequests != nil {
			var audiences []string
			for _, t := range d.Spec.TokenRequests {
				audiences = append(audiences, t.Audience)
			}
			tokens = strings.Join(audiences, ",")
		}
		return []any{d.Name, boolOr(d.Spec.AttachRequired, true), boolOr(d.Spec.PodInfoOnMount, false),
			boolOr(d.Spec.StorageCapacity, false), tokens, boolOr(d.Spec.RequiresRepublish, false),
			modeCell, age(d.CreationTimestamp, now)}, nil
	},
}

// CSINodes: the number of drivers registered on the node.
var csiNodePrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		n := obj.(*storagev1.CSINode)
		return []any{n.Name, int64(len(n.Spec.Drivers)), age(n.CreationTimestamp, now)}, nil
	},
}

// CSIStorageCapacities: no Age column upstream.
var csiStorageCapacityPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("StorageClassName", "string", doc("storage/v1 CSIStorageCapacity.storageClassName")),
		column("Capacity", "string", doc("storage/v1 CSIStorageCapacity.capacity")),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		c := obj.(*storagev1.CSIStorageCapacity)
		capacity := "<unset>"
		if c.Capacity != nil {
			capacity = c.Capacity.String()
		}
		return []any{c.Name, c.StorageClassName, capacity}, nil
	},
}

// VolumeAttachments: PV is empty for an inline (migrated) volume.
var volumeAttachmentPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		{Name: "Attacher", Type: "string", Format: "name", Description: doc("storage/v1 VolumeAttachmentSpec.attacher")},
		column("PV", "string", doc("storage/v1 VolumeAttachmentSource.persistentVolumeName")),
		column("Node", "string", doc("storage/v1 VolumeAttachmentSpec.nodeName")),
		column("Attached", "boolean", doc("storage/v1 VolumeAttachmentStatus.attached")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		va := obj.(*storagev1.VolumeAttachment)
		return []any{va.Name, va.Spec.Attacher, derefOr(va.Spec.Source.PersistentVolumeName, ""), va.Spec.NodeName,
			va.Status.Attached, age(va.CreationTimestamp, now)}, nil
	},
}

// boolOr is *b, or fallback when b is unset.
func boolOr(b *bool, fallback bool) bool {
	if b == nil {
		return fallback
	}
	return *b
}

// VolumeAttributesClasses: upstream's printVolumeAttributesClass.
var volumeAttributesClassPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("DriverName", "string", doc("storage/v1 VolumeAttributesClass.driverName")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		vac := obj.(*storagev1.VolumeAttributesClass)
		return []any{vac.Name, vac.DriverName, age(vac.CreationTimestamp, now)}, nil
	},
}
