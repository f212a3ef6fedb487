package kubelet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// The labels the kubelet puts on sandboxes and containers (upstream's
// pkg/kubelet/types), so that `crictl ps` shows whose they are and the
// kubelet finds them again after a restart.
const (
	labelPodName       = "io.kubernetes.pod.name"
	labelPodNamespace  = "io.kubernetes.pod.namespace"
	labelPodUID        = "io.kubernetes.pod.uid"
	labelContainerName = "io.kubernetes.container.name"
)

// syncPod brings one pod's containers to what its spec and phase want and
// writes its status.
func (k *Kubelet) syncPod(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	pod, ok := k.podToSync(ctx, ns, name) // a static pod, or the apiserver's
	if !ok {
		return nil // gone: housekeeping removes what is left
	}
	if pod.DeletionTimestamp != nil {
		k.probes.StopLivenessAndStartup(pod) // no probe kills a container that stops anyway
		k.startTermination(ctx, pod)
		return nil
	}
	if _, busy := k.terminating.Load(pod.UID); busy {
		return nil
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return k.stopSandboxes(ctx, pod.UID) // done: free its IP, keep the containers for their logs
	}

	// Volumes first (upstream's WaitForAttachAndMount): until every one
	// is set up there is no sandbox, and the pod stays ContainerCreating.
	if err := k.volumes.WaitForAttachAndMount(ctx, pod); err != nil {
		return k.writeStatus(ctx, pod, podStatus(pod, observedPod{Waiting: k.waitingOf(pod.UID)}, k.cfg.NodeIP, metav1.Now()))
	}
	sb, err := k.ensureSandbox(ctx, pod)
	if err != nil {
		return err
	}
	k.probes.AddPod(ctx, pod) // its probes' workers, once
	obs, err := k.observe(ctx, pod, sb)
	if err != nil {
		return err
	}
	if k.startContainers(ctx, pod, sb, obs) {
		if obs, err = k.observe(ctx, pod, sb); err != nil {
			return err
		}
	}
	obs.Waiting = k.waitingOf(pod.UID)
	obs.Probed = k.probes.Probed(pod, obs.running(pod)) // started and ready, as the probes say
	k.killUnhealthy(ctx, pod, obs)                      // failed liveness or startup probes

	st := podStatus(pod, obs, k.cfg.NodeIP, metav1.Now())
	k.statuses.SetPodStatus(pod.UID, st) // what the probe workers read
	if err := k.writeStatus(ctx, pod, st); err != nil {
		return err
	}
	if st.Phase == corev1.PodSucceeded || st.Phase == corev1.PodFailed {
		k.log.Info("pod finished", "pod", key, "phase", st.Phase)
		return k.stopSandboxes(ctx, pod.UID)
	}
	return nil
}

// writeStatus sends the status when it differs from what the apiserver has.
func (k *Kubelet) writeStatus(ctx context.Context, pod *corev1.Pod, st corev1.PodStatus) error {
	if IsStaticPod(pod) {
		return k.writeMirrorStatus(ctx, pod, st)
	}
	st.NominatedNodeName, st.QOSClass = pod.Status.NominatedNodeName, pod.Status.QOSClass
	a, _ := json.Marshal(pod.Status)
	b, _ := json.Marshal(st)
	if string(a) == string(b) {
		return nil
	}
	p := *pod // the informer's object must not change
	p.Status = st
	if _, err := rest.UpdateStatus(ctx, k.c, &p); err != nil {
		if rest.IsNotFound(err) || rest.IsConflict(err) {
			return nil // gone, or a newer version is on its way through the informer
		}
		return err
	}
	if pod.Status.Phase != st.Phase {
		k.log.Info("pod status", "pod", pod.Namespace+"/"+pod.Name, "phase", st.Phase, "podIP", st.PodIP)
	}
	return nil
}

// ---- sandboxes ----

func podLabels(pod *corev1.Pod) map[string]string {
	return map[string]string{labelPodName: pod.Name, labelPodNamespace: pod.Namespace, labelPodUID: pod.UID}
}

