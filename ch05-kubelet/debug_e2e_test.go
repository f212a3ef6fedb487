//go:build linux

package main_test

// End-to-end test of ephemeral containers on a real node with unmodified
// kubectl 1.33 and 1.27: `kubectl debug` adds one to a running pod through
// pods/<name>/ephemeralcontainers, the kubelet starts it in the pod's
// sandbox (in the target's process namespace with --target), reports it in
// status.ephemeralContainerStatuses, never restarts it, and logs and attach
// reach it by name.

import (
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

const debugTargetManifest = `apiVersion: v1
kind: Pod
metadata:
  name: app
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox:1.35
    command: ["sh", "-c", "exec sleep 3601"]
`

func TestKubectlDebug(t *testing.T) {
	n := startNode(t)
	n.apply("debug.yaml", debugTargetManifest)
	n.eventually("app Running", func() (string, bool) {
		out := n.k("get", "pod", "app", "-o", "jsonpath={.status.phase} {.status.containerStatuses[0].ready}")
		return out, out == "Running true"
	})
	for _, v := range []string{kubectl133, "1.27"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			name := "dbg-" + strings.ReplaceAll(v, ".", "")
			kubectl := func(args ...string) testenv.Result { return n.c.Kubectl(t, v, n.dir, args...) }
			k := func(args ...string) string { return n.c.MustKubectl(t, kubectl133, n.dir, args...) }
			eventually := func(what string, f func() (string, bool)) { testenv.Eventually(t, what, 90*time.Second, f) }
			// Non-interactive: kubectl patches the pod and returns.
			if r := kubectl("debug", "app", "--image=busybox:1.35", "--container="+name, "--target=app", "--",
				"sh", "-c", "echo hello; ps -o args; exec sleep 3600"); r.ExitCode != 0 {
				t.Fatalf("kubectl debug: %s", r.Combined())
			}
			status := func(field string) string {
				return k("get", "pod", "app", "-o", `jsonpath={.status.ephemeralContainerStatuses[?(@.name=="`+name+`")]`+field+`}`)
			}
			eventually(name+" running", func() (string, bool) {
				out := status(".state.running.startedAt")
				return out, out != ""
			})
			if img, id, cid := status(".image"), status(".imageID"), status(".containerID"); img != "docker.io/library/busybox:1.35" ||
				!strings.HasPrefix(id, "docker.io/library/busybox@sha256:") && !strings.HasPrefix(id, "sha256:") || !strings.HasPrefix(cid, "containerd://") {
				t.Errorf("status: image %q, imageID %q, containerID %q", img, id, cid)
			}
			if ready, restarts := status(".ready"), status(".restartCount"); ready != "false" || restarts != "0" {
				t.Errorf("status: ready %q, restartCount %q; want false, 0", ready, restarts)
			}
			// Its log: the hello, and ps sees the target's process (the
			// shared process namespace), which it would not in its own.
			eventually(name+"'s log", func() (string, bool) {
				r := kubectl("logs", "app", "-c", name)
				return r.Combined(), r.ExitCode == 0 && strings.HasPrefix(r.Stdout, "hello\n") && strings.Contains(r.Stdout, "sleep 3601")
			})
			// exec into it works by name too.
			if r := kubectl("exec", "app", "-c", name, "--", "echo", "from-exec"); r.ExitCode != 0 || r.Stdout != "from-exec\n" {
				t.Errorf("exec into %s: %s", name, r.Combined())
			}

			// Interactive: kubectl waits for it to run and attaches; stdin
			// reaches it, its output comes back. When it exits it stays
			// terminated (never restarted).
			once := "once-" + strings.ReplaceAll(v, ".", "")
			// containerd ends an attach when its stdin closes (the container
			// keeps its own stdin: kubectl debug does not set stdinOnce), so
			// stdin stays open until the answer is back.
			b, in := startKubectlWithStdin(t, n, v, "debug", "-i", "app", "--image=busybox:1.35", "--container="+once, "--",
				"sh", "-c", "read line; echo got: $line")
			in.Write([]byte("hi from debug\n"))
			eventually("debug -i answers", func() (string, bool) {
				return b.out.String() + b.errOut.String(), b.out.String() == "got: hi from debug\n"
			})
			in.Close()
			if err := b.cmd.Wait(); err != nil {
				t.Errorf("debug -i: %v, stdout %q, stderr %q", err, b.out.String(), b.errOut.String())
			}
			terminated := `jsonpath={.status.ephemeralContainerStatuses[?(@.name=="` + once + `")].restartCount} ` +
				`{.status.ephemeralContainerStatuses[?(@.name=="` + once + `")].state.terminated.reason} {.status.phase}`
			eventually(once+" terminated", func() (string, bool) {
				out := k("get", "pod", "app", "-o", terminated)
				return out, out == "0 Completed Running"
			})
			if r := kubectl("logs", "app", "-c", once); r.Stdout != "got: hi from debug\n" {
				t.Errorf("logs of %s: %s", once, r.Combined())
			}
			// A later sync (the pod's next change, seen in its status)
			// leaves it as it is.
			k("label", "pod", "app", "--overwrite", "synced="+once)
			k("wait", "pod/app", "--for=jsonpath={.metadata.labels.synced}="+once)
			eventually("the app's status after the label", func() (string, bool) {
				out := k("get", "pod", "app", "-o", terminated)
				return out, out == "0 Completed Running"
			})
		})
	}

	// --copy-to: a copy of the pod with the debugger as one more regular
	// container (an ordinary pod create, nothing ephemeral).
	r := n.c.Kubectl(t, kubectl133, n.dir, "debug", "app", "--copy-to=app-copy", "--image=busybox:1.35", "--container=copy",
		"--profile=general", "--", "sh", "-c", "echo copied; exec sleep 3600")
	if r.ExitCode != 0 {
		t.Fatalf("kubectl debug --copy-to: %s", r.Combined())
	}
	n.eventually("app-copy's debugger logs", func() (string, bool) {
		r := n.c.Kubectl(t, kubectl133, n.dir, "logs", "app-copy", "-c", "copy")
		return r.Combined(), r.ExitCode == 0 && r.Stdout == "copied\n"
	})
	n.k("delete", "pod", "app-copy", "--grace-period=1")
}

// startKubectlWithStdin is startKubectl with a stdin the test writes to and
// closes when it wants.
func startKubectlWithStdin(t *testing.T, n *node, version string, args ...string) (*bgKubectl, io.WriteCloser) {
	t.Helper()
	bin := testenv.Kubectl(t, version)
	cmd := exec.Command(bin, append([]string{"--kubeconfig", n.c.Kubeconfig, "--cache-dir", filepath.Join(t.TempDir(), "cache")}, args...)...)
	cmd.Dir = n.dir
	b := &bgKubectl{cmd: cmd, out: &testenv.SyncBuffer{}, errOut: &testenv.SyncBuffer{}}
	cmd.Stdout, cmd.Stderr = b.out, b.errOut
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.stop)
	return b, in
}
