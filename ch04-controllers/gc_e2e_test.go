package main_test

// End-to-end test of chapter 4's garbage collector, namespace,
// serviceaccount and persistentvolume-binder controllers, with the real
// kubectl 1.33 against the real ch04 binary and its hollow nodes:
// `kubectl delete deploy` takes the ReplicaSets and pods along,
// --cascade=orphan leaves them ownerless, --cascade=foreground deletes the
// Deployment last, `kubectl delete ns` empties the namespace and then
// deletes it, a deleted "default" ServiceAccount comes back, and a claim
// binds to a hostPath PersistentVolume.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

func TestGarbageCollectionNamespacesServiceAccountsVolumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	const v = "1.33"
	testenv.Kubectl(t, v)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=2"}})
	dir := t.TempDir()
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, v, dir, args...) }
	// eventually polls until f is satisfied; the limit only turns a hang
	// into a failure with the last output.
	eventually := func(what string, f func() (string, bool)) { t.Helper(); testenv.Eventually(t, what, 90*time.Second, f) }
	count := func(want int, args ...string) func() (string, bool) {
		return func() (string, bool) {
			out := k(append(args, "-o", "name")...)
			n := 0
			if out != "" {
				n = len(strings.Split(out, "\n"))
			}
			return out, n == want
		}
	}
	deployment := func(name string, ns ...string) {
		t.Helper()
		args := []string{"create", "deployment", name, "--image=nginx", "--replicas=2"}
		k(append(args, ns...)...)
		eventually(name+" pods Running", func() (string, bool) {
			out := k(append([]string{"get", "pods", "-l", "app=" + name, "-o", "jsonpath={range .items[*]}{.status.phase}{\"\\n\"}{end}"}, ns...)...)
			return out, out == "Running\nRunning"
		})
	}

	// Background (kubectl's default): the Deployment goes at once, its
	// ReplicaSet and pods after it.
	deployment("web")
	k("delete", "deployment", "web")
	eventually("web's ReplicaSets collected", count(0, "get", "rs", "-l", "app=web"))
	eventually("web's pods collected", count(0, "get", "pods", "-l", "app=web"))

	// Orphan: the ReplicaSet and the pods stay, without the owner reference.
	deployment("keep")
	k("delete", "deployment", "keep", "--cascade=orphan")
	if out := k("get", "deployments", "-o", "name"); strings.Contains(out, "keep") {
		t.Errorf("deployment keep still there after an orphaning delete: %s", out)
	}
	eventually("keep's ReplicaSet ownerless", func() (string, bool) {
		out := k("get", "rs", "-l", "app=keep", "-o", "jsonpath={range .items[*]}{.metadata.name} owners={.metadata.ownerReferences}{\"\\n\"}{end}")
		return out, strings.HasPrefix(out, "keep-") && strings.HasSuffix(out, "owners=") && !strings.Contains(out, "\n")
	})
	if out := k("get", "pods", "-l", "app=keep", "-o", "jsonpath={range .items[*]}{.status.phase}{\"\\n\"}{end}"); out != "Running\nRunning" {
		t.Errorf("keep's pods after an orphaning delete: %q, want two Running", out)
	}

	// Foreground: the Deployment waits, with the foregroundDeletion
	// finalizer, until its ReplicaSet and pods are gone.
	deployment("fg")
	k("delete", "deployment", "fg", "--cascade=foreground", "--wait=false")
	eventually("fg's pods collected", count(0, "get", "pods", "-l", "app=fg"))
	eventually("fg's ReplicaSets collected", count(0, "get", "rs", "-l", "app=fg"))
	eventually("deployment fg deleted last", func() (string, bool) {
		r := c.Kubectl(t, v, dir, "get", "deployment", "fg")
		return r.Combined(), r.ExitCode != 0 && strings.Contains(r.Stderr, `deployments.apps "fg" not found`)
	})

	// Namespace: its content goes, then the namespace.
	k("create", "namespace", "x")
	k("create", "configmap", "settings", "-n", "x", "--from-literal=a=b")
	k("create", "secret", "generic", "token", "-n", "x", "--from-literal=t=s")
	deployment("app", "-n", "x")
	k("delete", "namespace", "x", "--wait=false")
	eventually("namespace x Terminating", func() (string, bool) {
		r := c.Kubectl(t, v, dir, "get", "namespace", "x", "-o", "jsonpath={.status.phase}")
		return r.Combined(), r.Stdout == "Terminating" || r.ExitCode != 0
	})
	eventually("namespace x deleted", func() (string, bool) {
		r := c.Kubectl(t, v, dir, "get", "namespace", "x")
		return r.Combined(), r.ExitCode != 0 && strings.Contains(r.Stderr, `namespaces "x" not found`)
	})
	if out := k("get", "pods,rs,deployments,configmaps,secrets", "-n", "x", "-o", "name"); out != "" {
		t.Errorf("content left behind in the deleted namespace x:\n%s", out)
	}

	// ServiceAccounts: every namespace has "default"; deleted, it comes back.
	k("create", "namespace", "team")
	eventually("default ServiceAccount in a new namespace", func() (string, bool) {
		r := c.Kubectl(t, v, dir, "get", "serviceaccount", "default", "-n", "team", "-o", "name")
		return r.Combined(), r.Stdout == "serviceaccount/default\n"
	})
	uid := k("get", "serviceaccount", "default", "-o", "jsonpath={.metadata.uid}")
	k("delete", "serviceaccount", "default")
	eventually("default ServiceAccount recreated", func() (string, bool) {
		r := c.Kubectl(t, v, dir, "get", "serviceaccount", "default", "-o", "jsonpath={.metadata.uid}")
		return r.Combined(), r.ExitCode == 0 && r.Stdout != "" && r.Stdout != uid
	})

	// Volumes: a claim binds to a matching hostPath volume.
	const manifest = `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv1
spec:
  capacity:
    storage: 5Gi
  accessModes: ["ReadWriteOnce"]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: manual
  hostPath:
    path: /data/pv1
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: ["ReadWriteOnce"]
  storageClassName: manual
  resources:
    requests:
      storage: 1Gi
`
	if err := os.WriteFile(filepath.Join(dir, "pv.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	k("apply", "-f", "pv.yaml")
	eventually("claim Bound", func() (string, bool) {
		out := k("get", "pvc", "data")
		f := strings.Fields(gcLastLine(out))
		return out, len(f) >= 5 && f[0] == "data" && f[1] == "Bound" && f[2] == "pv1" && f[3] == "5Gi" && f[4] == "RWO"
	})
	if out := k("get", "pv", "pv1", "-o", "jsonpath={.status.phase} {.spec.claimRef.namespace}/{.spec.claimRef.name}"); out != "Bound default/data" {
		t.Errorf("pv1: %q, want Bound to default/data", out)
	}
	k("delete", "pvc", "data")
	eventually("pv1 Released", func() (string, bool) {
		out := k("get", "pv", "pv1", "-o", "jsonpath={.status.phase}")
		return out, out == "Released"
	})
}

func gcLastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
