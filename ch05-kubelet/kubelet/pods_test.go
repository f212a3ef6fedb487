package kubelet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
	critest "k8s.io/cri-api/pkg/apis/testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

func isRunningAndReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// A new pod: its sandbox, the image found present (no pull), the
// container created as its spec says, and the status Running.
func TestSyncPodStartsPod(t *testing.T) {
	f := newFixture(t, "busybox:1.36")
	pod := busyboxPod("web", corev1.RestartPolicyAlways, "web")
	c := &pod.Spec.Containers[0]
	c.Command = []string{"sh", "-c", "echo $(GREETING) from $(POD_NAME) > /data/out; sleep 3600"}
	c.Env = []corev1.EnvVar{{Name: "GREETING", Value: "hello"},
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
	pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	pod = f.createPod(pod)

	got := f.waitForPod("web", "Running and Ready", isRunningAndReady)

	sbs := f.runtime.sandboxes(pod.UID)
	if len(sbs) != 1 {
		t.Fatalf("%d sandboxes, want 1", len(sbs))
	}
	if md := sbs[0].Metadata; md.Name != "web" || md.Namespace != "default" || md.Uid != pod.UID || md.Attempt != 0 {
		t.Errorf("sandbox metadata %v", md)
	}
	if calls := f.runtime.imageCalls(); !slices.Contains(calls, "ImageStatus") || slices.Contains(calls, "PullImage") {
		t.Errorf("image service calls %v: want ImageStatus and no PullImage (the image is present)", calls)
	}

	r := f.runtime.createRequest("web", 0)
	if r == nil {
		t.Fatal("no CreateContainer for web")
	}
	if r.PodSandboxId != sbs[0].Id {
		t.Errorf("created in sandbox %s, want %s", r.PodSandboxId, sbs[0].Id)
	}
	cfg := r.Config
	if want := []string{"sh", "-c", "echo hello from web > /data/out; sleep 3600"}; !slices.Equal(cfg.Command, want) {
		t.Errorf("command %q, want %q ($(VAR) expanded)", cfg.Command, want)
	}
	env := map[string]string{}
	for _, kv := range cfg.Envs {
		env[kv.Key] = string(kv.Value)
	}
	if env["GREETING"] != "hello" || env["POD_NAME"] != "web" {
		t.Errorf("env %v", env)
	}
	for k, v := range map[string]string{labelPodUID: pod.UID, labelPodName: "web", labelPodNamespace: "default", labelContainerName: "web"} {
		if cfg.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, cfg.Labels[k], v)
		}
	}
	if cfg.Annotations["io.kubernetes.container.restartCount"] != "0" || cfg.LogPath != "web/0.log" || cfg.Image.Image != "busybox:1.36" {
		t.Errorf("annotations %v, log path %q, image %v", cfg.Annotations, cfg.LogPath, cfg.Image)
	}
	mounts := map[string]string{}
	for _, m := range cfg.Mounts {
		mounts[m.ContainerPath] = m.HostPath
	}
	podDir := filepath.Join(f.root, "pods", pod.UID)
	if want := filepath.Join(podDir, "volumes", "kubernetes.io~empty-dir", "data"); mounts["/data"] != want {
		t.Errorf("/data from %q, want %q", mounts["/data"], want)
	} else if fi, err := os.Stat(want); err != nil || !fi.IsDir() {
		t.Errorf("the emptyDir %s: %v", want, err)
	}
	if hosts, err := os.ReadFile(mounts["/etc/hosts"]); err != nil || !strings.Contains(string(hosts), critest.FakePodSandboxIPs[0]+"\tweb\n") {
		t.Errorf("/etc/hosts from %q: %q, %v", mounts["/etc/hosts"], hosts, err)
	}
	if p := got.Spec.Containers[0].TerminationMessagePath; p != "" && !strings.HasPrefix(mounts[p], filepath.Join(podDir, "containers", "web")+"/") {
		t.Errorf("termination log %s from %q", p, mounts[p])
	}
	if !f.runtime.called("StartContainer") {
		t.Error("StartContainer was not called")
	}

	web, _ := f.runtime.container(pod.UID, "web", 0)
	cs, _ := statusOf(got.Status, "web")
	if cs.State.Running == nil || !cs.Ready || cs.ContainerID != "containerd://"+web.Id || cs.RestartCount != 0 {
		t.Errorf("container status %+v", cs)
	}
	if got.Status.PodIP != critest.FakePodSandboxIPs[0] || got.Status.HostIP != "127.0.0.1" {
		t.Errorf("pod IP %q, host IP %q", got.Status.PodIP, got.Status.HostIP)
	}
}

