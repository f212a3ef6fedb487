//go:build linux

package main_test

import (
	"path/filepath"
	"testing"

	"kubik/internal/labtest"
	"kubik/internal/testenv"
)

// TestLab runs the lab of docs/ch05-kubelet.md against a fresh chapter 5
// cluster with a real node, once with the newest and once with the oldest
// kubectl the course supports, so the doc cannot drift. The variables the
// doc asks the reader to export (the data dir, where the lab finds the
// program's PID file; the kubelet's port; the static pod directory; ctr's
// containerd) are set for the lab's shell.
func TestLab(t *testing.T) {
	for _, version := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+version, func(t *testing.T) {
			kubectl := testenv.Kubectl(t, version)
			manifests := filepath.Join(t.TempDir(), "manifests")
			n := startNode(t, "--pod-manifest-path", manifests)
			labtest.Run(t, "../docs/ch05-kubelet.md", labtest.Env{Kubectl: kubectl, Kubeconfig: n.c.Kubeconfig, Vars: []string{
				"DATA_DIR=" + n.dir,
				"KUBELET_PORT=" + itoa(n.kubeletPort),
				"MANIFESTS=" + manifests,
				"CONTAINERD_ADDRESS=" + n.rc.Socket(),
				"CONTAINERD_NAMESPACE=k8s.io",
			}})
		})
	}
}
