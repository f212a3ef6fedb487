package kubelet

// What the kubelet API (package server) asks of the Kubelet: it is the
// server's HostInterface (upstream's GetExec, GetAttach, GetPortForward
// and GetKubeletContainerLogs of pkg/kubelet/kubelet_pods.go).

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch05-kubelet/kubelet/server"
)

var _ server.HostInterface = (*Kubelet)(nil)

// GetPods are the pods bound to this node, as the informer has them.
func (k *Kubelet) GetPods() []*corev1.Pod {
	return k.pods.GetStore().List()
}

// GetPodByName is the pod namespace/name among this node's pods.
func (k *Kubelet) GetPodByName(namespace, name string) (*corev1.Pod, bool) {
	// A static pod first: the runtime knows it by its own UID, not the
	// mirror pod's that the apiserver has.
	if p, ok := k.staticPod(namespace, name); ok {
		return p, true
	}
	return k.pods.GetStore().GetByKey(namespace + "/" + name)
}

// GetContainerLogFile is the log file of container containerName of pod
// (of the previous instance with previous), as the runtime reports it,
// and whether that instance still runs.
func (k *Kubelet) GetContainerLogFile(ctx context.Context, pod *corev1.Pod, containerName string, previous bool) (string, func() bool, error) {
	id, err := containerLogID(pod, containerName, previous)
	if err != nil {
		return "", nil, err
	}
	st, err := k.rt.ContainerStatus(ctx, &cri.ContainerStatusRequest{ContainerId: id})
	if err != nil {
		return "", nil, fmt.Errorf("failed to get container status %q: %v", id, grpcMessage(err))
	}
	running := func() bool {
		s, err := k.rt.ContainerStatus(ctx, &cri.ContainerStatusRequest{ContainerId: id})
		return err == nil && s.Status.State == cri.ContainerState_CONTAINER_RUNNING
	}
	return st.Status.LogPath, running, nil
}

// containerLogID picks the container whose log is wanted, from the pod's
// status, with upstream's messages (validateContainerLogStatus in
// pkg/kubelet/kubelet_pods.go): the running one, else the last one that
// ran; with previous, the one before the current.
func containerLogID(pod *corev1.Pod, container string, previous bool) (string, error) {
	var cs *corev1.ContainerStatus
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range list {
			if list[i].Name == container && cs == nil {
				cs = &list[i]
			}
		}
	}
	if cs == nil {
		return "", fmt.Errorf("container %q in pod %q is not available", container, pod.Name)
	}
	last := cs.LastTerminationState.Terminated
	var id string
	switch st := cs.State; {
	case previous:
		if last == nil || last.ContainerID == "" {
			return "", fmt.Errorf("previous terminated container %q in pod %q not found", container, pod.Name)
		}
		id = last.ContainerID
	case st.Running != nil:
		id = cs.ContainerID
	case st.Terminated != nil:
		id = st.Terminated.ContainerID
		if id == "" && last != nil {
			id = last.ContainerID
		}
		if id == "" {
			return "", fmt.Errorf("container %q in pod %q is terminated", container, pod.Name)
		}
	case last != nil:
		if last.ContainerID == "" {
			return "", fmt.Errorf("container %q in pod %q is terminated", container, pod.Name)
		}
		id = last.ContainerID
	case st.Waiting != nil:
		switch reason := st.Waiting.Reason; reason {
		case "ErrImagePull":
			return "", fmt.Errorf("container %q in pod %q is waiting to start: image can't be pulled", container, pod.Name)
		case "ImagePullBackOff":
			return "", fmt.Errorf("container %q in pod %q is waiting to start: trying and failing to pull image", container, pod.Name)
		default:
			return "", fmt.Errorf("container %q in pod %q is waiting to start: %v", container, pod.Name, reason)
		}
	default:
		return "", fmt.Errorf("container %q in pod %q is waiting to start - no logs yet", container, pod.Name)
	}
	_, id, _ = strings.Cut(id, "://") // containerd://<id>
	return id, nil
}

// GetRunningContainerID is the ID of the running container name of the
// pod with UID uid, found by its labels.
func (k *Kubelet) GetRunningContainerID(ctx context.Context, uid, name string) (string, error) {
	list, err := k.rt.ListContainers(ctx, &cri.ListContainersRequest{Filter: &cri.ContainerFilter{
		State:         &cri.ContainerStateValue{State: cri.ContainerState_CONTAINER_RUNNING},
		LabelSelector: map[string]string{labelPodUID: uid, labelContainerName: name}}})
	if err != nil {
		return "", err
	}
	if len(list.Containers) == 0 {
		return "", fmt.Errorf("container not found (%q)", name)
	}
	return list.Containers[0].Id, nil
}

// GetExec is the runtime's streaming URL for cmd in the container (CRI
// Exec). With a TTY, stderr goes to stdout.
func (k *Kubelet) GetExec(ctx context.Context, containerID string, cmd []string, o server.StreamOptions) (string, error) {
	resp, err := k.rt.Exec(ctx, &cri.ExecRequest{ContainerId: containerID, Cmd: cmd,
		Tty: o.TTY, Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr && !o.TTY})
	return resp.GetUrl(), err
}

// GetAttach is the runtime's streaming URL for the container's own
// streams (CRI Attach).
func (k *Kubelet) GetAttach(ctx context.Context, containerID string, o server.StreamOptions) (string, error) {
	resp, err := k.rt.Attach(ctx, &cri.AttachRequest{ContainerId: containerID,
		Tty: o.TTY, Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr && !o.TTY})
	return resp.GetUrl(), err
}

// GetPortForward is the runtime's streaming URL for the pod's ready
// sandbox (CRI PortForward); NotFound when it has none.
func (k *Kubelet) GetPortForward(ctx context.Context, pod *corev1.Pod) (string, error) {
	sbs, err := k.sandboxes(ctx, pod.UID)
	if err != nil || len(sbs) == 0 || sbs[0].State != cri.PodSandboxState_SANDBOX_READY {
		return "", grpcstatus.Errorf(codes.NotFound, "pod not found (%q)", pod.Namespace+"/"+pod.Name)
	}
	resp, err := k.rt.PortForward(ctx, &cri.PortForwardRequest{PodSandboxId: sbs[0].Id})
	return resp.GetUrl(), err
}