// A container that exits restarts as its pod's restartPolicy says; an
// exit right after a restart waits (CrashLoopBackOff) 10 s, then 20 s.
func TestSyncPodRestartPolicy(t *testing.T) {
	f := newFixture(t, "busybox:1.36")
	for _, tc := range []struct {
		name     string
		policy   corev1.RestartPolicy
		exitCode int32
		restart  bool
		phase    corev1.PodPhase // when it does not restart
	}{
		{"never-failed", corev1.RestartPolicyNever, 1, false, corev1.PodFailed},
		{"onfailure-succeeded", corev1.RestartPolicyOnFailure, 0, false, corev1.PodSucceeded},
		{"onfailure-failed", corev1.RestartPolicyOnFailure, 1, true, ""},
		{"always-succeeded", corev1.RestartPolicyAlways, 0, true, ""},
	} {
		pod := f.createPod(busyboxPod(tc.name, tc.policy, "web"))
		first := f.waitForContainer(pod.UID, "web", 0)
		f.waitForPod(tc.name, "Running", isRunningAndReady)
		f.runtime.exit(first.Id, tc.exitCode, f.clock.Now())
		if !tc.restart {
			f.waitForPod(tc.name, "phase "+string(tc.phase), func(p *corev1.Pod) bool { return p.Status.Phase == tc.phase })
			f.waitFor(tc.name+": its sandbox stopped", func() bool {
				sbs := f.runtime.sandboxes(pod.UID)
				return len(sbs) == 1 && sbs[0].State == cri.PodSandboxState_SANDBOX_NOTREADY
			})
			if _, ok := f.runtime.container(pod.UID, "web", 1); ok {
				t.Errorf("%s: restarted under restartPolicy %s after exit code %d", tc.name, tc.policy, tc.exitCode)
			}
			continue
		}
		f.waitForContainer(pod.UID, "web", 1) // the first restart is immediate
		p := f.waitForPod(tc.name, "restartCount 1", func(p *corev1.Pod) bool {
			cs, _ := statusOf(p.Status, "web")
			return cs.RestartCount == 1 && cs.State.Running != nil
		})
		if cs, _ := statusOf(p.Status, "web"); cs.LastTerminationState.Terminated == nil ||
			cs.LastTerminationState.Terminated.ExitCode != tc.exitCode {
			t.Errorf("%s: last state %+v, want terminated with exit code %d", tc.name, cs.LastTerminationState, tc.exitCode)
		}
	}

	// Back-off: the restarted container exits again.
	const name = "always-succeeded"
	pod, err := rest.Get[corev1.Pod](context.Background(), f.admin, "default", name)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := f.runtime.container(pod.UID, "web", 1)
	f.runtime.exit(second.Id, 0, f.clock.Now())
	p := f.waitForPod(name, "CrashLoopBackOff", func(p *corev1.Pod) bool { return waitingReason(p.Status, "web") == "CrashLoopBackOff" })
	cs, _ := statusOf(p.Status, "web")
	if want := "back-off 10s restarting failed container=web pod=" + name + "_default(" + pod.UID + ")"; cs.State.Waiting.Message != want {
		t.Errorf("waiting message %q, want %q", cs.State.Waiting.Message, want)
	}
	if _, ok := f.runtime.container(pod.UID, "web", 2); ok {
		t.Fatal("restarted during the back-off")
	}
	f.clock.Step(10 * time.Second)
	third := f.waitForContainer(pod.UID, "web", 2)
	f.waitForPod(name, "restartCount 2", func(p *corev1.Pod) bool {
		cs, _ := statusOf(p.Status, "web")
		return cs.RestartCount == 2 && cs.State.Running != nil
	})
	f.runtime.exit(third.Id, 0, f.clock.Now())
	p = f.waitForPod(name, "CrashLoopBackOff again", func(p *corev1.Pod) bool {
		return waitingReason(p.Status, "web") == "CrashLoopBackOff" && strings.HasPrefix(p.Status.ContainerStatuses[0].State.Waiting.Message, "back-off 20s ")
	})
	f.clock.Step(10 * time.Second)
	sandbox := f.runtime.sandboxes(pod.UID)[0].Id
	synced := f.runtime.syncs(sandbox)
	f.waitFor("two syncs 10 s into the back-off", func() bool { return f.runtime.syncs(sandbox) >= synced+2 })
	if _, ok := f.runtime.container(pod.UID, "web", 3); ok {
		t.Fatal("restarted 10 s into a back-off of 20 s")
	}
	f.clock.Step(10 * time.Second)
	f.waitForContainer(pod.UID, "web", 3)
}

