package kubelet

import (
	"context"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
)

// Ephemeral containers (`kubectl debug`): added to a running pod through
// the apiserver's pods/ephemeralcontainers subresource, started once in the
// pod's sandbox, never restarted, reported in
// status.ephemeralContainerStatuses. Upstream: the ephemeral parts of
// pkg/kubelet/kuberuntime (computePodActions' EphemeralContainersToStart,
// startContainer with a target) and convertToAPIContainerStatuses.

// ephemeralContainer is the Container an ephemeral container is run as
// (the fields are the same; upstream converts the same way).
func ephemeralContainer(ec corev1.EphemeralContainer) corev1.Container {
	return corev1.Container(ec.EphemeralContainerCommon)
}

// isEphemeral reports whether name is one of pod's ephemeral containers.
func isEphemeral(pod *corev1.Pod, name string) (corev1.EphemeralContainer, bool) {
	for _, ec := range pod.Spec.EphemeralContainers {
		if ec.Name == name {
			return ec, true
		}
	}
	return corev1.EphemeralContainer{}, false
}

// startEphemeralContainers starts every ephemeral container the runtime
// has never seen, whatever the init containers' progress (as upstream). One
// that was created once is left alone: it runs, or it exited for good.
func (k *Kubelet) startEphemeralContainers(ctx context.Context, pod *corev1.Pod, sb *cri.PodSandbox, obs observedPod) bool {
	started := false
	for _, ec := range pod.Spec.EphemeralContainers {
		if _, ok := obs.latest(ec.Name); ok {
			continue
		}
		started = k.startContainer(ctx, pod, ephemeralContainer(ec), sb, obs, observedContainer{}, false) || started
	}
	return started
}

// ephemeralNamespaces sets the process namespace of ephemeral container
// name: with a targetContainerName, the target's (CRI NamespaceMode_TARGET,
// what `kubectl debug --target` asks for), so that `ps` there shows the
// target's processes. A target that is not running leaves the container's
// own namespace, as upstream does when the target is gone.
func ephemeralNamespaces(pod *corev1.Pod, name string, obs observedPod, ns *cri.NamespaceOption) {
	ec, ok := isEphemeral(pod, name)
	if !ok || ec.TargetContainerName == "" {
		return
	}
	if t, ok := obs.latest(ec.TargetContainerName); ok && t.State == stateRunning {
		ns.Pid, ns.TargetId = cri.NamespaceMode_TARGET, t.ID
	}
}

// ephemeralContainerStatuses are the pod's status.ephemeralContainerStatuses:
// one per ephemeral container, never ready and without the started field
// (no probes look at them), in the spec's order.
func ephemeralContainerStatuses(pod *corev1.Pod, obs observedPod) []corev1.ContainerStatus {
	def := "ContainerCreating"
	if len(pod.Spec.InitContainers) > 0 {
		def = "PodInitializing"
	}
	var out []corev1.ContainerStatus
	for _, ec := range pod.Spec.EphemeralContainers {
		cs := containerStatus(ephemeralContainer(ec), obs, def)
		cs.Ready, cs.Started = false, nil
		out = append(out, cs)
	}
	return out
}
