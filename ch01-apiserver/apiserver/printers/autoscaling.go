package printers

import (
	"fmt"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// HorizontalPodAutoscalers: upstream's printHorizontalPodAutoscaler.

var horizontalPodAutoscalerPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Reference", "string", doc("autoscaling/v2beta1 HorizontalPodAutoscalerSpec.scaleTargetRef")),
		column("Targets", "string", doc("autoscaling/v2beta1 HorizontalPodAutoscalerSpec.metrics")),
		column("MinPods", "string", doc("autoscaling/v2beta1 HorizontalPodAutoscalerSpec.minReplicas")),
		column("MaxPods", "string", doc("autoscaling/v2beta1 HorizontalPodAutoscalerSpec.maxReplicas")),
		column("Replicas", "string", doc("autoscaling/v2beta1 HorizontalPodAutoscalerStatus.currentReplicas")),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		hpa := obj.(*autoscalingv2.HorizontalPodAutoscaler)
		minPods := "<unset>"
		if hpa.Spec.MinReplicas != nil {
			minPods = fmt.Sprint(*hpa.Spec.MinReplicas)
		}
		ref := hpa.Spec.ScaleTargetRef.Kind + "/" + hpa.Spec.ScaleTargetRef.Name
		return []any{hpa.Name, ref, formatHPAMetrics(hpa.Spec.Metrics, hpa.Status.CurrentMetrics), minPods,
			int64(hpa.Spec.MaxReplicas), int64(hpa.Status.CurrentReplicas), age(hpa.CreationTimestamp, now)}, nil
	},
}

// formatHPAMetrics is upstream's: "current/target" per metric (current from
// the status entry at the same index), at most two, then "+ N more...".
func formatHPAMetrics(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	str := func(q *resource.Quantity) string {
		if q == nil {
			return "0"
		}
		return q.String()
	}
	percent := func(p *int32) string { return fmt.Sprintf("%d%%", *p) }
	var list []string
	for i, spec := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		current := "<unknown>"
		switch spec.Type {
		case autoscalingv2.ExternalMetricSourceType:
			if spec.External.Target.AverageValue != nil {
				if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
					current = st.External.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, spec.External.Target.AverageValue.String()))
			} else {
				if st != nil && st.External != nil {
					current = str(st.External.Current.Value)
				}
				list = append(list, fmt.Sprintf("%s/%s", current, str(spec.External.Target.Value)))
			}
		case autoscalingv2.PodsMetricSourceType:
			if st != nil && st.Pods != nil {
				current = str(st.Pods.Current.AverageValue)
			}
			list = append(list, fmt.Sprintf("%s/%s", current, str(spec.Pods.Target.AverageValue)))
		case autoscalingv2.ObjectMetricSourceType:
			if spec.Object.Target.AverageValue != nil {
				if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
					current = st.Object.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, spec.Object.Target.AverageValue.String()))
			} else {
				if st != nil && st.Object != nil {
					current = str(st.Object.Current.Value)
				}
				list = append(list, fmt.Sprintf("%s/%s", current, str(spec.Object.Target.Value)))
			}
		case autoscalingv2.ResourceMetricSourceType:
			list = append(list, resourceMetric(string(spec.Resource.Name), spec.Resource.Target, resourceCurrent(st, false), str, percent))
		case autoscalingv2.ContainerResourceMetricSourceType:
			list = append(list, resourceMetric(string(spec.ContainerResource.Name), spec.ContainerResource.Target, resourceCurrent(st, true), str, percent))
		default:
			list = append(list, "<unknown type>")
		}
	}
	const max = 2
	if len(list) > max {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:max], ", "), len(list)-max)
	}
	return strings.Join(list, ", ")
}

// resourceCurrent is the current value of a (container) resource metric.
func resourceCurrent(st *autoscalingv2.MetricStatus, container bool) *autoscalingv2.MetricValueStatus {
	switch {
	case st == nil:
		return nil
	case container && st.ContainerResource != nil:
		return &st.ContainerResource.Current
	case !container && st.Resource != nil:
		return &st.Resource.Current
	}
	return nil
}

func resourceMetric(name string, target autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus,
	str func(*resource.Quantity) string, percent func(*int32) string) string {
	current := "<unknown>"
	if target.AverageValue != nil {
		if cur != nil {
			current = str(cur.AverageValue)
		}
		return fmt.Sprintf("%s: %s/%s", name, current, target.AverageValue.String())
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = percent(cur.AverageUtilization)
	}
	want := "<auto>"
	if target.AverageUtilization != nil {
		want = percent(target.AverageUtilization)
	}
	return fmt.Sprintf("%s: %s/%s", name, current, want)
}

// hpaV1Printer prints autoscaling/v1 HorizontalPodAutoscalers as upstream
// does, from the form they are stored in.
var hpaV1Printer = printer{
	columns: horizontalPodAutoscalerPrinter.columns,
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		return horizontalPodAutoscalerPrinter.row(autoscalingv1.ToV2(obj.(*autoscalingv1.HorizontalPodAutoscaler)), now)
	},
}
