package kubelet

// Lifecycle hooks, killing one container and running a command in one
// (upstream's kuberuntime_container.go: startContainer's step 4,
// executePreStopHook, killContainer, RunInContainer;
// kuberuntime_manager.go: computePodActions' liveness and startup kills).
// Package lifecycle runs the hooks' handlers.
//
//	postStart  runs right after StartContainer; a failure kills the container
//	preStop    runs before StopContainer (deletion, a failed probe), within
//	           the grace period: what it takes is deducted from the grace
//	           left for SIGTERM

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch05-kubelet/kubelet/probe"
)

// containerKillReason is why the kubelet kills a container: it picks the
// grace period.
type containerKillReason string

const (
	reasonStartupProbe        containerKillReason = "StartupProbe"
	reasonLivenessProbe       containerKillReason = "LivenessProbe"
	reasonFailedPostStartHook containerKillReason = "FailedPostStartHook"
)

// minimumGracePeriodInSeconds: a container killed by the kubelet always
// gets this long after SIGTERM, whatever the preStop hook took.
const minimumGracePeriodInSeconds = 2

// runPostStartHook runs c's postStart hook, if any, on the container just
// started. On failure it records FailedPostStartHook, kills the container
// (it then restarts under the restartPolicy like any exit) and leaves the
// status's waiting reason PostStartHookError with the hook's message. It
// reports whether the container may go on.
func (k *Kubelet) runPostStartHook(ctx context.Context, pod *corev1.Pod, c corev1.Container, containerID, podIP string) bool {
	if c.Lifecycle == nil || c.Lifecycle.PostStart == nil {
		return true
	}
	msg, err := k.hooks.Run(ctx, pod, &c, containerID, podIP, c.Lifecycle.PostStart)
	if err == nil {
		return true
	}
	k.log.Warn("postStart hook failed", "pod", pod.Namespace+"/"+pod.Name, "container", c.Name, "err", err)
	// Not the message: it could carry secrets into the events.
	k.event(pod, c, corev1.EventTypeWarning, "FailedPostStartHook", "PostStartHook failed")
	if err := k.killContainer(ctx, pod, c, containerID, "FailedPostStartHook", reasonFailedPostStartHook); err != nil {
		k.log.Warn("cannot kill container", "pod", pod.Namespace+"/"+pod.Name, "container", c.Name, "err", err)
	}
	k.setWaiting(pod.UID, c.Name, &waiting{Reason: "PostStartHookError", Message: msg})
	return false
}

// killContainer stops one container as upstream's killContainer: the
// Killing event with message (default "Stopping container <name>"), the
// preStop hook within the grace period, then StopContainer with what is
// left of it (at least 2 s): SIGTERM, SIGKILL when it runs out.
func (k *Kubelet) killContainer(ctx context.Context, pod *corev1.Pod, c corev1.Container, containerID, message string, reason containerKillReason) error {
	grace := terminationGracePeriod(pod, c, reason)
	if message == "" {
		message = "Stopping container " + c.Name
	}
	k.event(pod, c, corev1.EventTypeNormal, "Killing", "%v", message)
	grace = k.runPreStopHook(ctx, pod, c, containerID, grace)
	grace = max(grace, minimumGracePeriodInSeconds)
	k.log.Info("killing container", "pod", pod.Namespace+"/"+pod.Name, "container", c.Name, "reason", reason, "gracePeriod", grace)
	if _, err := k.rt.StopContainer(ctx, &cri.StopContainerRequest{ContainerId: containerID, Timeout: grace}); err != nil {
		return fmt.Errorf("StopContainer %s: %w", short(containerID), err)
	}
	return nil
}

// terminationGracePeriod is upstream's setTerminationGracePeriod: the
// deletion's grace period, else a failed probe's own
// terminationGracePeriodSeconds, else the pod's.
func terminationGracePeriod(pod *corev1.Pod, c corev1.Container, reason containerKillReason) int64 {
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		return *pod.DeletionGracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		if reason == reasonStartupProbe && c.StartupProbe != nil && c.StartupProbe.TerminationGracePeriodSeconds != nil {
			return *c.StartupProbe.TerminationGracePeriodSeconds
		}
		if reason == reasonLivenessProbe && c.LivenessProbe != nil && c.LivenessProbe.TerminationGracePeriodSeconds != nil {
			return *c.LivenessProbe.TerminationGracePeriodSeconds
		}
		return *pod.Spec.TerminationGracePeriodSeconds
	}
	return minimumGracePeriodInSeconds
}

