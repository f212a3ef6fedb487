//go:build linux

package main_test

// End-to-end test of chapter 5 on this machine, as root: the ch05 binary
// (chapter 4's cluster + a real kubelet with its own containerd) runs real
// containers, driven with the real kubectl 1.33; the test talks to the
// containerd socket through the CRI itself to check that deleted pods are
// gone from the runtime. After the program's clean shutdown nothing may be
// left: no process, mount, network namespace, link or cgroup of ours.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/ch05-kubelet/kubelet"
	"kubik/internal/testenv"
)

const kubectl133 = "1.33"

func TestRealNode(t *testing.T) {
	n := startNode(t)
	dir, node, netns, rt, k, eventually := n.dir, n.name, n.netns, n.rt, n.k, n.eventually

	// A long-running busybox: Running, with an IP of the node's pod CIDR.
	k("run", "sleeper", "--image=busybox:1.35", "--", "sleep", "3600")
	eventually("sleeper Running with an IP", func() (string, bool) {
		out := k("get", "pod", "sleeper", "-o", "jsonpath={.status.phase} {.status.podIP} {.spec.nodeName} {.status.containerStatuses[0].ready}")
		return out, regexp.MustCompile(`^Running 10\.244\.0\.\d+ ` + node + ` true$`).MatchString(out)
	})
	// The kubelet's events, in upstream's words, about the container.
	eventually("sleeper's events", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.name=sleeper", "-o",
			`jsonpath={range .items[*]}{.source.component}/{.reason}/{.involvedObject.fieldPath}: {.message}{"\n"}{end}`)
		return out, strings.Contains(out, `kubelet/Pulled/spec.containers{sleeper}: Container image "busybox:1.35" already present on machine and can be accessed by the pod`) &&
			strings.Contains(out, "kubelet/Created/spec.containers{sleeper}: Container created") &&
			strings.Contains(out, "kubelet/Started/spec.containers{sleeper}: Container started")
	})
	if wide := k("get", "pods", "-o", "wide"); !regexp.MustCompile(`sleeper\s+1/1\s+Running\s+0\s+\S+\s+10\.244\.0\.\d+\s+` + node).MatchString(wide) {
		t.Errorf("kubectl get pods -o wide:\n%s", wide)
	}

	// A container that exits 3 under restartPolicy Never: the pod Fails.
	k("run", "exit3", "--image=busybox:1.35", "--restart=Never", "--", "sh", "-c", "exit 3")
	eventually("exit3 Failed", func() (string, bool) {
		out := k("get", "pod", "exit3", "-o", "jsonpath={.status.phase} {.status.containerStatuses[0].state.terminated.exitCode} {.status.containerStatuses[0].state.terminated.reason}")
		return out, out == "Failed 3 Error"
	})

	// Init containers run first, in order; env from a ConfigMap and the
	// downward API reaches the container (it checks them itself and exits 0).
	k("create", "configmap", "settings", "--from-literal=greeting=hello")
	writeFile(t, dir, "init.yaml", `apiVersion: v1
kind: Pod
metadata: {name: checker}
spec:
  restartPolicy: Never
  initContainers:
  - {name: first, image: busybox:1.35, command: [sh, -c, "exit 0"]}
  containers:
  - name: main
    image: busybox:1.35
    command: [sh, -c, 'test "$GREETING" = hello && test "$MY_NAME" = checker && test "$MY_IP" != ""']
    env:
    - {name: GREETING, valueFrom: {configMapKeyRef: {name: settings, key: greeting}}}
    - {name: MY_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
    - {name: MY_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}
`)
	k("apply", "-f", "init.yaml")
	eventually("checker Succeeded", func() (string, bool) {
		out := k("get", "pod", "checker", "-o", `jsonpath={.status.phase} {.status.initContainerStatuses[0].state.terminated.reason} {.status.containerStatuses[0].state.terminated.exitCode} {.status.conditions[?(@.type=="Initialized")].status}`)
		return out, out == "Succeeded Completed 0 True"
	})

	// Requests and limits become the container's cgroup settings (cgroup
	// v1 here: cpu.shares, the CFS quota, memory.limit_in_bytes).
	writeFile(t, dir, "limited.yaml", `apiVersion: v1
kind: Pod
metadata: {name: limited}
spec:
  containers:
  - name: main
    image: busybox:1.35
    command: [sleep, "3600"]
    resources:
      requests: {cpu: 100m, memory: 32Mi}
      limits: {cpu: 250m, memory: 64Mi}
`)
	k("apply", "-f", "limited.yaml")
	eventually("limited Running", func() (string, bool) {
		out := k("get", "pod", "limited", "-o", "jsonpath={.status.phase}")
		return out, out == "Running"
	})
	cid := strings.TrimPrefix(k("get", "pod", "limited", "-o", "jsonpath={.status.containerStatuses[0].containerID}"), "containerd://")
	luid := k("get", "pod", "limited", "-o", "jsonpath={.metadata.uid}")
	for file, want := range map[string]string{
		"memory/" + netns + "/pod" + luid + "/" + cid + "/memory.limit_in_bytes": "67108864",
		"cpu/" + netns + "/pod" + luid + "/" + cid + "/cpu.shares":               "102",
		"cpu/" + netns + "/pod" + luid + "/" + cid + "/cpu.cfs_quota_us":         "25000",
	} {
		b, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", file))
		if err != nil {
			t.Logf("cgroup v1 file not readable (another cgroup layout?): %v", err)
			continue
		}
		if got := strings.TrimSpace(string(b)); got != want {
			t.Errorf("%s = %s, want %s", file, got, want)
		}
	}

	// CrashLoopBackOff: a container that keeps failing is restarted with
	// back-off, in upstream's words.
	// 10s after the second exit, 20s after the third ...
	backOffMsg := regexp.MustCompile(`^back-off (\d+m)?\d+s restarting failed container=crasher pod=crasher_default\([-0-9a-f]+\)$`)
	k("run", "crasher", "--image=busybox:1.35", "--", "sh", "-c", "exit 1")
	eventually("crasher in CrashLoopBackOff", func() (string, bool) {
		out := k("get", "pod", "crasher", "-o", "jsonpath={.status.containerStatuses[0].state.waiting.reason}|{.status.containerStatuses[0].state.waiting.message}|{.status.containerStatuses[0].restartCount}|{.status.containerStatuses[0].lastState.terminated.exitCode}")
		f := strings.Split(out, "|")
		return out, len(f) == 4 && f[0] == "CrashLoopBackOff" && backOffMsg.MatchString(f[1]) && f[2] != "0" && f[3] == "1"
	})

	// imagePullPolicy Always pulls, and there is no registry: ErrImagePull,
	// then ImagePullBackOff. Never with an absent image: ErrImageNeverPull.
	k("run", "puller", "--image=busybox", "--image-pull-policy=Always", "--", "sleep", "3600")
	k("run", "neverpull", "--image=nginx:1.27", "--image-pull-policy=Never")
	eventually("puller cannot pull", func() (string, bool) {
		out := k("get", "pod", "puller", "-o", "jsonpath={.status.containerStatuses[0].state.waiting.reason}|{.status.containerStatuses[0].state.waiting.message}")
		const pullErr = `rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/busybox:latest"`
		return out, strings.HasPrefix(out, "ErrImagePull|"+pullErr) ||
			strings.HasPrefix(out, `ImagePullBackOff|Back-off pulling image "busybox": ErrImagePull: `+pullErr)
	})
	eventually("neverpull waits", func() (string, bool) {
		out := k("get", "pod", "neverpull", "-o", "jsonpath={.status.containerStatuses[0].state.waiting.reason}|{.status.containerStatuses[0].state.waiting.message}")
		return out, out == `ErrImageNeverPull|Container image "nginx:1.27" is not present with pull policy of Never`
	})

	// A Deployment becomes available on the real node.
	k("create", "deployment", "web", "--image="+images.Demo, "--replicas=2")
	if out := k("rollout", "status", "deployment/web", "--timeout=120s"); !strings.HasSuffix(out, `deployment "web" successfully rolled out`) {
		t.Fatalf("rollout status:\n%s", out)
	}
	if out := k("get", "deployment", "web", "-o", "jsonpath={.status.availableReplicas}"); out != "2" {
		t.Errorf("available replicas %q, want 2", out)
	}

	// A Job runs to completion (its pod Succeeded, restartPolicy Never).
	k("create", "job", "once", "--image=busybox:1.35", "--", "sh", "-c", "echo done")
	if out := k("wait", "--for=condition=complete", "job/once", "--timeout=90s"); out != "job.batch/once condition met" {
		t.Errorf("kubectl wait job: %q", out)
	}
	if out := k("get", "pods", "-l", "job-name=once", "-o", "jsonpath={.items[*].status.phase}"); out != "Succeeded" {
		t.Errorf("job pod phase %q, want Succeeded", out)
	}

	// Graceful deletion: `sleep` as PID 1 ignores SIGTERM, so the runtime
	// kills it when the grace period ends; then the kubelet removes the
	// sandbox and deletes the pod for good. The runtime has nothing left of it.
	uid := k("get", "pod", "sleeper", "-o", "jsonpath={.metadata.uid}")
	if n := len(podContainers(t, rt, uid)); n != 1 {
		t.Fatalf("the runtime has %d containers of sleeper, want 1", n)
	}
	k("delete", "pod", "sleeper", "--grace-period=2", "--timeout=60s")
	if cs := podContainers(t, rt, uid); len(cs) != 0 {
		t.Errorf("containers of the deleted pod still in the runtime: %v", cs)
	}
	if sbs := podSandboxes(t, rt, uid); len(sbs) != 0 {
		t.Errorf("sandboxes of the deleted pod still in the runtime: %v", sbs)
	}
	eventually("Killing event", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.name=sleeper,reason=Killing", "-o", "jsonpath={.items[*].message}")
		return out, out == "Stopping container sleeper"
	})
	// Its pod cgroup goes too (containerd leaves it to the kubelet).
	if m, _ := filepath.Glob("/sys/fs/cgroup/*/" + netns + "/pod" + uid); len(m) != 0 {
		t.Errorf("cgroups of the deleted pod left: %v", m)
	}
	// The other pods (the Deployment's among them) are still running: the
	// program's shutdown removes them, and the cleanup checks it did.
}

