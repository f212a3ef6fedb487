//go:build linux

package main_test

// End-to-end test of the kubelet's volumes on the real node: a pod with a
// configMap (items, defaultMode), a secret, a downwardAPI volume, an
// emptyDir shared by two containers, a memory-backed emptyDir, a PVC bound
// to a hostPath PV, and the service-account token the ServiceAccount
// admission projects into every pod. The reading container copies what it
// sees, every second, into a hostPath directory (DirectoryOrCreate) that
// the test reads on the node.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/ch05-kubelet/kubelet"
	"kubik/internal/testenv"
)

func TestVolumes(t *testing.T) {
	n := startNode(t)
	out := filepath.Join(n.dir, "hostout") // created by the kubelet: DirectoryOrCreate
	pvDir := filepath.Join(n.dir, "pv")
	if err := os.MkdirAll(pvDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, pvDir, "pv.txt", "from-the-pv")
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(out, name))
		return strings.TrimSpace(string(b))
	}

	// The ServiceAccount admission mounts the token only once "default" exists.
	n.eventually("ServiceAccount default and ConfigMap kube-root-ca.crt", func() (string, bool) {
		r := n.c.Kubectl(t, kubectl133, n.dir, "get", "serviceaccount/default", "configmap/kube-root-ca.crt", "-o", "name")
		return r.Combined(), r.ExitCode == 0
	})
	n.k("create", "configmap", "settings", "--from-literal=greeting=hello", "--from-literal=other=x")
	n.k("create", "secret", "generic", "creds", "--from-literal=password=s3cret")
	n.apply("pv.yaml", `apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-host}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  hostPath: {path: `+pvDir+`, type: Directory}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: claim}
spec:
  storageClassName: manual
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`)
	n.eventually("claim Bound", func() (string, bool) {
		s := n.k("get", "pvc", "claim", "-o", "jsonpath={.status.phase} {.spec.volumeName}")
		return s, s == "Bound pv-host"
	})

	n.apply("vols.yaml", `apiVersion: v1
kind: Pod
metadata:
  name: vols
  labels: {app: vols, tier: test}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: writer
    image: busybox:1.35
    command: [sh, -c, 'echo shared-hello > /shared/msg; exec sleep 3600']
    volumeMounts:
    - {name: shared, mountPath: /shared}
  - name: reader
    image: busybox:1.35
    command:
    - sh
    - -c
    - |
      mount > /out/mounts
      ls /cfg > /out/cfg-ls
      stat -L -c %a /cfg/conf/greeting.txt > /out/cfg-mode
      stat -L -c %a /sec/password > /out/sec-mode
      touch /cfg/new 2> /out/cfg-write
      while true; do
        cat /cfg/conf/greeting.txt > /out/greeting
        cat /shared/msg > /out/shared
        cat /podinfo/labels > /out/labels
        cat /sec/password > /out/password
        cat /data/pv.txt > /out/pv
        echo mem > /mem/x && cat /mem/x > /out/mem
        cat /var/run/secrets/kubernetes.io/serviceaccount/token > /out/token
        cat /var/run/secrets/kubernetes.io/serviceaccount/namespace > /out/namespace
        cat /var/run/secrets/kubernetes.io/serviceaccount/ca.crt > /out/ca.crt
        sleep 1
      done
    volumeMounts:
    - {name: cfg, mountPath: /cfg}
    - {name: sec, mountPath: /sec}
    - {name: podinfo, mountPath: /podinfo}
    - {name: shared, mountPath: /shared, readOnly: true}
    - {name: mem, mountPath: /mem}
    - {name: out, mountPath: /out}
    - {name: data, mountPath: /data}
  volumes:
  - name: cfg
    configMap:
      name: settings
      defaultMode: 0440
      items: [{key: greeting, path: conf/greeting.txt}]
  - name: sec
    secret: {secretName: creds, defaultMode: 0400}
  - name: podinfo
    downwardAPI:
      items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]
  - {name: shared, emptyDir: {}}
  - {name: mem, emptyDir: {medium: Memory, sizeLimit: 16Mi}}
  - name: out
    hostPath: {path: `+out+`, type: DirectoryOrCreate}
  - name: data
    persistentVolumeClaim: {claimName: claim}
`)
	n.eventually("vols Running and its files copied out", func() (string, bool) {
		s := n.k("get", "pod", "vols", "-o", "jsonpath={.status.phase}")
		return s + " " + read("ca.crt"), s == "Running" && read("ca.crt") != ""
	})
	uid := n.k("get", "pod", "vols", "-o", "jsonpath={.metadata.uid}")
	podDir := filepath.Join(n.dir, "kubelet", "pods", uid)

	for file, want := range map[string]string{
		"greeting":  "hello",
		"cfg-ls":    "conf", // only the item, not the key "other"
		"cfg-mode":  "440",
		"sec-mode":  "400",
		"password":  "s3cret",
		"shared":    "shared-hello",
		"labels":    "app=\"vols\"\ntier=\"test\"",
		"pv":        "from-the-pv",
		"mem":       "mem",
		"namespace": "default",
	} {
		if got := read(file); got != want {
			t.Errorf("%s in the container: %q, want %q", file, got, want)
		}
	}
	if w := read("cfg-write"); !strings.Contains(w, "Read-only file system") {
		t.Errorf("a configMap volume is read-only; touch said %q", w)
	}
	if m := read("mounts"); !strings.Contains(m, "tmpfs on /mem type tmpfs") || !strings.Contains(m, "size=16384k") {
		t.Errorf("the memory emptyDir is not a 16Mi tmpfs inside the container:\n%s", m)
	}
	// On the node: upstream's layout, the secret on a tmpfs, the data behind ..data.
	if l, err := os.Readlink(filepath.Join(podDir, "volumes/kubernetes.io~configmap/cfg/conf")); err != nil || l != "..data/conf" {
		t.Errorf("configMap volume: conf -> %q, %v", l, err)
	}
	ls, _ := exec.Command("ls", "-la", filepath.Join(podDir, "volumes/kubernetes.io~configmap/cfg")).CombinedOutput()
	t.Logf("ls -la <pod dir>/volumes/kubernetes.io~configmap/cfg:\n%s", ls)
	mounts, _ := os.ReadFile("/proc/self/mountinfo")
	for _, v := range []string{"kubernetes.io~secret/sec", "kubernetes.io~empty-dir/mem", "kubernetes.io~projected/kube-api-access-"} {
		if !strings.Contains(string(mounts), filepath.Join(podDir, "volumes", v)) {
			t.Errorf("no tmpfs mounted at %s", v)
		}
	}
	if ca, _ := os.ReadFile(filepath.Join(n.dir, "pki", "ca.crt")); len(ca) > 0 && read("ca.crt") != strings.TrimSpace(string(ca)) {
		t.Errorf("ca.crt in the pod differs from the cluster's CA")
	}

	// The projected token is the pod's service account's, bound to the pod.
	kc := filepath.Join(t.TempDir(), "token.kubeconfig")
	writeFile(t, filepath.Dir(kc), filepath.Base(kc), `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "`+n.c.URL+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: "`+read("token")+`"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`)
	who, err := testenvKubectl(t, "--kubeconfig", kc, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	t.Logf("kubectl auth whoami with the projected token: %s", who)
	if err != nil || who != "system:serviceaccount:default:default" {
		t.Errorf("kubectl auth whoami with the pod's token: %q, %v", who, err)
	}

	// A ConfigMap edit reaches the running pod (the volume is written
	// again every minute).
	n.k("patch", "configmap", "settings", "-p", `{"data":{"greeting":"bonjour"}}`)
	patched := time.Now()
	testenv.Eventually(t, "the new greeting in the running pod", 3*time.Minute, func() (string, bool) {
		return read("greeting"), read("greeting") == "bonjour"
	})
	t.Logf("the ConfigMap edit reached the pod after %v", time.Since(patched).Round(time.Second))

	// The termination message: the file at /dev/termination-log, read
	// back into the container's terminated state.
	n.apply("tm.yaml", `apiVersion: v1
kind: Pod
metadata: {name: tm}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox:1.35, command: [sh, -c, 'echo -n all done > /dev/termination-log']}
`)
	n.eventually("tm's termination message", func() (string, bool) {
		s := n.k("get", "pod", "tm", "-o", "jsonpath={.status.phase}/{.status.containerStatuses[0].state.terminated.message}")
		return s, s == "Succeeded/all done"
	})

	// A missing ConfigMap: the pod waits in ContainerCreating, with
	// upstream's FailedMount event; once it exists, the pod runs.
	n.apply("missing.yaml", `apiVersion: v1
