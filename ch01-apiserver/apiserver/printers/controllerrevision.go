package printers

import (
	"strings"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/metav1"
)

// ControllerRevisions: upstream's printControllerRevision. The controller
// is printed as kubectl names resources, <kind>.<group>/<name>
// (daemonset.apps/web), or <none>.
var controllerRevisionPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Controller", "string", "Controller of the object"),
		column("Revision", "string", "revision indicates the revision of the state represented by Data."),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		cr := obj.(*appsv1.ControllerRevision)
		controller := "<none>"
		if ref := metav1.GetControllerOf(&cr.ObjectMeta); ref != nil {
			kind := ref.Kind
			if group, _, ok := strings.Cut(ref.APIVersion, "/"); ok {
				kind += "." + group
			}
			controller = strings.ToLower(kind) + "/" + ref.Name
		}
		return []any{cr.Name, controller, cr.Revision, age(cr.CreationTimestamp, now)}, nil
	},
}
