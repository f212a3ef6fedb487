package main_test

import (
	"testing"

	"kubik/internal/labtest"
	"kubik/internal/testenv"
)

// TestLab runs the lab of docs/ch03-scheduler.md against a fresh chapter 3
// cluster (etcd, apiserver, scheduler, three hollow nodes) with the newest
// and the oldest kubectl the course supports, so the doc cannot drift.
func TestLab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 3 cluster and runs the whole lab")
	}
	bin := testenv.Build(t, "kubik/ch03-scheduler")
	for _, version := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+version, func(t *testing.T) {
			kubectl := testenv.Kubectl(t, version)
			cluster := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes", "3"}})
			labtest.Run(t, "../docs/ch03-scheduler.md", labtest.Env{Kubectl: kubectl, Kubeconfig: cluster.Kubeconfig})
		})
	}
}