kind: Pod
metadata: {name: waits}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox:1.35
    command: [sleep, "3600"]
    volumeMounts: [{name: cfg, mountPath: /cfg}]
  volumes:
  - name: cfg
    configMap: {name: missing}
`)
	n.eventually("FailedMount event for the missing configmap", func() (string, bool) {
		s := n.k("get", "events", "--field-selector", "involvedObject.name=waits,reason=FailedMount", "-o", "jsonpath={.items[*].type} {.items[*].message}")
		return s, strings.Contains(s, `Warning MountVolume.SetUp failed for volume "cfg" : configmap "missing" not found`)
	})
	if s := n.k("get", "pod", "waits", "-o", "jsonpath={.status.phase} {.status.containerStatuses[0].state.waiting.reason}"); s != "Pending ContainerCreating" {
		t.Errorf("pod with a missing configMap: %q, want Pending ContainerCreating", s)
	}
	t.Logf("kubectl get pod waits:\n%s", n.k("get", "pod", "waits"))
	t.Logf("kubectl describe pod waits (events):\n%s", n.k("get", "events", "--field-selector", "involvedObject.name=waits"))
	waitsUID := n.k("get", "pod", "waits", "-o", "jsonpath={.metadata.uid}")
	if entries, _ := os.ReadDir(filepath.Join(n.dir, "kubelet", "pods", waitsUID, "volumes", "kubernetes.io~configmap")); len(entries) != 0 {
		t.Errorf("a half-set-up configMap volume: %v", entries)
	}
	n.k("create", "configmap", "missing", "--from-literal=k=v")
	n.eventually("waits Running once its configmap exists", func() (string, bool) {
		s := n.k("get", "pod", "waits", "-o", "jsonpath={.status.phase}")
		return s, s == "Running"
	})

	// Deleted: the pod's directory and its tmpfs mounts are gone by the
	// time the pod object is.
	n.k("delete", "pod", "vols", "--wait=true")
	if _, err := os.Stat(podDir); !os.IsNotExist(err) {
		t.Errorf("pod directory %s after the pod is gone: %v", podDir, err)
	}
	mounts, _ = os.ReadFile("/proc/self/mountinfo")
	if strings.Contains(string(mounts), podDir) {
		t.Errorf("mounts of the deleted pod left:\n%s", mounts)
	}
	if _, err := os.Stat(filepath.Join(pvDir, "pv.txt")); err != nil {
		t.Errorf("the PV's data must survive the pod: %v", err)
	}
	for _, l := range kubelet.VolumeLeftovers(filepath.Join(n.dir, "kubelet")) {
		if strings.Contains(l, uid) {
			t.Errorf("left of the deleted pod: %s", l)
		}
	}
}

// testenvKubectl runs kubectl 1.33 with exactly args (no admin kubeconfig).
func testenvKubectl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(testenv.Kubectl(t, kubectl133), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	b, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(b)), err
}
