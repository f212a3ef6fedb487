package kubelet

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
)

// The container whose log is read, and upstream's messages when there is none.
func TestContainerLogID(t *testing.T) {
	pod := &corev1.Pod{}
	pod.Name = "web"
	running := corev1.ContainerStatus{Name: "app", ContainerID: "containerd://cur",
		State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ContainerID: "containerd://prev"}}}
	waiting := corev1.ContainerStatus{Name: "side", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}
	pulling := corev1.ContainerStatus{Name: "img", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{running, waiting, pulling}
	for _, tc := range []struct {
		container string
		previous  bool
		want      string
	}{
		{"app", false, "cur"},
		{"app", true, "prev"},
		{"side", false, `container "side" in pod "web" is waiting to start: ContainerCreating`},
		{"side", true, `previous terminated container "side" in pod "web" not found`},
		{"img", false, `container "img" in pod "web" is waiting to start: trying and failing to pull image`},
		{"gone", false, `container "gone" in pod "web" is not available`},
	} {
		id, err := containerLogID(pod, tc.container, tc.previous)
		got := id
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s previous=%v: got %q, want %q", tc.container, tc.previous, got, tc.want)
		}
	}
}
