// Package format names pods in the kubelet's events, errors and messages
// as upstream's pkg/kubelet/util/format does.
package format

import "kubik/ch01-apiserver/api/corev1"

// Pod is name_namespace(uid), upstream's format.Pod.
func Pod(pod *corev1.Pod) string {
	return pod.Name + "_" + pod.Namespace + "(" + pod.UID + ")"
}
