package main_test

// storage.k8s.io/v1 end to end with the real kubectl 1.33: StorageClasses
// and CSIDrivers get upstream's defaults and table columns, a StorageClass's
// parameters cannot change (upstream's message, as kubectl prints it), the
// other three kinds are served, and `kubectl explain` knows the fields.

import (
	"strings"
	"testing"

	"kubik/internal/testenv"
)

const storageManifests = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: rancher.io/local-path
parameters:
  type: ssd
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: slow
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: hostpath.csi.k8s.io
spec: {}
`

func TestStorageEndToEnd(t *testing.T) {
	k := newKube(t, "1.33")

	k.write("storage.yaml", storageManifests)
	k.exact([]string{"apply", "-f", "storage.yaml"}, `storageclass.storage.k8s.io/fast created
storageclass.storage.k8s.io/slow created
csidriver.storage.k8s.io/hostpath.csi.k8s.io created
`, "", 0)

	// No reclaimPolicy or volumeBindingMode in the manifest: Delete and Immediate.
	r := k.run("get", "sc")
	equalCells(t, "kubectl get sc", r, `NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE
fast (default) rancher.io/local-path Delete Immediate false <age>
slow kubernetes.io/no-provisioner Delete WaitForFirstConsumer true <age>`)

	// The CSIDriver's defaults, as `kubectl get -o yaml` shows them.
	yaml := k.c.MustKubectl(t, "1.33", k.dir, "get", "csidriver", "hostpath.csi.k8s.io", "-o", "yaml")
	if want := `spec:
  attachRequired: true
  fsGroupPolicy: ReadWriteOnceWithFSType
  podInfoOnMount: false
  requiresRepublish: false
  seLinuxMount: false
  storageCapacity: false
  volumeLifecycleModes:
  - Persistent`; !strings.Contains(yaml, want) {
		t.Errorf("csidriver -o yaml:\n%s\nwant it to contain:\n%s", yaml, want)
	}
	r = k.run("get", "csidrivers")
	equalCells(t, "kubectl get csidrivers", r, `NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE
hostpath.csi.k8s.io true false false <unset> false Persistent <age>`)
	// Upstream's CSIDriver strategy sets no generation on create and bumps
	// it on each spec change; a label is no spec change.
	generation := func() string {
		return k.c.MustKubectl(t, "1.33", k.dir, "get", "csidriver", "hostpath.csi.k8s.io", "-o", "jsonpath={.metadata.generation}")
	}
	if g := generation(); g != "" {
		t.Errorf("a new CSIDriver's generation: %q, want none", g)
	}
	k.exact([]string{"patch", "csidriver", "hostpath.csi.k8s.io", "--type=merge", "-p", `{"spec":{"podInfoOnMount":true}}`},
		"csidriver.storage.k8s.io/hostpath.csi.k8s.io patched\n", "", 0)
	k.exact([]string{"label", "csidriver", "hostpath.csi.k8s.io", "team=storage"}, "csidriver.storage.k8s.io/hostpath.csi.k8s.io labeled\n", "", 0)
	if g := generation(); g != "1" {
		t.Errorf("the CSIDriver's generation after one spec change: %q, want 1", g)
	}

	// A StorageClass's parameters are fixed once volumes may use them.
	k.write("fast.yaml", strings.Replace(strings.SplitN(storageManifests, "---", 2)[0], "type: ssd", "type: hdd", 1))
	k.exact([]string{"apply", "-f", "fast.yaml"}, "",
		"The StorageClass \"fast\" is invalid: parameters: Forbidden: updates to parameters are forbidden.\n", 1)
	// A label is a fine update.
	k.exact([]string{"label", "sc", "slow", "tier=cold"}, "storageclass.storage.k8s.io/slow labeled\n", "", 0)

	// The kinds the scheduler watches and nobody here creates.
	k.exact([]string{"get", "csinodes,volumeattachments,csistoragecapacities", "-A"}, "", "No resources found\n", 0)

	r = k.run("explain", "storageclass.provisioner")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "KIND:       StorageClass") ||
		!strings.Contains(r.Stdout, "FIELD: provisioner <string>") ||
		!strings.Contains(r.Stdout, "provisioner indicates the type of the provisioner.") {
		t.Errorf("kubectl explain storageclass.provisioner: exit %d\n%s", r.ExitCode, r.Combined())
	}
}

// equalCells compares a kubectl table field by field, ages as <age>.
func equalCells(t *testing.T, what string, r testenv.Result, want string) {
	t.Helper()
	if r.ExitCode != 0 || cells(r.Stdout) != want {
		t.Errorf("%s: exit %d\n%s\nwant (as cells):\n%s", what, r.ExitCode, r.Combined(), want)
	}
}
