//go:build linux

package main_test

// End-to-end tests of the kubelet's life cycle on this machine, as root:
// static pods from --pod-manifest-path with their mirror pods, a kubelet
// restart (SIGHUP) that re-adopts the running pods, and what a container
// gets from the kubelet besides its image: $(VAR) expansion, Service
// variables, /etc/resolv.conf and hostPorts.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

const staticWeb = `apiVersion: v1
kind: Pod
metadata:
  name: static-web
  labels: {tier: control-plane}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: web
    image: busybox:1.35
    command: [sleep, "3600"]
`

func TestStaticPods(t *testing.T) {
	manifests := t.TempDir()
	n := startNode(t, "--pod-manifest-path", manifests, "--file-check-frequency", "1s")
	k, eventually := n.k, n.eventually
	mirror := "static-web-" + n.name

	// A manifest dropped into the directory runs, and shows in the
	// apiserver as a mirror pod <name>-<node>, owned by the Node.
	writeFile(t, manifests, "web.yaml", staticWeb)
	var hash, cid, mirrorUID string
	eventually("the mirror pod Running", func() (string, bool) {
		r := n.c.Kubectl(t, kubectl133, n.dir, "get", "pod", mirror, "-o", `jsonpath={.status.phase} {.metadata.annotations.kubernetes\.io/config\.source} {.metadata.annotations.kubernetes\.io/config\.hash} {.metadata.annotations.kubernetes\.io/config\.mirror} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} sa={.spec.serviceAccountName} {.status.containerStatuses[0].containerID} {.metadata.uid}`)
		f := strings.Fields(r.Stdout)
		if len(f) != 8 || f[0] != "Running" {
			return r.Combined(), false
		}
		hash, cid, mirrorUID = f[2], f[6], f[7]
		return r.Stdout, f[1] == "file" && f[3] == hash && f[4] == "Node/"+n.name && f[5] == "sa="
	})
	if seen := k("get", "pod", mirror, "-o", `jsonpath={.metadata.annotations.kubernetes\.io/config\.seen}`); !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$`).MatchString(seen) {
		t.Errorf("config.seen = %q", seen)
	}
	if out := k("get", "pods"); !regexp.MustCompile(`(?m)^` + mirror + `\s+1/1\s+Running\s+0\s`).MatchString(out) {
		t.Errorf("kubectl get pods:\n%s", out)
	}
	// In the runtime the pod has the static pod's UID (the hash), not the mirror's.
	if sbs := podSandboxes(t, n.rt, hash); len(sbs) != 1 {
		t.Errorf("sandboxes of the static pod %s: %v", hash, sbs)
	}
	if mirrorUID == hash {
		t.Errorf("the mirror pod has the static pod's UID %s: the apiserver gives it one of its own", hash)
	}

	// Deleting the mirror pod deletes nothing that runs: the kubelet
	// creates the mirror again, and the container is the same. (--wait=false:
	// kubectl's wait may miss the deletion when the new mirror comes first.)
	k("delete", "pod", mirror, "--wait=false")
	eventually("the mirror pod back, same container", func() (string, bool) {
		r := n.c.Kubectl(t, kubectl133, n.dir, "get", "pod", mirror, "-o", `jsonpath={.metadata.uid} {.status.phase} {.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount}`)
		f := strings.Fields(r.Stdout)
		return r.Combined(), len(f) == 4 && f[0] != mirrorUID && f[1] == "Running" && f[2] == cid && f[3] == "0"
	})

	// A kubelet restart: the same manifest is the same pod (same UID, the
	// hash), so the new kubelet carries on with its container.
	restartKubelet(t, n)
	n.eventually("the static pod after the restart", func() (string, bool) {
		out := n.p.Logs.String()
		return "", regexp.MustCompile(`msg="static pod" .*pod=default/` + mirror + ` uid=` + hash + ` op=ADD`).MatchString(out[strings.LastIndex(out, "kubelet restarting"):])
	})
	// A mirror replaced by the new kubelet's hand proves it syncs the static pod.
	mirrorUID = k("get", "pod", mirror, "-o", "jsonpath={.metadata.uid}")
	k("delete", "pod", mirror, "--wait=false")
	eventually("the mirror pod back after the restart, same container", func() (string, bool) {
		out := k("get", "pod", mirror, "--ignore-not-found", "-o", `jsonpath={.metadata.uid} {.status.phase} {.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount}`)
		f := strings.Fields(out)
		return out, len(f) == 4 && f[0] != mirrorUID && f[1] == "Running" && f[2] == cid && f[3] == "0"
	})
	if sbs := podSandboxes(t, n.rt, hash); len(sbs) != 1 {
		t.Errorf("sandboxes of the static pod after the restart: %v", sbs)
	}

	// An edited manifest is another pod: the old one stops, the new one
	// runs under the same name, the mirror is replaced.
	writeFile(t, manifests, "web.yaml", strings.Replace(staticWeb, `"3600"`, `"3601"`, 1))
	var newHash string
	eventually("the edited static pod Running", func() (string, bool) {
		out := k("get", "pod", mirror, "--ignore-not-found", "-o", `jsonpath={.metadata.annotations.kubernetes\.io/config\.mirror} {.status.phase} {.status.containerStatuses[0].containerID}`)
		f := strings.Fields(out)
		if len(f) == 3 {
			newHash = f[0]
		}
		return out, len(f) == 3 && f[0] != hash && f[1] == "Running" && f[2] != cid
	})
	eventually("the old static pod gone from the runtime", func() (string, bool) {
		sbs := podSandboxes(t, n.rt, hash)
		return strings.Join(sbs, " "), len(sbs) == 0
	})

	// A removed manifest: the pod stops, the mirror goes.
	os.Remove(filepath.Join(manifests, "web.yaml"))
	eventually("the mirror pod gone", func() (string, bool) {
		out := k("get", "pods", mirror, "--ignore-not-found")
		return out, out == ""
	})
	eventually("the static pod gone from the runtime", func() (string, bool) {
		sbs := podSandboxes(t, n.rt, newHash)
		return strings.Join(sbs, " "), len(sbs) == 0
	})
}

func TestKubeletRestart(t *testing.T) {
	n := startNode(t) // the kubelet API on a port of its own: the new kubelet must bind it again
	k, eventually := n.k, n.eventually

	// greeter: $(VAR) expansion in env and command, the Service variables,
	// and the node's resolver (no --cluster-dns: ClusterFirst falls back
	// to Default). resolver: dnsPolicy None. web: a hostPort.
	n.apply("pods.yaml", `apiVersion: v1
kind: Pod
metadata: {name: greeter}
spec:
  terminationGracePeriodSeconds: 1
  hostAliases: [{ip: 10.1.2.3, hostnames: [foo.local, bar.local]}]
  containers:
  - name: main
    image: busybox:1.35
    env:
    - {name: GREETING, value: hello}
    - {name: BOTH, value: "$(GREETING) world $$(GREETING) $(UNDEFINED)"}
    command:
    - sh
    - -c
    - |
      echo '$(GREETING) $$(GREETING) $(KUBERNETES_SERVICE_HOST) $(NOPE)'
      echo "BOTH=$BOTH"
      cat /etc/resolv.conf
      cat /etc/hosts
      exec sleep 3600
---
apiVersion: v1
kind: Pod
metadata: {name: resolver}
spec:
  terminationGracePeriodSeconds: 1
  dnsPolicy: None
  dnsConfig:
    nameservers: [10.96.0.10]
    searches: [svc.example]
    options: [{name: ndots, value: "2"}]
  containers:
  - {name: main, image: busybox:1.35, command: [sh, -c, "cat /etc/resolv.conf; exec sleep 3600"]}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: web
    image: kubik.local/demo:1.0
    ports: [{containerPort: 8080, hostPort: 18080}]
---
apiVersion: v1
kind: Pod
metadata: {name: doomed}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: main, image: busybox:1.35, command: [sleep, "3600"]}
`)
	pods := []string{"greeter", "resolver", "web", "doomed"}
	before := map[string]string{} // pod -> uid containerID
	for _, p := range pods {
		eventually(p+" Running", func() (string, bool) {
			out := k("get", "pod", p, "-o", "jsonpath={.status.phase} {.metadata.uid} {.status.containerStatuses[0].containerID}")
			f := strings.Fields(out)
			if len(f) == 3 && f[0] == "Running" {
				before[p] = f[1] + " " + f[2]
			}
			return out, before[p] != ""
		})
	}

	// $(VAR): expanded when defined, $$ escapes, undefined stays.
	svcIP := k("get", "service", "kubernetes", "-o", "jsonpath={.spec.clusterIP}")
	greeter := containerLog(t, n, "greeter", "# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar.local\n")
	for _, want := range []string{"hello $(GREETING) " + svcIP + " $(NOPE)\n", "BOTH=hello world $(GREETING) $(UNDEFINED)\n"} {
		if !strings.Contains(greeter, want) {
			t.Errorf("greeter's output has no %q:\n%s", want, greeter)
		}
	}
	// DNS: the node's nameservers (ClusterFirst without --cluster-dns), and
	// the warning upstream records.
	hostResolv, _ := os.ReadFile("/etc/resolv.conf")
	for _, line := range strings.Split(string(hostResolv), "\n") {
		if strings.HasPrefix(line, "nameserver ") && !strings.Contains(greeter, line+"\n") {
			t.Errorf("greeter's /etc/resolv.conf has no %q:\n%s", line, greeter)
		}
	}
	// /etc/hosts: written by the kubelet, with the pod's IP and hostAliases.
	greeterIP := k("get", "pod", "greeter", "-o", "jsonpath={.status.podIP}")
	if !strings.Contains(greeter, "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n") || !strings.Contains(greeter, "\n"+greeterIP+"\tgreeter\n") {
		t.Errorf("greeter's /etc/hosts:\n%s", greeter)
	}
	uid := strings.Fields(before["greeter"])[0]
	wantEvent := `Warning MissingClusterDNS pod: "greeter_default(` + uid + `)". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`
	eventually("MissingClusterDNS event", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.name=greeter,reason=MissingClusterDNS", "-o", `jsonpath={range .items[*]}{.type} {.reason} {.message}{"\n"}{end}`)
		return out, strings.Contains(out, wantEvent)
	})
	if out := containerLog(t, n, "resolver", "options"); out != "search svc.example\nnameserver 10.96.0.10\noptions ndots:2\n" {
		t.Errorf("resolver's /etc/resolv.conf (dnsPolicy None):\n%s", out)
	}
	// hostPort: <node address>:18080 reaches the pod, from the node's network namespace.
	eventually("hostPort 18080", func() (string, bool) {
		out, err := exec.Command("nsenter", "--net=/run/netns/"+n.netns, "curl", "-sS", "--max-time", "5", "http://10.244.0.1:18080/").CombinedOutput()
		return string(out), err == nil && strings.HasPrefix(string(out), "Hello from web")
	})

	// The restart: a new kubelet, nothing in memory, finds the pods' sandboxes
	// and containers and leaves them be.
	restartKubelet(t, n)
	k("delete", "pod", "doomed") // waits until the new kubelet has stopped it and sent the final DELETE
	if sbs := podSandboxes(t, n.rt, strings.Fields(before["doomed"])[0]); len(sbs) != 0 {
		t.Errorf("doomed's sandboxes after its deletion: %v", sbs)
	}
	k("run", "after", "--image=busybox:1.35", "--", "sleep", "3600")
	eventually("a pod created after the restart Running", func() (string, bool) {
		out := k("get", "pod", "after", "-o", "jsonpath={.status.phase}")
		return out, out == "Running"
	})
	for _, p := range pods[:3] {
		out := k("get", "pod", p, "-o", "jsonpath={.status.phase} {.metadata.uid} {.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount}")
		if out != "Running "+before[p]+" 0" {
			t.Errorf("%s after the restart: %q, want %q", p, out, "Running "+before[p]+" 0")
		}
		if sbs := podSandboxes(t, n.rt, strings.Fields(before[p])[0]); len(sbs) != 1 {
			t.Errorf("%s's sandboxes after the restart: %v", p, sbs)
		}
	}
	if c := strings.Count(n.p.Logs.String(), `msg="serving the kubelet API"`); c != 2 || strings.Contains(n.p.Logs.String(), "cannot serve the kubelet API") {
		t.Errorf("the kubelet API served %d times, want 2: the new kubelet binds the old one's port again", c)
	}
	if c := len(regexp.MustCompile(`msg="sandbox started" .*pod=default/greeter `).FindAllString(n.p.Logs.String(), -1)); c != 1 {
		t.Errorf("greeter's sandbox started %d times", c)
	}
}

// restartKubelet sends SIGHUP (the program's `systemctl restart kubelet`)
// and waits for the new kubelet.
func restartKubelet(t *testing.T, n *node) {
	t.Helper()
	starts := strings.Count(n.p.Logs.String(), "kubelet started again")
	if err := n.p.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	n.eventually("kubelet restarted", func() (string, bool) {
		out := n.p.Logs.String()
		return "", strings.Count(out, "kubelet started again") == starts+1 && strings.Contains(out, `msg="kubelet restarting"`)
	})
}

// containerLog is what pod's first container wrote, once it has written
// until, read from the log file the runtime keeps (CRI format:
// "<time> stdout F <line>").
func containerLog(t *testing.T, n *node, pod, until string) string {
	t.Helper()
	id := strings.TrimPrefix(n.k("get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].containerID}"), "containerd://")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out string
	n.eventually(pod+"'s output", func() (string, bool) {
		st, err := n.rt.ContainerStatus(ctx, &cri.ContainerStatusRequest{ContainerId: id})
		if err != nil {
			return err.Error(), false
		}
		b, err := os.ReadFile(st.Status.LogPath)
		if err != nil {
			return err.Error(), false
		}
		var sb strings.Builder
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if f := strings.SplitN(line, " ", 4); len(f) == 4 {
				sb.WriteString(f[3])
			}
		}
		out = sb.String()
		return out, strings.Contains(out, until)
	})
	return out
}