// runPreStopHook runs c's preStop hook, if any and if there is grace left,
// for at most grace seconds, and returns the grace left after it. A failed
// hook records FailedPreStopHook; the container is stopped all the same.
func (k *Kubelet) runPreStopHook(ctx context.Context, pod *corev1.Pod, c corev1.Container, containerID string, grace int64) int64 {
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || grace <= 0 {
		return grace
	}
	start := time.Now()
	podIP := ""
	if st, ok := k.statuses.GetPodStatus(pod.UID); ok {
		podIP = st.PodIP
	} else {
		podIP = pod.Status.PodIP
	}
	hookCtx, cancel := context.WithTimeout(ctx, time.Duration(grace)*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := k.hooks.Run(hookCtx, pod, &c, containerID, podIP, c.Lifecycle.PreStop); err != nil {
			k.log.Warn("preStop hook failed", "pod", pod.Namespace+"/"+pod.Name, "container", c.Name, "err", err)
			k.event(pod, c, corev1.EventTypeWarning, "FailedPreStopHook", "PreStopHook failed")
		}
	}()
	select {
	case <-done:
	case <-hookCtx.Done():
		k.log.Info("preStop hook not completed in grace period", "pod", pod.Namespace+"/"+pod.Name, "container", c.Name, "gracePeriod", grace)
	}
	return grace - int64(time.Since(start).Seconds())
}

// preStopInKillPod runs the preStop hook of container name (its ID
// containerID) of the pod with UID uid, for killPod: the pod comes from
// the informer's cache, as it is still there while it terminates (an
// orphan has none: no hook). It returns the grace left for StopContainer.
func (k *Kubelet) preStopInKillPod(ctx context.Context, uid, name, containerID string, grace int64) int64 {
	pod := k.podByUID(uid)
	if pod == nil || grace <= 0 {
		return grace
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == name && c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
			return max(k.runPreStopHook(ctx, pod, c, containerID, grace), minimumGracePeriodInSeconds)
		}
	}
	return grace
}

func (k *Kubelet) podByUID(uid string) *corev1.Pod {
	if k.pods == nil {
		return nil
	}
	for _, p := range k.pods.GetStore().List() {
		if p.UID == uid {
			return p
		}
	}
	return nil
}

// killUnhealthy kills, in the background, each running container whose
// liveness or startup probe failed (computePodActions): "Container web
// failed liveness probe, will be restarted". The exit then restarts it
// under the restartPolicy, restartCount + 1.
func (k *Kubelet) killUnhealthy(ctx context.Context, pod *corev1.Pod, obs observedPod) {
	for _, c := range pod.Spec.Containers {
		cur, ok := obs.latest(c.Name)
		if !ok || cur.State != stateRunning {
			continue
		}
		var message string
		var reason containerKillReason
		if k.probes.LivenessFailed(cur.ID) {
			message, reason = fmt.Sprintf("Container %s failed liveness probe", c.Name), reasonLivenessProbe
		} else if k.probes.StartupFailed(cur.ID) {
			message, reason = fmt.Sprintf("Container %s failed startup probe", c.Name), reasonStartupProbe
		} else {
			continue
		}
		if pod.Spec.RestartPolicy != corev1.RestartPolicyNever {
			message += ", will be restarted"
		}
		if _, busy := k.killing.LoadOrStore(cur.ID, struct{}{}); busy {
			continue
		}
		// A grace period may last long: the sync worker must not wait.
		go func() {
			defer k.killing.Delete(cur.ID)
			if err := k.killContainer(ctx, pod, c, cur.ID, message, reason); err != nil && ctx.Err() == nil {
				k.log.Warn("cannot kill unhealthy container", "pod", pod.Namespace+"/"+pod.Name, "container", c.Name, "err", err)
			}
			k.queue.Add(cache.MetaNamespaceKeyFunc(pod))
		}()
	}
}

// runtimeRequestTimeout is upstream's --runtime-request-timeout: the time
// a CRI call may take on top of an exec's own timeout.
const runtimeRequestTimeout = 2 * time.Minute

// runInContainer is the kubelet's probe.CommandRunner, for exec probes
// and hooks: the CRI's ExecSync, which the runtime runs next to the
// container's process (same namespaces and cgroup), waiting for its exit.
// The runtime kills it after timeout.
func (k *Kubelet) runInContainer(ctx context.Context, containerID string, cmd []string, timeout time.Duration) ([]byte, error) {
	var cancel context.CancelFunc
	if timeout != 0 {
		ctx, cancel = context.WithTimeout(ctx, runtimeRequestTimeout+timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	resp, err := k.rt.ExecSync(ctx, &cri.ExecSyncRequest{ContainerId: containerID, Cmd: cmd, Timeout: int64(timeout.Seconds())})
	if err != nil {
		if grpcstatus.Code(err) == codes.DeadlineExceeded {
			return nil, fmt.Errorf("%w: %q timed out after %s", probe.ErrCommandTimedOut, strings.Join(cmd, " "), timeout)
		}
		return nil, err
	}
	out := append(resp.Stdout, resp.Stderr...)
	if resp.ExitCode != 0 {
		return out, &probe.CodeExitError{Code: int(resp.ExitCode),
			Err: fmt.Errorf("command '%s' exited with %d: %s", strings.Join(cmd, " "), resp.ExitCode, resp.Stderr)}
	}
	return out, nil
}
