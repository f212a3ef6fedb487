//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubik/ch01-apiserver/pki"
	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/ch05-kubelet/node5"
	"kubik/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestFlagErrors: without a cluster CA the kubelet needs its identity and
// its API's certificates from files, and says so.
func TestFlagErrors(t *testing.T) {
	bin := testenv.Build(t, "kubik/ch05-kubelet/cmd/kubelet")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "--kubeconfig is required"},
		{[]string{"--kubeconfig", "k"}, "--tls-cert-file, --tls-private-key-file and --client-ca-file are required"},
		{[]string{"--kubeconfig", "k", "--tls-cert-file", "c", "--tls-private-key-file", "k"}, "--client-ca-file are required"},
	} {
		out, err := exec.Command(bin, c.args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: want an error %q, got %v:\n%s", c.args, c.want, err, out)
		}
	}
}

// worker is the kubelet binary running, as a worker runs it, inside a
// network namespace of the test's (the machine) next to a chapter 2
// apiserver, with its identity and its API's certificates from files.
type worker struct {
	t       *testing.T
	sb      *testenv.Sandbox
	c       *testenv.Cluster
	dir     string
	rootDir string
	kubelet *testenv.Process
	rc      containerd.Config
}

const nodeName = "kubelet-e2e"

func startWorker(t *testing.T, extraArgs ...string) *worker {
	if os.Geteuid() != 0 {
		t.Skip("runs containerd and containers: needs root")
	}
	if err := containerd.CheckHost(); err != nil {
		t.Skip(err)
	}
	w := &worker{t: t, sb: testenv.NewSandbox(t), dir: t.TempDir()}
	w.c = testenv.Start(t, testenv.Build(t, "kubik/ch02-etcd-store"), testenv.Options{Sandbox: w.sb})
	if err := images.Build(filepath.Join(w.dir, "images")); err != nil {
		t.Fatal(err)
	}
	// The worker's files, issued by the cluster's CA as the PKI would.
	ca, err := pki.EnsureCA(w.c.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(w.dir, nodeName+".kubeconfig")
	if err := ca.WriteIdentityKubeconfig(kubeconfig, w.c.URL, pki.Node(nodeName)); err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.IssueServingCert(nodeName, []string{nodeName, "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(w.dir, "serving.crt"), certPEM, 0o644)
	os.WriteFile(filepath.Join(w.dir, "serving.key"), keyPEM, 0o600)

	w.rootDir = filepath.Join(w.dir, "kubelet")
	argv := w.sb.Wrap(append([]string{testenv.Build(t, "kubik/ch05-kubelet/cmd/kubelet"),
		"--kubeconfig", kubeconfig, "--hostname-override", nodeName, "--node-ip", "127.0.0.1",
		"--root-dir", w.rootDir, "--image-dir", filepath.Join(w.dir, "images"),
		"--address", "127.0.0.1", "--port", strconv.Itoa(testenv.FreePort(t)),
		"--tls-cert-file", filepath.Join(w.dir, "serving.crt"), "--tls-private-key-file", filepath.Join(w.dir, "serving.key"),
		"--client-ca-file", filepath.Join(w.c.DataDir, "pki", pki.CACertFile)}, extraArgs...)...)
	w.kubelet = testenv.StartProcess(t, argv[0], argv[1:]...)
	w.rc = containerd.Config{Dir: filepath.Join(w.rootDir, "containerd"), Name: node5.RuntimeName(w.rootDir), NetNS: "/run/netns/" + w.sb.Name}
	t.Cleanup(func() {
		// Stopped the clean way first (StartProcess's cleanup kills what is left).
		w.stop()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(w.rc.Dir, "containerd.log"))
			t.Logf("containerd.log:\n%s", log)
		}
		if left := containerd.Leftovers(w.rc); len(left) != 0 {
			t.Errorf("left behind:\n%s", strings.Join(left, "\n"))
			containerd.Cleanup(w.rc, nil)
		}
	})
	return w
}

func (w *worker) kubectl(args ...string) testenv.Result {
	return w.c.Kubectl(w.t, "1.33", w.dir, args...)
}

// nodeReady waits for the Node's Ready condition to be want.
func (w *worker) nodeReady(want string) {
	w.t.Helper()
	testenv.Eventually(w.t, "the Node Ready="+want, 2*time.Minute, func() (string, bool) {
		r := w.kubectl("get", "node", nodeName, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].message}`)
		return r.Combined(), strings.HasPrefix(r.Stdout, want+" ")
	})
}

// runPod runs a busybox pod on the node and waits for its log line,
// read through the apiserver (apiserver → the kubelet API, over the
// certificates given).
func (w *worker) runPod() {
	w.t.Helper()
	pod := `apiVersion: v1
kind: Pod
metadata: {name: hello, namespace: default}
spec:
  nodeName: ` + nodeName + `
  containers:
  - name: c
    image: ` + images.Busybox + `
    imagePullPolicy: Never
    command: [sh, -c, 'echo hello from the kubelet process; exec sleep 3600']
`
	os.WriteFile(filepath.Join(w.dir, "pod.yaml"), []byte(pod), 0o644)
	if r := w.kubectl("apply", "-f", "pod.yaml"); r.ExitCode != 0 {
		w.t.Fatal(r.Combined())
	}
	testenv.Eventually(w.t, "the pod Running", 2*time.Minute, func() (string, bool) {
		r := w.kubectl("get", "pod", "hello", "-o", "jsonpath={.status.phase} {.status.podIP}")
		return r.Combined(), strings.HasPrefix(r.Stdout, "Running 10.")
	})
	testenv.Eventually(w.t, "its log through the apiserver", time.Minute, func() (string, bool) {
		r := w.kubectl("logs", "hello")
		return r.Combined(), strings.Contains(r.Stdout, "hello from the kubelet process")
	})
	// containerd lives in the machine's namespace: the pods' bridge is
	// there, not in the test's own.
	if out, err := exec.Command("ip", "-n", w.sb.Name, "-o", "link", "show", "cni0").CombinedOutput(); err != nil {
		w.t.Errorf("no cni0 bridge in the machine's namespace: %v\n%s", err, out)
	}
}

// stop sends SIGTERM and waits for the exit.
func (w *worker) stop() {
	select {
	case <-w.kubelet.Done:
		return
	default:
	}
	syscall.Kill(w.kubelet.Cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-w.kubelet.Done:
	case <-time.After(2 * time.Minute):
		w.t.Error("the kubelet did not exit within 2 minutes of SIGTERM")
	}
}

// stopClean stops the kubelet and checks it went the clean way: exit 0,
// the pods removed and its containerd stopped.
func (w *worker) stopClean() {
	w.t.Helper()
	w.stop()
	if code := w.kubelet.Cmd.ProcessState.ExitCode(); code != 0 {
		w.t.Fatalf("the kubelet exited %d:\n%s", code, w.kubelet.Logs.String())
	}
	if !strings.Contains(w.kubelet.Logs.String(), `msg="containerd stopped and cleaned up"`) {
		w.t.Errorf("no clean containerd shutdown in the logs:\n%s", w.kubelet.Logs.String())
	}
}

// TestKubeletProcess: the Node turns Ready on chapter 5's bridge network,
// a pod bound to it runs and its log is read, and SIGTERM stops
// everything, leaving nothing behind.
func TestKubeletProcess(t *testing.T) {
	w := startWorker(t)
	w.nodeReady("True")
	w.runPod()
	w.stopClean()
}

// TestKubeletCNIBinDir: with --cni-bin-dir containerd starts with no CNI
// configuration and the Node registers NotReady, without a pod CIDR of
// its own; once the configuration is written where the node agent writes
// it, the Node turns Ready and pods run.
func TestKubeletCNIBinDir(t *testing.T) {
	w := startWorker(t, "--cni-bin-dir", containerd.CNIBinDir)
	w.nodeReady("False")
	if _, err := os.Stat(w.rc.ConfListPath()); err == nil {
		t.Fatalf("a CNI configuration at %s before anyone wrote one", w.rc.ConfListPath())
	}
	// What the node agent does once it knows the node's subnet.
	conf, err := containerd.BridgeNetwork{}.ConfList(containerd.Config{Dir: w.rc.Dir, Name: w.rc.Name, PodCIDR: "10.244.7.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.rc.ConfListPath(), conf, 0o600); err != nil {
		t.Fatal(err)
	}
	w.nodeReady("True")
	w.runPod()
	w.stopClean()
}
