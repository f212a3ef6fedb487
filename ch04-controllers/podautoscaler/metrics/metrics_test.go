package metrics

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

func podMetrics(name string, containers map[string]string) PodMetrics {
	m := PodMetrics{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	for c, cpu := range containers {
		m.Containers = append(m.Containers, ContainerMetrics{Name: c, Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}})
	}
	return m
}

// Upstream's TestCPU... cases of the REST metrics client: a pod's usage
// is the sum of its containers; a pod with a container that reports
// nothing is left out; one container can be asked for.
func TestPodAndContainerMetrics(t *testing.T) {
	raw := []PodMetrics{
		podMetrics("a", map[string]string{"app": "200m", "sidecar": "50m"}),
		podMetrics("b", map[string]string{"app": "1"}),
		{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Containers: []ContainerMetrics{{Name: "app", Usage: corev1.ResourceList{}}}},
	}
	got := getPodMetrics(raw, corev1.ResourceCPU)
	if len(got) != 2 || got["a"].Value != 250 || got["b"].Value != 1000 {
		t.Errorf("pod metrics %+v", got)
	}
	c, err := getContainerMetrics(raw[:2], corev1.ResourceCPU, "app")
	if err != nil || len(c) != 2 || c["a"].Value != 200 {
		t.Errorf("container metrics %+v %v", c, err)
	}
	if _, err := getContainerMetrics(raw[:2], corev1.ResourceCPU, "sidecar"); err == nil || err.Error() != "container sidecar not present in metrics for pod ns/b" {
		t.Errorf("error %v", err)
	}
}

func TestUtilizationRatio(t *testing.T) {
	m := PodMetricsInfo{"a": {Value: 300}, "b": {Value: 500}, "extra": {Value: 9000}}
	ratio, util, raw, err := GetResourceUtilizationRatio(m, map[string]int64{"a": 1000, "b": 1000}, 20)
	if err != nil || util != 40 || ratio != 2 || raw != 400 {
		t.Errorf("ratio %v util %d raw %d err %v", ratio, util, raw, err)
	}
	if _, _, _, err := GetResourceUtilizationRatio(m, map[string]int64{"z": 1000}, 20); err == nil || err.Error() != "no metrics returned matched known pods" {
		t.Errorf("error %v", err)
	}
	ratio, usage := GetMetricUsageRatio(PodMetricsInfo{"a": {Value: 100}, "b": {Value: 300}}, 100)
	if ratio != 2 || usage != 200 {
		t.Errorf("usage ratio %v %d", ratio, usage)
	}
}
