package metrics

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
)

// PodMetricsPath is where the PodMetrics of a namespace are listed.
func PodMetricsPath(namespace string) string {
	return "/apis/metrics.k8s.io/v1beta1/namespaces/" + url.PathEscape(namespace) + "/pods"
}

// NewRESTMetricsClient reads the resource metrics API through c.
// Upstream: NewRESTMetricsClient's resourceMetricsClient.
func NewRESTMetricsClient(c *rest.Client) MetricsClient { return &resourceMetricsClient{c: c} }

type resourceMetricsClient struct{ c *rest.Client }

// GetResourceMetric lists the PodMetrics of the pods selector picks and
// returns each pod's usage of resource.
func (m *resourceMetricsClient) GetResourceMetric(ctx context.Context, resource corev1.ResourceName, namespace string, selector selection.LabelSelector, container string) (PodMetricsInfo, time.Time, error) {
	var list PodMetricsList
	req := rest.Request{Method: http.MethodGet, Path: PodMetricsPath(namespace),
		Query: url.Values{"labelSelector": {selector.String()}}}
	if err := m.c.Do(ctx, req, &list); err != nil {
		return nil, time.Time{}, fmt.Errorf("unable to fetch metrics from resource metrics API: %v", clientError(err))
	}
	if len(list.Items) == 0 {
		return nil, time.Time{}, fmt.Errorf("no metrics returned from resource metrics API")
	}
	var res PodMetricsInfo
	if container != "" {
		var err error
		if res, err = getContainerMetrics(list.Items, resource, container); err != nil {
			return nil, time.Time{}, fmt.Errorf("failed to get container metrics: %v", err)
		}
	} else {
		res = getPodMetrics(list.Items, resource)
	}
	return res, list.Items[0].Timestamp.Time, nil
}

// clientError words a failed list as client-go does for an answer that is
// not a Status — a kube-apiserver answers "404 page not found" for a group
// nobody serves: "the server could not find the requested resource (get
// pods.metrics.k8s.io)". A 404 Status without details (the group is not
// served) is worded the same.
func clientError(err error) error {
	se, ok := err.(*rest.StatusError)
	if !ok || se.ErrStatus.Code != http.StatusNotFound || se.ErrStatus.Details != nil {
		return err
	}
	if m := se.ErrStatus.Message; m == "404 page not found" || m == "the server could not find the requested resource" {
		return fmt.Errorf("the server could not find the requested resource (get pods.metrics.k8s.io)")
	}
	return err
}

// getPodMetrics sums the containers' usage of each pod; a pod with a
// container that does not report the resource is left out.
func getPodMetrics(raw []PodMetrics, resource corev1.ResourceName) PodMetricsInfo {
	res := make(PodMetricsInfo, len(raw))
	for _, m := range raw {
		podSum := int64(0)
		missing := len(m.Containers) == 0
		for _, c := range m.Containers {
			v, found := c.Usage[resource]
			if !found {
				missing = true
				break
			}
			podSum += v.MilliValue()
		}
		if !missing {
			res[m.Name] = PodMetric{Timestamp: m.Timestamp.Time, Window: m.Window.Duration, Value: podSum}
		}
	}
	return res
}

// getContainerMetrics is the usage of one container of each pod; a pod
// without that container is an error.
func getContainerMetrics(raw []PodMetrics, resource corev1.ResourceName, container string) (PodMetricsInfo, error) {
	res := make(PodMetricsInfo, len(raw))
	for _, m := range raw {
		found := false
		for _, c := range m.Containers {
			if c.Name != container {
				continue
			}
			found = true
			if v, ok := c.Usage[resource]; ok {
				res[m.Name] = PodMetric{Timestamp: m.Timestamp.Time, Window: m.Window.Duration, Value: v.MilliValue()}
			}
			break
		}
		if !found {
			return nil, fmt.Errorf("container %s not present in metrics for pod %s/%s", container, m.Namespace, m.Name)
		}
	}
	return res, nil
}
