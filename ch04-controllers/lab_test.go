package main_test

import (
	"testing"

	"kubik/internal/labtest"
	"kubik/internal/testenv"
)

// labArgs are the flags the lab's cluster runs with: three hollow nodes,
// and a node lifecycle controller that notices a silent node after 15s
// instead of 50s (checking every second instead of every 5s), so the node
// step of the lab takes seconds, not a minute. The doc says so.
var labArgs = []string{"--hollow-nodes", "3", "--node-monitor-period=1s", "--node-monitor-grace-period=15s"}

// TestLab runs the lab of docs/ch04-controllers.md against a fresh chapter 4
// cluster (etcd, apiserver, scheduler, kube-controller-manager, three hollow
// nodes) with the newest and the oldest kubectl the course supports, so the
// doc cannot drift.
func TestLab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster and runs the whole lab")
	}
	bin := testenv.Build(t, "kubik/ch04-controllers")
	for _, version := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+version, func(t *testing.T) {
			kubectl := testenv.Kubectl(t, version)
			cluster := testenv.Start(t, bin, testenv.Options{Args: labArgs})
			labtest.Run(t, "../docs/ch04-controllers.md", labtest.Env{Kubectl: kubectl, Kubeconfig: cluster.Kubeconfig})
		})
	}
}