func (k *Kubelet) sandboxConfig(pod *corev1.Pod, attempt uint32) *cri.PodSandboxConfig {
	network := cri.NamespaceMode_POD
	hostname := pod.Name
	if pod.Spec.Hostname != "" {
		hostname = pod.Spec.Hostname
	}
	if pod.Spec.HostNetwork {
		network, hostname = cri.NamespaceMode_NODE, "" // a hostname needs a UTS namespace of its own
	}
	labels := podLabels(pod)
	for k, v := range pod.Labels {
		if _, ours := labels[k]; !ours {
			labels[k] = v
		}
	}
	return &cri.PodSandboxConfig{
		Metadata:     &cri.PodSandboxMetadata{Name: pod.Name, Namespace: pod.Namespace, Uid: pod.UID, Attempt: attempt},
		Hostname:     hostname,
		LogDirectory: k.podLogDir(pod),
		PortMappings: portMappings(pod), // hostPort: dns.go
		Labels:       labels,
		Annotations:  pod.Annotations,
		Linux: &cri.LinuxPodSandboxConfig{
			CgroupParent: k.podCgroup(pod.UID),
			SecurityContext: &cri.LinuxSandboxSecurityContext{NamespaceOptions: &cri.NamespaceOption{
				Network: network, Pid: cri.NamespaceMode_CONTAINER, Ipc: cri.NamespaceMode_POD}},
		},
	}
}

func (k *Kubelet) podLogDir(pod *corev1.Pod) string {
	return filepath.Join(k.cfg.PodLogsDir, pod.Namespace+"_"+pod.Name+"_"+pod.UID)
}

func (k *Kubelet) podCgroup(uid string) string {
	return filepath.Join(k.cfg.CgroupParent, "pod"+uid)
}

// sandboxes are the pod's sandboxes, newest first.
func (k *Kubelet) sandboxes(ctx context.Context, uid string) ([]*cri.PodSandbox, error) {
	resp, err := k.rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{Filter: &cri.PodSandboxFilter{
		LabelSelector: map[string]string{labelPodUID: uid}}})
	if err != nil {
		return nil, err
	}
	items := resp.Items
	slices.SortFunc(items, func(a, b *cri.PodSandbox) int { return int(b.Metadata.Attempt) - int(a.Metadata.Attempt) })
	return items, nil
}

// ensureSandbox returns the pod's ready sandbox, creating one when there is
// none (a sandbox left not ready by a failed start is removed first; the
// runtime does not clean those up).
func (k *Kubelet) ensureSandbox(ctx context.Context, pod *corev1.Pod) (*cri.PodSandbox, error) {
	sbs, err := k.sandboxes(ctx, pod.UID)
	if err != nil {
		return nil, err
	}
	attempt := uint32(0)
	for _, sb := range sbs {
		if sb.State == cri.PodSandboxState_SANDBOX_READY {
			return sb, nil
		}
		attempt = max(attempt, sb.Metadata.Attempt+1)
	}
	for _, sb := range sbs {
		k.rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: sb.Id})
		k.rt.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: sb.Id})
	}
	if err := os.MkdirAll(k.podLogDir(pod), 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	cfg := k.sandboxConfig(pod, attempt)
	if cfg.DnsConfig, err = k.podDNS(pod); err != nil { // the pod's /etc/resolv.conf: dns.go
		return nil, err
	}
	resp, err := k.rt.RunPodSandbox(ctx, &cri.RunPodSandboxRequest{Config: cfg})
	if err != nil {
		return nil, fmt.Errorf("RunPodSandbox: %w", err)
	}
	k.log.Info("sandbox started", "pod", pod.Namespace+"/"+pod.Name, "sandbox", short(resp.PodSandboxId),
		"took", time.Since(start).Round(time.Millisecond))
	return &cri.PodSandbox{Id: resp.PodSandboxId, State: cri.PodSandboxState_SANDBOX_READY,
		Metadata: &cri.PodSandboxMetadata{Name: pod.Name, Namespace: pod.Namespace, Uid: pod.UID, Attempt: attempt}}, nil
}

