// Package metrics is how the horizontal pod autoscaler reads pods' resource
// usage: from the resource metrics API, metrics.k8s.io/v1beta1, which
// metrics-server serves through the apiserver's aggregation layer:
//
//	GET /apis/metrics.k8s.io/v1beta1/namespaces/NS/pods?labelSelector=app=web
//
// Each PodMetrics holds the usage of every container over a window
// (cpu in cores, memory in bytes); the autoscaler sums them per pod
// (GetResourceMetric) and compares the sum with the pods' requests
// (GetResourceUtilizationRatio). A cluster without metrics-server does not
// serve the group: the list fails, and the autoscaler reports that as a
// real cluster does.
//
// Upstream: pkg/controller/podautoscaler/metrics (interfaces.go, client.go,
// utilization.go) and the types of k8s.io/metrics/pkg/apis/metrics/v1beta1.
package metrics

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// PodMetrics is metrics.k8s.io/v1beta1's PodMetrics: the resource usage
// of one pod's containers, measured at Timestamp over Window.
type PodMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Timestamp         metav1.Time        `json:"timestamp"`
	Window            metav1.Duration    `json:"window"`
	Containers        []ContainerMetrics `json:"containers"`
}

// ContainerMetrics is the usage of one container.
type ContainerMetrics struct {
	Name  string              `json:"name"`
	Usage corev1.ResourceList `json:"usage"`
}

// PodMetricsList is the answer of a list.
type PodMetricsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PodMetrics `json:"items"`
}
