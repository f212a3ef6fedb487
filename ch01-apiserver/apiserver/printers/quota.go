package printers

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// ResourceQuotas: upstream's printResourceQuota. Every enforced limit
// (status.hard, sorted) is printed as "name: used/hard", the limits.* ones
// in the Limit column, the others in the Request column. LimitRanges print
// as the default printer does (Name, Created At), as upstream's
// printLimitRange.
var resourceQuotaPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
		column("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		q := obj.(*corev1.ResourceQuota)
		names := make([]string, 0, len(q.Status.Hard))
		for name := range q.Status.Hard {
			names = append(names, string(name))
		}
		sort.Strings(names)
		var request, limit []string
		for _, name := range names {
			used := q.Status.Used[corev1.ResourceName(name)]
			hard := q.Status.Hard[corev1.ResourceName(name)]
			cell := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
			if pieces := strings.Split(name, "."); len(pieces) > 1 && pieces[0] == "limits" {
				limit = append(limit, cell)
			} else {
				request = append(request, cell)
			}
		}
		return []any{q.Name, strings.Join(request, ", "), strings.Join(limit, ", "), age(q.CreationTimestamp, now)}, nil
	},
}

// PodTemplates: upstream's printPodTemplate.
var podTemplatePrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Containers", "string", "Names of each container in the template."),
		column("Images", "string", "Images referenced by each container in the template."),
		column("Pod Labels", "string", "The labels for the pod template."),
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		pt := obj.(*corev1.PodTemplate)
		names, images := containerCells(pt.Template.Spec.Containers)
		return []any{pt.Name, names, images, formatLabels(pt.Template.Labels)}, nil
	},
}
