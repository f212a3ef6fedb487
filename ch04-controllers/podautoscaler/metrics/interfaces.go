package metrics

import (
	"context"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver/selection"
)

// PodMetric is one pod's usage of one resource (milli-units: millicores,
// milli-bytes) and when and over how long it was measured.
type PodMetric struct {
	Timestamp time.Time
	Window    time.Duration
	Value     int64
}

// PodMetricsInfo maps pod names to their metric.
type PodMetricsInfo map[string]PodMetric

// MetricsClient knows how to query the metrics of the pods a selector
// picks. container "" sums all the containers of a pod; otherwise only
// that container counts. Upstream: MetricsClient (its custom and external
// metric methods come with the custom metrics APIs).
type MetricsClient interface {
	GetResourceMetric(ctx context.Context, resource corev1.ResourceName, namespace string, selector selection.LabelSelector, container string) (PodMetricsInfo, time.Time, error)
}