// A deleted pod: its containers stopped with the grace period, its
// sandbox stopped and removed, its directory removed, then the final
// delete.
func TestSyncPodDeletion(t *testing.T) {
	f := newFixture(t, "busybox:1.36")
	pod := f.createPod(busyboxPod("doomed", corev1.RestartPolicyAlways, "web", "sidecar"))
	web := f.waitForContainer(pod.UID, "web", 0)
	sidecar := f.waitForContainer(pod.UID, "sidecar", 0)
	f.waitForPod("doomed", "Running", isRunningAndReady)
	podDir := filepath.Join(f.root, "pods", pod.UID)
	if _, err := os.Stat(podDir); err != nil {
		t.Fatalf("no pod directory: %v", err)
	}

	grace := int64(7)
	if err := rest.Delete[corev1.Pod](context.Background(), f.admin, "default", "doomed", &metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	f.waitFor("the pod's final delete", func() bool {
		_, err := rest.Get[corev1.Pod](context.Background(), f.admin, "default", "doomed")
		return rest.IsNotFound(err)
	})
	for _, c := range []*cri.ContainerStatus{web, sidecar} {
		got, _ := f.runtime.container(pod.UID, c.Metadata.Name, 0)
		if got.State != cri.ContainerState_CONTAINER_EXITED {
			t.Errorf("container %s: %v, want exited", c.Metadata.Name, got.State)
		}
		if timeout, ok := f.runtime.stopTimeout(c.Id); !ok || timeout != grace {
			t.Errorf("container %s: StopContainer timeout %d (called: %v), want the grace period %d", c.Metadata.Name, timeout, ok, grace)
		}
	}
	if !f.runtime.called("StopPodSandbox") || !f.runtime.called("RemovePodSandbox") {
		t.Errorf("runtime calls %v: want StopPodSandbox and RemovePodSandbox", f.runtime.rt.GetCalls())
	}
	if sbs := f.runtime.sandboxes(pod.UID); len(sbs) != 0 {
		t.Errorf("sandboxes left: %v", sbs)
	}
	if _, err := os.Stat(podDir); !os.IsNotExist(err) {
		t.Errorf("pod directory %s: %v, want removed", podDir, err)
	}
}

// Init containers run one at a time, in order, each after the previous
// one exited 0; then the containers.
func TestSyncPodInitContainersInOrder(t *testing.T) {
	f := newFixture(t, "busybox:1.36")
	pod := busyboxPod("init", corev1.RestartPolicyAlways, "main")
	for _, name := range []string{"first", "second"} {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, corev1.Container{Name: name, Image: "busybox:1.36", Command: []string{"true"}})
	}
	pod = f.createPod(pod)
	var created []string
	for _, name := range []string{"first", "second"} {
		c := f.waitForContainer(pod.UID, name, 0)
		p := f.waitForPod("init", name+" running", func(p *corev1.Pod) bool {
			cs, _ := statusOf(p.Status, name)
			return cs.State.Running != nil
		})
		created = append(created, name)
		if got := f.runtime.createdNames(); !slices.Equal(got, created) {
			t.Fatalf("while %s runs, created %v; want %v", name, got, created)
		}
		if p.Status.Phase != corev1.PodPending || waitingReason(p.Status, "main") != "PodInitializing" {
			t.Errorf("while %s runs: phase %s, main waiting for %q", name, p.Status.Phase, waitingReason(p.Status, "main"))
		}
		f.runtime.exit(c.Id, 0, f.clock.Now())
	}
	f.waitForContainer(pod.UID, "main", 0)
	p := f.waitForPod("init", "Running", isRunningAndReady)
	if got, want := f.runtime.createdNames(), []string{"first", "second", "main"}; !slices.Equal(got, want) {
		t.Errorf("created %v, want %v", got, want)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodInitialized && c.Status != corev1.ConditionTrue {
			t.Errorf("Initialized %s", c.Status)
		}
	}
}

// A failed pull: ErrImagePull, then ImagePullBackOff without another pull
// while the back-off lasts, then pulls again after 10 s, then after 20 s.
func TestSyncPodImagePullBackOff(t *testing.T) {
	f := newFixture(t) // no image present
	const image = "kubik.local/missing:1.0"
	for range 2 {
		f.runtime.img.InjectError("PullImage", errors.New("pull access denied, repository does not exist"))
	}
	pod := busyboxPod("pull", corev1.RestartPolicyAlways, "web")
	pod.Spec.Containers[0].Image = image
	pod = f.createPod(pod)

	// ErrImagePull lasts until the next sync, a moment later: its event stays.
	f.waitFor("the event Failed: Error: ErrImagePull", func() bool {
		return f.hasEvent("pull", "Failed", "Error: ErrImagePull")
	})
	p := f.waitForPod("pull", "ImagePullBackOff", func(p *corev1.Pod) bool { return waitingReason(p.Status, "web") == "ImagePullBackOff" })
	cs, _ := statusOf(p.Status, "web")
	if want := `Back-off pulling image "` + image + `": ErrImagePull: `; !strings.HasPrefix(cs.State.Waiting.Message, want) {
		t.Errorf("ImagePullBackOff message %q, want it to start with %q", cs.State.Waiting.Message, want)
	}
	if n := f.runtime.pullCount(); n != 1 {
		t.Fatalf("%d pulls during the back-off, want 1", n)
	}

	f.clock.Step(10 * time.Second)
	f.waitFor("the second pull, 10 s after the first", func() bool { return f.runtime.pullCount() == 2 })
	if d := f.k.pullBackoff.Get(pod.UID + "/image/" + image); d != 20*time.Second {
		t.Errorf("back-off after the second failure %v, want 20s", d)
	}
	f.clock.Step(20 * time.Second)
	f.waitForContainer(pod.UID, "web", 0) // the third pull succeeds
	f.waitForPod("pull", "Running", isRunningAndReady)
	if n := f.runtime.pullCount(); n != 3 {
		t.Errorf("%d pulls, want 3", n)
	}
}
