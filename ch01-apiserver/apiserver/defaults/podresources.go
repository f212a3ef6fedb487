package defaults

import (
	"strings"

	"kubik/ch01-apiserver/api/corev1"
)

// Pod-level resources (spec.resources) that are only partly given are filled
// from the containers' resources, as SetDefaults_Pod does with the
// PodLevelResources feature gate (beta and on by default since 1.34).
// Only cpu, memory and hugepages-* may be set at the pod level.

// defaultHugePagePodLimits is upstream's defaultHugePagePodLimits: when the pod
// sets some pod-level resources, a hugepages-* limit that the containers set
// and the pod sets neither as request nor as limit becomes the containers'
// aggregate limit.
func defaultHugePagePodLimits(pod *corev1.Pod) {
	r := pod.Spec.Resources
	if r == nil || (len(r.Limits) == 0 && len(r.Requests) == 0) {
		return
	}
	limits := r.Limits
	if limits == nil {
		limits = corev1.ResourceList{}
	}
	for name, q := range aggregateContainerResources(pod, limitsOf) {
		if !isSupportedPodLevelResource(name) || !isHugePageResourceName(name) {
			continue
		}
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if _, ok := limits[name]; !ok {
			limits[name] = q.DeepCopy()
		}
	}
	if len(limits) > 0 {
		r.Limits = limits
	}
}

// defaultPodRequests is upstream's defaultPodRequests: when the pod sets
// pod-level limits, a missing pod-level cpu or memory request becomes the
// containers' aggregate request, and any resource still without a request
// requests its pod-level limit.
func defaultPodRequests(pod *corev1.Pod) {
	r := pod.Spec.Resources
	if r == nil || len(r.Limits) == 0 {
		return
	}
	requests := r.Requests
	if requests == nil {
		requests = corev1.ResourceList{}
	}
	for name, q := range aggregateContainerResources(pod, requestsOf) {
		if _, ok := requests[name]; !ok && isSupportedPodLevelResource(name) && isOvercommitAllowed(name) {
			requests[name] = q.DeepCopy()
		}
	}
	for name, q := range r.Limits {
		if _, ok := requests[name]; !ok && isSupportedPodLevelResource(name) {
			requests[name] = q.DeepCopy()
		}
	}
	if len(requests) > 0 {
		r.Requests = requests
	}
}

func requestsOf(r *corev1.ResourceRequirements) corev1.ResourceList { return r.Requests }
func limitsOf(r *corev1.ResourceRequirements) corev1.ResourceList   { return r.Limits }

// aggregateContainerResources is what the pod's containers need at most at
// any one time (AggregateContainerRequests and AggregateContainerLimits of
// k8s.io/component-helpers/resource, from the spec alone): the sum of the
// regular containers and the sidecars (init containers with restartPolicy
// Always), or, if larger, what the pod needs while an init container runs —
// that container plus the sidecars started before it.
func aggregateContainerResources(pod *corev1.Pod, list func(*corev1.ResourceRequirements) corev1.ResourceList) corev1.ResourceList {
	total := corev1.ResourceList{}
	for i := range pod.Spec.Containers {
		addResourceList(total, list(&pod.Spec.Containers[i].Resources))
	}
	sidecars := corev1.ResourceList{}
	initPeak := corev1.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		use := list(&c.Resources)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addResourceList(total, use)
			addResourceList(sidecars, use)
			use = sidecars
		} else {
			running := corev1.ResourceList{}
			addResourceList(running, use)
			addResourceList(running, sidecars)
			use = running
		}
		maxResourceList(initPeak, use)
	}
	maxResourceList(total, initPeak)
	return total
}

// addResourceList adds every quantity of more to list.
func addResourceList(list, more corev1.ResourceList) {
	for name, q := range more {
		sum, ok := list[name]
		if !ok {
			list[name] = q.DeepCopy()
			continue
		}
		sum.Add(q)
		list[name] = sum
	}
}

// maxResourceList raises every quantity of list to the one in other, if larger.
func maxResourceList(list, other corev1.ResourceList) {
	for name, q := range other {
		if cur, ok := list[name]; !ok || q.Cmp(cur) > 0 {
			list[name] = q.DeepCopy()
		}
	}
}

// isSupportedPodLevelResource: cpu, memory and hugepages-<size>.
func isSupportedPodLevelResource(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU || name == corev1.ResourceMemory || isHugePageResourceName(name)
}

func isHugePageResourceName(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// isOvercommitAllowed: a native resource (unqualified or in *kubernetes.io/)
// other than huge pages may be requested below its limit.
func isOvercommitAllowed(name corev1.ResourceName) bool {
	native := !strings.Contains(string(name), "/") || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
	return native && !isHugePageResourceName(name)
}
