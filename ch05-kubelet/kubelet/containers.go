package kubelet

import (
	"context"
	"fmt"
	"kubik/ch04-controllers/record"
	"path/filepath"
	"strconv"
	"time"

	grpcstatus "google.golang.org/grpc/status"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch05-kubelet/kubelet/fieldpath"
	"kubik/ch05-kubelet/kubelet/util/format"
)

// event records an Event about container c of pod, as upstream's
// recordContainerEvent: the involved object is the pod, its fieldPath
// names the container (spec.containers{web}).
func (k *Kubelet) event(pod *corev1.Pod, c corev1.Container, eventType, reason, format string, args ...any) {
	ref := record.RefFor(&pod.ObjectMeta, "v1", "Pod")
	ref.FieldPath = "spec.containers{" + c.Name + "}"
	for _, ic := range pod.Spec.InitContainers {
		if ic.Name == c.Name {
			ref.FieldPath = "spec.initContainers{" + c.Name + "}"
		}
	}
	if _, ok := isEphemeral(pod, c.Name); ok {
		ref.FieldPath = "spec.ephemeralContainers{" + c.Name + "}"
	}
	k.rec.Eventf(ref, eventType, reason, format, args...)
}

// grpcMessage is a runtime error's message without gRPC's
// "rpc error: code = ... desc =" prefix, as upstream's events show it.
func grpcMessage(err error) string {
	if s, ok := grpcstatus.FromError(err); ok {
		return s.Message()
	}
	return err.Error()
}

// startContainers starts what the pod needs next: the first init
// container that has not succeeded (one at a time, in order), or, once all
// have, every container that is not running and should be (new, or exited
// and restartPolicy says restart). It reports whether it started any.
func (k *Kubelet) startContainers(ctx context.Context, pod *corev1.Pod, sb *cri.PodSandbox, obs observedPod) bool {
	if !obs.initDone(pod) {
		for _, c := range pod.Spec.InitContainers {
			l, ok := obs.latest(c.Name)
			switch {
			case ok && l.State == stateExited && l.ExitCode == 0:
				continue // done: the next one
			case ok && l.State != stateExited:
				return false // running: wait for it
			case ok && pod.Spec.RestartPolicy == corev1.RestartPolicyNever:
				return false // failed for good: the pod fails
			}
			return k.startContainer(ctx, pod, c, sb, obs, l, ok)
		}
	}
	started := false
	for _, c := range pod.Spec.Containers {
		l, ok := obs.latest(c.Name)
		if ok && (l.State != stateExited || !shouldRestart(pod.Spec.RestartPolicy, l.ExitCode)) {
			continue
		}
		started = k.startContainer(ctx, pod, c, sb, obs, l, ok) || started
	}
	return k.startEphemeralContainers(ctx, pod, sb, obs) || started
}

func shouldRestart(policy corev1.RestartPolicy, exitCode int32) bool {
	switch policy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return exitCode != 0
	}
	return true
}

