package apiserver

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// The pods/resize subresource (in-place pod resize, KEP-1287): GET returns
// the pod, PUT and PATCH change only its containers' resources and resize
// policies. Upstream: pkg/registry/core/pod/storage (ResizeREST) and the
// podResizeStrategy of pkg/registry/core/pod/strategy.go; what may change is
// checked by validation.ValidatePodResize.

// prepareResize is podResizeStrategy.PrepareForUpdate: of the new pod only
// the resources and resize policies of the containers and init containers
// (matched by name) are kept, everything else is the stored pod's; the
// generation moves when the spec did (updatePodGeneration).
func prepareResize(pod, old *corev1.Pod) {
	resources := map[string]corev1.Container{}
	for _, c := range pod.Spec.Containers {
		resources["c/"+c.Name] = c
	}
	for _, c := range pod.Spec.InitContainers {
		resources["i/"+c.Name] = c
	}
	rv := pod.ResourceVersion
	*pod = *metav1.DeepCopy(old)
	pod.ResourceVersion = rv
	for i, c := range pod.Spec.Containers {
		if n, ok := resources["c/"+c.Name]; ok {
			pod.Spec.Containers[i].Resources, pod.Spec.Containers[i].ResizePolicy = n.Resources, n.ResizePolicy
		}
	}
	for i, c := range pod.Spec.InitContainers {
		if n, ok := resources["i/"+c.Name]; ok {
			pod.Spec.InitContainers[i].Resources, pod.Spec.InitContainers[i].ResizePolicy = n.Resources, n.ResizePolicy
		}
	}
	if !sameSpec(pod, old) {
		pod.Generation = old.Generation + 1
	}
}