func (k *Kubelet) stopSandboxes(ctx context.Context, uid string) error {
	sbs, err := k.sandboxes(ctx, uid)
	if err != nil {
		return err
	}
	for _, sb := range sbs {
		if sb.State == cri.PodSandboxState_SANDBOX_READY {
			if _, err := k.rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
				return err
			}
		}
	}
	return nil
}

// ---- observing ----

// observe reads the sandbox's IP and every container of the pod from the
// runtime.
func (k *Kubelet) observe(ctx context.Context, pod *corev1.Pod, sb *cri.PodSandbox) (observedPod, error) {
	obs := observedPod{Containers: map[string][]observedContainer{}}
	st, err := k.rt.PodSandboxStatus(ctx, &cri.PodSandboxStatusRequest{PodSandboxId: sb.Id})
	if err != nil {
		return obs, err
	}
	obs.SandboxReady = st.Status.State == cri.PodSandboxState_SANDBOX_READY
	if pod.Spec.HostNetwork {
		obs.PodIP = k.cfg.NodeIP
	} else if st.Status.Network != nil {
		obs.PodIP = st.Status.Network.Ip
	}
	list, err := k.rt.ListContainers(ctx, &cri.ListContainersRequest{Filter: &cri.ContainerFilter{PodSandboxId: sb.Id}})
	if err != nil {
		return obs, err
	}
	for _, c := range list.Containers {
		cs, err := k.rt.ContainerStatus(ctx, &cri.ContainerStatusRequest{ContainerId: c.Id})
		if err != nil {
			return obs, err
		}
		s := cs.Status
		oc := observedContainer{ID: s.Id, Name: s.Metadata.Name, Attempt: s.Metadata.Attempt, ImageRef: s.ImageRef,
			CreatedAt: time.Unix(0, s.CreatedAt), ExitCode: s.ExitCode, Reason: s.Reason, Message: terminationMessage(s)}
		if s.Image != nil {
			oc.Image = s.Image.Image
		}
		if s.StartedAt != 0 {
			oc.StartedAt = time.Unix(0, s.StartedAt)
		}
		if s.FinishedAt != 0 {
			oc.FinishedAt = time.Unix(0, s.FinishedAt)
		}
		switch s.State {
		case cri.ContainerState_CONTAINER_CREATED:
			oc.State = stateCreated
		case cri.ContainerState_CONTAINER_RUNNING:
			oc.State = stateRunning
		case cri.ContainerState_CONTAINER_EXITED:
			oc.State = stateExited
		default:
			oc.State = stateUnknown
		}
		obs.Containers[oc.Name] = append(obs.Containers[oc.Name], oc)
	}
	for _, cs := range obs.Containers {
		slices.SortFunc(cs, func(a, b observedContainer) int { return int(b.Attempt) - int(a.Attempt) })
	}
	return obs, nil
}

// ---- why a container waits ----

func (k *Kubelet) setWaiting(uid string, container string, w *waiting) {
	k.mu.Lock()
	defer k.mu.Unlock()
	m := k.waiting[uid]
	if m == nil {
		m = map[string]waiting{}
		k.waiting[uid] = m
	}
	if w == nil {
		delete(m, container)
	} else {
		m[container] = *w
	}
}

func (k *Kubelet) waitingOf(uid string) map[string]waiting {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]waiting{}
	for c, w := range k.waiting[uid] {
		out[c] = w
	}
	return out
}

func (k *Kubelet) forgetPod(uid string) {
	k.mu.Lock()
	delete(k.waiting, uid)
	for key := range k.pullErrs {
		if strings.HasPrefix(key, uid+"/") {
			delete(k.pullErrs, key)
		}
	}
	k.mu.Unlock()
	k.crashBackoff.Forget(uid + "/")
	k.pullBackoff.Forget(uid + "/")
}

func short(id string) string { return id[:min(len(id), 12)] }