// startContainer creates and starts one container: attempt 0, or the
// restart of prev (CrashLoopBackOff while the back-off lasts). Failures
// are recorded as the container's waiting reason, with upstream's words.
func (k *Kubelet) startContainer(ctx context.Context, pod *corev1.Pod, c corev1.Container, sb *cri.PodSandbox,
	obs observedPod, prev observedContainer, restart bool) bool {
	key := pod.UID + "/" + c.Name
	podKey := cache.MetaNamespaceKeyFunc(pod)
	attempt := uint32(0)
	if restart {
		if k.crashBackoff.IsInBackOffSince(key, prev.FinishedAt) {
			k.event(pod, c, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container %s in pod %s", c.Name, format.Pod(pod))
			k.setWaiting(pod.UID, c.Name, &waiting{Reason: "CrashLoopBackOff", Message: fmt.Sprintf(
				"back-off %s restarting failed container=%s pod=%s", k.crashBackoff.Get(key), c.Name, format.Pod(pod))})
			k.queue.AddAfter(podKey, k.crashBackoff.Remaining(key, prev.FinishedAt))
			return false
		}
		k.crashBackoff.Next(key, prev.FinishedAt)
		attempt = prev.Attempt + 1
	}
	if w := k.ensureImage(ctx, pod, c, sb); w != nil {
		k.event(pod, c, corev1.EventTypeWarning, "Failed", "Error: %s", w.Reason)
		k.setWaiting(pod.UID, c.Name, w)
		return false
	}
	cfg, err := k.containerConfig(ctx, pod, c, obs, attempt)
	if err != nil {
		k.event(pod, c, corev1.EventTypeWarning, "Failed", "Error: %v", err)
		k.setWaiting(pod.UID, c.Name, &waiting{Reason: "CreateContainerConfigError", Message: err.Error()})
		return false
	}
	created, err := k.rt.CreateContainer(ctx, &cri.CreateContainerRequest{PodSandboxId: sb.Id, Config: cfg,
		SandboxConfig: k.sandboxConfig(pod, sb.Metadata.Attempt)})
	if err != nil {
		k.event(pod, c, corev1.EventTypeWarning, "Failed", "Error: %s", grpcMessage(err))
		k.setWaiting(pod.UID, c.Name, &waiting{Reason: "CreateContainerError", Message: grpcMessage(err)})
		return false
	}
	k.event(pod, c, corev1.EventTypeNormal, "Created", "Container created")
	if _, err := k.rt.StartContainer(ctx, &cri.StartContainerRequest{ContainerId: created.ContainerId}); err != nil {
		k.event(pod, c, corev1.EventTypeWarning, "Failed", "Error: %s", grpcMessage(err))
		k.setWaiting(pod.UID, c.Name, &waiting{Reason: "RunContainerError", Message: grpcMessage(err)})
		return true // it exists (exited): the status shows it
	}
	k.event(pod, c, corev1.EventTypeNormal, "Started", "Container started")
	k.setWaiting(pod.UID, c.Name, nil)
	k.log.Info("container started", "pod", podKey, "container", c.Name, "attempt", attempt, "id", short(created.ContainerId))
	if !k.runPostStartHook(ctx, pod, c, created.ContainerId, obs.PodIP) {
		return true // killed: it restarts under the restartPolicy like any exit
	}
	// Keep the previous attempt (its exit is lastState, its log is
	// `kubectl logs --previous`), remove older ones.
	for _, old := range obs.Containers[c.Name] {
		if restart && old.Attempt+1 < attempt {
			k.rt.RemoveContainer(ctx, &cri.RemoveContainerRequest{ContainerId: old.ID})
		}
	}
	return true
}

// ensureImage applies imagePullPolicy (upstream's images.imageManager):
// Never and IfNotPresent use a present image as it is — ImageStatus, no
// PullImage; Always, and an absent image under IfNotPresent, pull. A failed
// pull waits with back-off: ErrImagePull, then ImagePullBackOff.
func (k *Kubelet) ensureImage(ctx context.Context, pod *corev1.Pod, c corev1.Container, sb *cri.PodSandbox) *waiting {
	spec := &cri.ImageSpec{Image: c.Image}
	policy := c.ImagePullPolicy
	if policy != corev1.PullAlways {
		st, err := k.img.ImageStatus(ctx, &cri.ImageStatusRequest{Image: spec})
		if err != nil {
			return &waiting{Reason: "ErrImageInspect", Message: fmt.Sprintf("Failed to inspect image %q: %v", c.Image, err)}
		}
		if st.Image != nil {
			k.event(pod, c, corev1.EventTypeNormal, "Pulled", "Container image %q already present on machine and can be accessed by the pod", c.Image)
			return nil
		}
		if policy == corev1.PullNever {
			msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", c.Image)
			k.event(pod, c, corev1.EventTypeWarning, "ErrImageNeverPull", "%s", msg)
			return &waiting{Reason: "ErrImageNeverPull", Message: msg}
		}
	}
	key := pod.UID + "/image/" + c.Image
	if k.pullBackoff.IsInBackOffSinceUpdate(key, k.pullBackoff.Now()) {
		msg := fmt.Sprintf("Back-off pulling image %q", c.Image)
		k.event(pod, c, corev1.EventTypeNormal, "BackOff", "%s", msg)
		k.mu.Lock()
		prev := k.pullErrs[key]
		k.mu.Unlock()
		if prev != "" {
			msg += ": ErrImagePull: " + prev
		}
		return &waiting{Reason: "ImagePullBackOff", Message: msg}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	k.event(pod, c, corev1.EventTypeNormal, "Pulling", "Pulling image %q", c.Image)
	start := time.Now()
	_, err := k.img.PullImage(ctx, &cri.PullImageRequest{Image: spec, SandboxConfig: k.sandboxConfig(pod, sb.Metadata.Attempt)})
	if err != nil {
		k.event(pod, c, corev1.EventTypeWarning, "Failed", "Failed to pull image %q: %v", c.Image, err)
		msg := err.Error() // upstream's evalCRIPullErr: the runtime's error as it is
		k.pullBackoff.Next(key, k.pullBackoff.Now())
		k.mu.Lock()
		k.pullErrs[key] = msg
		k.mu.Unlock()
		k.queue.AddAfter(cache.MetaNamespaceKeyFunc(pod), k.pullBackoff.Get(key))
		k.log.Warn("image pull failed", "pod", cache.MetaNamespaceKeyFunc(pod), "image", c.Image, "err", err)
		return &waiting{Reason: "ErrImagePull", Message: msg}
	}
	k.event(pod, c, corev1.EventTypeNormal, "Pulled", "Successfully pulled image %q in %v", c.Image, time.Since(start).Truncate(time.Millisecond))
	return nil
}

// containerConfig is the CRI's ContainerConfig for c: command and args
// (the runtime combines them with the image's entrypoint and cmd as docker
// does), environment, resources, log path and the labels that say whose
// container it is.
func (k *Kubelet) containerConfig(ctx context.Context, pod *corev1.Pod, c corev1.Container, obs observedPod, attempt uint32) (*cri.ContainerConfig, error) {
	env, err := k.containerEnv(ctx, pod, c, obs.PodIP)
	if err != nil {
		return nil, err
	}
	mounts, err := k.containerMounts(pod, c, env)
	if err != nil {
		return nil, err
	}
	hosts, err := k.etcHostsMount(pod, c, obs.PodIP) // the pod's /etc/hosts: hosts.go
	if err != nil {
		return nil, err
	}
	mounts = append(mounts, hosts...)
	labels := podLabels(pod)
	labels[labelContainerName] = c.Name
	network := cri.NamespaceMode_POD
	if pod.Spec.HostNetwork {
		network = cri.NamespaceMode_NODE
	}
	namespaces := &cri.NamespaceOption{Network: network, Pid: cri.NamespaceMode_CONTAINER, Ipc: cri.NamespaceMode_POD}
	ephemeralNamespaces(pod, c.Name, obs, namespaces)
	return &cri.ContainerConfig{
		Metadata:   &cri.ContainerMetadata{Name: c.Name, Attempt: attempt},
		Image:      &cri.ImageSpec{Image: c.Image},
		Command:    expandAll(c.Command, env), // $(VAR): expansion.go
		Args:       expandAll(c.Args, env),
		WorkingDir: c.WorkingDir,
		Envs:       env,
		Labels:     labels,
		Annotations: map[string]string{
			"io.kubernetes.container.restartCount":           strconv.Itoa(int(attempt)),
			"io.kubernetes.container.terminationMessagePath": c.TerminationMessagePath,
		},
		LogPath: filepath.Join(c.Name, strconv.Itoa(int(attempt))+".log"),
		Mounts:  mounts,
		Stdin:   c.Stdin, StdinOnce: c.StdinOnce, Tty: c.TTY,
		Linux: &cri.LinuxContainerConfig{
			Resources:       linuxResources(c),
			SecurityContext: &cri.LinuxContainerSecurityContext{NamespaceOptions: namespaces},
		},
	}, nil
}

// linuxResources maps requests and limits to cgroup settings as upstream
// does: cpu request → cpu.shares (1 CPU = 1024, at least 2), cpu limit →
// a CFS quota per 100ms period, memory limit → memory.limit_in_bytes.
func linuxResources(c corev1.Container) *cri.LinuxContainerResources {
	r := &cri.LinuxContainerResources{CpuShares: 2}
	if q, ok := c.Resources.Requests[corev1.ResourceCPU]; ok {
		r.CpuShares = max(2, q.MilliValue()*1024/1000)
	} else if q, ok := c.Resources.Limits[corev1.ResourceCPU]; ok { // the request defaults to the limit
		r.CpuShares = max(2, q.MilliValue()*1024/1000)
	}
	if q, ok := c.Resources.Limits[corev1.ResourceCPU]; ok {
		r.CpuPeriod = 100000
		r.CpuQuota = max(1000, q.MilliValue()*100000/1000)
	}
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
		r.MemoryLimitInBytes = q.Value()
	}
	return r
}

// containerEnv resolves env and envFrom: plain values, the downward API's
// fieldRefs, and keys of ConfigMaps and Secrets (read from the apiserver;
// the Node authorizer lets a kubelet read only those its pods reference).
func (k *Kubelet) containerEnv(ctx context.Context, pod *corev1.Pod, c corev1.Container, podIP string) ([]*cri.KeyValue, error) {
	var env []*cri.KeyValue
	serviceEnv, err := k.serviceEnv(ctx, pod) // KUBERNETES_SERVICE_HOST ...: expansion.go
	if err != nil {
		return nil, err
	}
	set := func(name, value string) {
		for _, e := range env {
			if e.Key == name {
				e.Value = []byte(value)
				return
			}
		}
		env = append(env, &cri.KeyValue{Key: name, Value: []byte(value)})
	}
	for _, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil:
			cm, err := rest.Get[corev1.ConfigMap](ctx, k.c, pod.Namespace, from.ConfigMapRef.Name)
			if err != nil {
				if isOptional(from.ConfigMapRef.Optional) && rest.IsNotFound(err) {
					continue
				}
				return nil, err
			}
			for key, v := range cm.Data {
				set(from.Prefix+key, v)
			}
		case from.SecretRef != nil:
			s, err := rest.Get[corev1.Secret](ctx, k.c, pod.Namespace, from.SecretRef.Name)
			if err != nil {
				if isOptional(from.SecretRef.Optional) && rest.IsNotFound(err) {
					continue
				}
				return nil, err
			}
			for key, v := range s.Data {
				set(from.Prefix+key, string(v))
			}
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			set(e.Name, expandEnvValue(e.Value, env, serviceEnv))
			continue
		}
		v, err := k.envValueFrom(ctx, pod, e.ValueFrom, podIP)
		if err != nil {
			return nil, err
		}
		set(e.Name, v)
	}
	return appendServiceEnv(env, serviceEnv), nil
}

