package printers

import (
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/policyv1"
)

// ReplicationControllers: upstream's printReplicationController, the
// ReplicaSet's columns with the map selector.
var replicationControllerPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Desired", "integer", doc("core/v1 ReplicationControllerSpec.replicas")),
		column("Current", "integer", doc("core/v1 ReplicationControllerStatus.replicas")),
		column("Ready", "integer", doc("core/v1 ReplicationControllerStatus.readyReplicas")),
		ageColumn,
		wide(column("Containers", "string", containersDescription)),
		wide(column("Images", "string", imagesDescription)),
		wide(column("Selector", "string", doc("core/v1 ReplicationControllerSpec.selector"))),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		rc := obj.(*corev1.ReplicationController)
		var containers []corev1.Container
		if rc.Spec.Template != nil {
			containers = rc.Spec.Template.Spec.Containers
		}
		names, images := containerCells(containers)
		return []any{
			rc.Name,
			int64(derefInt32(rc.Spec.Replicas)),
			int64(rc.Status.Replicas),
			int64(rc.Status.ReadyReplicas),
			age(rc.CreationTimestamp, now),
			names, images, formatLabels(rc.Spec.Selector),
		}, nil
	},
}

// PodDisruptionBudgets: upstream's printPodDisruptionBudget. The unset one
// of minAvailable/maxUnavailable shows as N/A.
var podDisruptionBudgetPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Min Available", "string", "The minimum number of pods that must be available."),
		column("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
		column("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		pdb := obj.(*policyv1.PodDisruptionBudget)
		orNA := func(v *intstr.IntOrString) string {
			if v == nil {
				return "N/A"
			}
			return v.String()
		}
		return []any{
			pdb.Name,
			orNA(pdb.Spec.MinAvailable),
			orNA(pdb.Spec.MaxUnavailable),
			int64(pdb.Status.DisruptionsAllowed),
			age(pdb.CreationTimestamp, now),
		}, nil
	},
}
