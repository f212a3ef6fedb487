//go:build linux

package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"kubik/internal/labtest"
	"kubik/internal/testenv"
)

// TestLab runs the lab of docs/ch07-kube-proxy.md against the chapter's
// cluster in iptables mode (the default, what `make ch07-run` starts), once
// with the newest and once with the oldest kubectl the course supports; the
// lab removes what it made, so both runs share the cluster the other tests
// use (it runs first: the lab shows the rules of a fresh cluster). The
// variables the doc asks the reader to export are set for the lab's shell.
func TestLab(t *testing.T) {
	c := sharedCluster(t, "iptables")
	var pids []string
	for _, n := range c.nodes {
		pids = append(pids, filepath.Join(c.dir, "nodes", n.name, "node.pid"))
	}
	for _, version := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+version, func(t *testing.T) {
			labtest.Run(t, "../docs/ch07-kube-proxy.md", labtest.Env{Kubectl: testenv.Kubectl(t, version), Kubeconfig: c.api.Kubeconfig,
				Vars: []string{
					"NODE1=" + c.nodes[0].netns, "NODE2=" + c.nodes[1].netns, "NODE3=" + c.nodes[2].netns,
					"DATA_DIR=" + c.dir,
					"NODE_PIDS=" + strings.Join(pids, " "),
				}})
		})
	}
}
