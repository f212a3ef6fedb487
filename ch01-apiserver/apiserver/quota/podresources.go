package quota

import (
	"strings"

	"kubik/ch01-apiserver/api/corev1"
)

// PodRequests is what a pod asks for, as upstream's resourcehelper.PodRequests
// (k8s.io/component-helpers/resource) without in-place resize: the sum of
// the regular containers and the sidecars (init containers with
// restartPolicy Always), at least the largest init container plus the
// sidecars started before it; pod-level requests replace that for the
// resources they name; plus the pod overhead.
func PodRequests(pod *corev1.Pod) corev1.ResourceList {
	reqs := aggregateContainerResources(pod, func(r *corev1.ResourceRequirements) corev1.ResourceList { return r.Requests })
	if pod.Spec.Resources != nil {
		for name, q := range pod.Spec.Resources.Requests {
			if isSupportedPodLevelResource(name) {
				reqs[name] = q
			}
		}
	}
	return Add(reqs, pod.Spec.Overhead)
}

// PodLimits is PodRequests for limits (resourcehelper.PodLimits): the
// overhead is added only to the resources that are limited.
func PodLimits(pod *corev1.Pod) corev1.ResourceList {
	limits := aggregateContainerResources(pod, func(r *corev1.ResourceRequirements) corev1.ResourceList { return r.Limits })
	if pod.Spec.Resources != nil {
		for name, q := range pod.Spec.Resources.Limits {
			if isSupportedPodLevelResource(name) {
				limits[name] = q
			}
		}
	}
	for name, q := range pod.Spec.Overhead {
		if cur, ok := limits[name]; ok {
			cur.Add(q)
			limits[name] = cur
		}
	}
	return limits
}

// aggregateContainerResources is AggregateContainerRequests and
// AggregateContainerLimits.
func aggregateContainerResources(pod *corev1.Pod, of func(*corev1.ResourceRequirements) corev1.ResourceList) corev1.ResourceList {
	total := corev1.ResourceList{}
	for i := range pod.Spec.Containers {
		total = Add(total, of(&pod.Spec.Containers[i].Resources))
	}
	sidecars, initMax := corev1.ResourceList{}, corev1.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		need := of(&c.Resources)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			total = Add(total, need)
			sidecars = Add(sidecars, need)
			need = sidecars
		} else {
			need = Add(need, sidecars)
		}
		for name, q := range need {
			if cur, ok := initMax[name]; !ok || q.Cmp(cur) > 0 {
				initMax[name] = q.DeepCopy()
			}
		}
	}
	for name, q := range initMax {
		if cur, ok := total[name]; !ok || q.Cmp(cur) > 0 {
			total[name] = q
		}
	}
	return total
}

// isSupportedPodLevelResource: cpu, memory and hugepages-<size>.
func isSupportedPodLevelResource(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU || name == corev1.ResourceMemory || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}
