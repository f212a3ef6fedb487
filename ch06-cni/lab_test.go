//go:build linux

package main_test

import (
	"testing"

	"kubik/internal/labtest"
	"kubik/internal/testenv"
)

// TestLab runs the lab of docs/ch06-cni.md against a fresh chapter 6
// cluster of two host-gw nodes, once with the newest and once with the
// oldest kubectl the course supports, so the doc cannot drift. The lab
// finds everything else (the machines' namespaces, their PID files and
// logs) from DATA_DIR, which the doc asks the reader to export.
func TestLab(t *testing.T) {
	for _, version := range []string{kubectl133, kubectl127} {
		t.Run("kubectl-"+version, func(t *testing.T) {
			kubectl := testenv.Kubectl(t, version)
			c := startCluster(t, "host-gw", 2, 2)
			labtest.Run(t, "../docs/ch06-cni.md", labtest.Env{Kubectl: kubectl, Kubeconfig: c.c.Kubeconfig, Vars: []string{
				"DATA_DIR=" + c.dir,
			}})
		})
	}
}
