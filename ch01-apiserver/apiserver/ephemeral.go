package apiserver

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// The pods/ephemeralcontainers subresource: GET returns the pod, PUT and
// PATCH change only spec.ephemeralContainers (what `kubectl debug` sends:
// a strategic merge patch adding one container). Upstream:
// pkg/registry/core/pod/storage (EphemeralContainersREST) and the
// podEphemeralContainersStrategy of pkg/registry/core/pod/strategy.go;
// what may change is checked by validation.ValidatePodEphemeralContainersUpdate.

// prepareEphemeralContainers is podEphemeralContainersStrategy.PrepareForUpdate
// (dropNonEphemeralContainerUpdates): the stored pod with the new pod's
// ephemeral containers and identity; every other change is dropped, not
// refused. The generation moves as for any spec change (updatePodGeneration).
func prepareEphemeralContainers(pod, old *corev1.Pod) {
	name, namespace, uid, rv := pod.Name, pod.Namespace, pod.UID, pod.ResourceVersion
	ephemeral := pod.Spec.EphemeralContainers
	*pod = *metav1.DeepCopy(old)
	pod.Name, pod.Namespace, pod.UID, pod.ResourceVersion = name, namespace, uid, rv
	pod.Spec.EphemeralContainers = ephemeral
	if !sameSpec(pod, old) {
		pod.Generation = old.Generation + 1
	}
}
