package kubelet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// startTermination stops the pod in the background: its containers with
// the grace period (the runtime sends SIGTERM, then SIGKILL), the
// sandbox, its directories; then the final DELETE with grace period 0.
func (k *Kubelet) startTermination(ctx context.Context, pod *corev1.Pod) {
	if _, busy := k.terminating.LoadOrStore(pod.UID, struct{}{}); busy {
		return
	}
	grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if pod.DeletionGracePeriodSeconds != nil {
		grace = *pod.DeletionGracePeriodSeconds
	} else if pod.Spec.TerminationGracePeriodSeconds != nil {
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	go func() {
		defer k.terminating.Delete(pod.UID)
		key := pod.Namespace + "/" + pod.Name
		start := time.Now()
		for _, cs := range append(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses...) {
			if cs.State.Running != nil {
				k.event(pod, corev1.Container{Name: cs.Name}, corev1.EventTypeNormal, "Killing", "Stopping container %s", cs.Name)
			}
		}
		if err := k.killPod(ctx, pod.UID, pod.Namespace+"_"+pod.Name, grace); err != nil {
			if ctx.Err() == nil {
				k.log.Warn("stopping pod failed; retrying", "pod", key, "err", err)
				k.queue.AddAfter(key, time.Second)
			}
			return
		}
		zero, uid := int64(0), pod.UID
		err := rest.Delete[corev1.Pod](ctx, k.c, pod.Namespace, pod.Name, &metav1.DeleteOptions{GracePeriodSeconds: &zero,
			Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !rest.IsNotFound(err) && !rest.IsConflict(err) {
			k.log.Warn("final delete failed; retrying", "pod", key, "err", err)
			k.queue.AddAfter(key, time.Second)
			return
		}
		k.log.Info("pod stopped and deleted", "pod", key, "gracePeriod", grace, "took", time.Since(start).Round(time.Millisecond))
	}()
}

// killPod stops every container of the pod (in parallel, each with grace
// seconds), then stops and removes its sandboxes and removes its cgroup
// and log directories. nsName is "<namespace>_<name>" for the log dir.
func (k *Kubelet) killPod(ctx context.Context, uid string, nsName string, grace int64) error {
	list, err := k.rt.ListContainers(ctx, &cri.ListContainersRequest{Filter: &cri.ContainerFilter{
		LabelSelector: map[string]string{labelPodUID: uid}}})
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(list.Containers))
	for _, c := range list.Containers {
		if c.State != cri.ContainerState_CONTAINER_RUNNING {
			continue
		}
		wg.Go(func() {
			grace := k.preStopInKillPod(ctx, uid, c.Metadata.Name, c.Id, grace) // the preStop hook first, within the grace period
			if _, err := k.rt.StopContainer(ctx, &cri.StopContainerRequest{ContainerId: c.Id, Timeout: grace}); err != nil {
				errs <- fmt.Errorf("StopContainer %s: %w", short(c.Id), err)
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	sbs, err := k.sandboxes(ctx, uid)
	if err != nil {
		return err
	}
	for _, sb := range sbs {
		if _, err := k.rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			return fmt.Errorf("StopPodSandbox: %w", err)
		}
		if _, err := k.rt.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			return fmt.Errorf("RemovePodSandbox: %w", err)
		}
	}
	// The runtime leaves the pod's cgroup parent and log directory: ours.
	removePodCgroup(k.podCgroup(uid))
	if nsName != "" {
		os.RemoveAll(filepath.Join(k.cfg.PodLogsDir, nsName+"_"+uid))
	}
	if err := k.volumes.UnmountVolumes(uid); err != nil { // the containers are gone: their volumes go too
		return err
	}
	k.forgetPod(uid)
	k.probes.RemovePod(uid)
	k.statuses.RemovePodStatus(uid)
	return nil
}

// removeOrphans removes the sandboxes of pods the apiserver no longer
// has for this node (deleted with grace 0 by someone else, or while the
// kubelet was down).
func (k *Kubelet) removeOrphans(ctx context.Context) {
	known := map[string]bool{}
	for _, p := range k.pods.GetStore().List() {
		known[string(p.UID)] = true
	}
	k.staticUIDs(known)
	resp, err := k.rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{})
	if err != nil {
		return
	}
	for _, sb := range resp.Items {
		uid := sb.Metadata.Uid
		if _, busy := k.terminating.Load(uid); known[uid] || busy {
			continue
		}
		k.log.Info("removing the sandbox of a pod that is gone", "pod", sb.Metadata.Namespace+"/"+sb.Metadata.Name, "sandbox", short(sb.Id))
		if err := k.killPod(ctx, uid, sb.Metadata.Namespace+"_"+sb.Metadata.Name, 0); err != nil {
			k.log.Warn("removing orphaned sandbox failed", "err", err)
		}
	}
}

// Shutdown removes every pod of this node from the runtime (SIGKILL, no
// grace): the program owns its containerd and stops it next. Upstream's
// kubelet leaves pods running when it exits; ours cannot, since the runtime
// goes with it.
func (k *Kubelet) Shutdown(ctx context.Context) error {
	resp, err := k.rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{})
	if err != nil {
		return err
	}
	for _, sb := range resp.Items {
		if err := k.killPod(ctx, sb.Metadata.Uid, sb.Metadata.Namespace+"_"+sb.Metadata.Name, 0); err != nil {
			return err
		}
	}
	k.cleanupOrphanedPodDirs(ctx, true) // and the volumes of pods that never got a sandbox
	k.log.Info("all pods removed from the runtime", "sandboxes", len(resp.Items))
	return nil
}

// removePodCgroup removes /sys/fs/cgroup/<hierarchy><path> in every
// hierarchy (cgroup v1) or /sys/fs/cgroup<path> (v2), deepest first.
func removePodCgroup(path string) {
	dirs, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", path))
	if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", path)); err == nil {
		dirs = append(dirs, filepath.Join("/sys/fs/cgroup", path))
	}
	for _, d := range dirs {
		subs, _ := filepath.Glob(filepath.Join(d, "*"))
		for _, s := range subs {
			if fi, err := os.Stat(s); err == nil && fi.IsDir() {
				os.Remove(s)
			}
		}
		for i := 0; i < 50 && os.Remove(d) != nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	}
}