// stopAndCheckClean sends SIGTERM, waits for the program to exit, and
// checks that nothing of the node is left.
func stopAndCheckClean(t *testing.T, p *testenv.Process, rc containerd.Config) {
	syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.Done:
	case <-time.After(2 * time.Minute):
		t.Errorf("the program did not exit within 2 minutes of SIGTERM")
		syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
		<-p.Done
	}
	if rc.Name == "" {
		return // it never started containerd
	}
	if !strings.Contains(p.Logs.String(), `msg="containerd stopped and cleaned up"`) {
		t.Errorf("no clean containerd shutdown in the logs")
	}
	if left := containerd.Leftovers(rc); len(left) != 0 {
		t.Errorf("left behind after shutdown:\n%s", strings.Join(left, "\n"))
		containerd.Cleanup(rc, nil) // do not leave it to the next run
	}
	// The pods' volumes (tmpfs mounts, directories) under the kubelet's
	// root dir, containerd's parent.
	if left := kubelet.VolumeLeftovers(filepath.Dir(rc.Dir)); len(left) != 0 {
		t.Errorf("pods' volumes left behind after shutdown:\n%s", strings.Join(left, "\n"))
		kubelet.CleanupVolumes(filepath.Dir(rc.Dir))
	}
	if out, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(out), rc.Name) {
		t.Errorf("network namespace %s still listed:\n%s", rc.Name, out)
	}
	if out, err := exec.Command("ip", "-o", "link", "show", "cni0").CombinedOutput(); err == nil {
		t.Errorf("a cni0 bridge in the machine's own network namespace:\n%s", out)
	}
}

func ensureDeps(t *testing.T) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "ensure-deps.sh"), containerd.Requirements()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/ensure-deps.sh: %v\n%s", err, out)
	}
	if err := containerd.CheckHost(); err != nil {
		t.Fatal(err)
	}
}

func criClient(t *testing.T, endpoint string) cri.RuntimeServiceClient {
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return cri.NewRuntimeServiceClient(conn)
}

func podContainers(t *testing.T, rt cri.RuntimeServiceClient, uid string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := rt.ListContainers(ctx, &cri.ListContainersRequest{Filter: &cri.ContainerFilter{
		LabelSelector: map[string]string{"io.kubernetes.pod.uid": uid}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range resp.Containers {
		out = append(out, c.Metadata.Name+"/"+c.State.String())
	}
	return out
}

func podSandboxes(t *testing.T, rt cri.RuntimeServiceClient, uid string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{Filter: &cri.PodSandboxFilter{
		LabelSelector: map[string]string{"io.kubernetes.pod.uid": uid}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range resp.Items {
		out = append(out, s.Id[:12]+"/"+s.State.String())
	}
	return out
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
