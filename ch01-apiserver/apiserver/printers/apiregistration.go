package printers

import (
	"time"

	"kubik/ch01-apiserver/api/apiregistrationv1"
	"kubik/ch01-apiserver/api/metav1"
)

// APIServices: the table of kube-aggregator's APIService REST storage
// (NAME SERVICE AVAILABLE AGE): "Local" for group versions this apiserver
// serves itself, the Available condition's status and, when not True, its
// reason: "False (ServiceNotFound)".
var apiServicePrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Service", "string", "The reference to the service that hosts this API endpoint."),
		column("Available", "string", "Whether this service is available."),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		a := obj.(*apiregistrationv1.APIService)
		service := "Local"
		if ref := a.Spec.Service; ref != nil {
			service = ref.Namespace + "/" + ref.Name
		}
		status := string(apiregistrationv1.ConditionUnknown)
		if c := a.Status.Condition(apiregistrationv1.Available); c != nil {
			status = string(c.Status)
			if c.Status != apiregistrationv1.ConditionTrue && c.Reason != "" {
				status += " (" + c.Reason + ")"
			}
		}
		return []any{a.Name, service, status, age(a.CreationTimestamp, now)}, nil
	},
}
