package kubelet

import (
	"testing"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

func TestEphemeralContainerStatuses(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, nil, "app")
	for _, n := range []string{"dbg", "done", "new"} {
		pod.Spec.EphemeralContainers = append(pod.Spec.EphemeralContainers, corev1.EphemeralContainer{
			EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: n, Image: "busybox:1.35"}, TargetContainerName: "app"})
	}
	obs := observedPod{SandboxReady: true, PodIP: "10.244.0.5", Waiting: map[string]waiting{}, Containers: map[string][]observedContainer{
		"app": {running("app", 0)}, "dbg": {running("dbg", 0)}, "done": {exited("done", 0, 0)}}}
	st := podStatus(pod, obs, "127.0.0.1", metav1.NewTime(t0))
	if st.Phase != corev1.PodRunning || len(st.ContainerStatuses) != 1 {
		t.Fatalf("phase %s, %d container statuses", st.Phase, len(st.ContainerStatuses))
	}
	got := st.EphemeralContainerStatuses
	if len(got) != 3 {
		t.Fatalf("%d ephemeral statuses, want 3", len(got))
	}
	if s := got[0]; s.Name != "dbg" || s.State.Running == nil || s.Ready || s.Started != nil || s.ContainerID != "containerd://dbg-id" {
		t.Errorf("running one: %+v", s)
	}
	if s := got[1]; s.State.Terminated == nil || s.State.Terminated.Reason != "Completed" || s.RestartCount != 0 {
		t.Errorf("exited one: %+v", s)
	}
	if s := got[2]; s.State.Waiting == nil || s.State.Waiting.Reason != "ContainerCreating" {
		t.Errorf("new one: %+v", s)
	}

	// The target's process namespace, while the target runs.
	ns := &cri.NamespaceOption{Pid: cri.NamespaceMode_CONTAINER}
	ephemeralNamespaces(pod, "dbg", obs, ns)
	if ns.Pid != cri.NamespaceMode_TARGET || ns.TargetId != "app-id" {
		t.Errorf("namespaces with a running target: %v", ns)
	}
	ns = &cri.NamespaceOption{Pid: cri.NamespaceMode_CONTAINER}
	ephemeralNamespaces(pod, "app", obs, ns)
	if ns.Pid != cri.NamespaceMode_CONTAINER {
		t.Errorf("a regular container's namespaces changed: %v", ns)
	}
}