func isOptional(b *bool) bool { return b != nil && *b }

func (k *Kubelet) envValueFrom(ctx context.Context, pod *corev1.Pod, src *corev1.EnvVarSource, podIP string) (string, error) {
	switch {
	case src.FieldRef != nil:
		// The fields only the kubelet knows at runtime (upstream's
		// podFieldSelectorRuntimeValue), else the downward API's metadata.
		switch p := src.FieldRef.FieldPath; p {
		case "spec.nodeName":
			return pod.Spec.NodeName, nil
		case "spec.serviceAccountName":
			return pod.Spec.ServiceAccountName, nil
		case "status.podIP", "status.podIPs":
			return podIP, nil
		case "status.hostIP", "status.hostIPs":
			return k.cfg.NodeIP, nil
		default:
			return fieldpath.ExtractFieldPathAsString(pod, p)
		}
	case src.ConfigMapKeyRef != nil:
		ref := src.ConfigMapKeyRef
		cm, err := rest.Get[corev1.ConfigMap](ctx, k.c, pod.Namespace, ref.Name)
		if err != nil {
			if isOptional(ref.Optional) && rest.IsNotFound(err) {
				return "", nil
			}
			return "", err
		}
		v, ok := cm.Data[ref.Key]
		if !ok && !isOptional(ref.Optional) {
			return "", fmt.Errorf("couldn't find key %s in ConfigMap %s/%s", ref.Key, pod.Namespace, ref.Name)
		}
		return v, nil
	case src.SecretKeyRef != nil:
		ref := src.SecretKeyRef
		s, err := rest.Get[corev1.Secret](ctx, k.c, pod.Namespace, ref.Name)
		if err != nil {
			if isOptional(ref.Optional) && rest.IsNotFound(err) {
				return "", nil
			}
			return "", err
		}
		v, ok := s.Data[ref.Key]
		if !ok && !isOptional(ref.Optional) {
			return "", fmt.Errorf("couldn't find key %s in Secret %s/%s", ref.Key, pod.Namespace, ref.Name)
		}
		return string(v), nil
	}
	return "", nil
}
