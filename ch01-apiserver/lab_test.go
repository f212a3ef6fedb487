package main_test

import (
	"os/exec"
	"testing"

	"kubik/internal/labtest"
	"kubik/internal/testenv"
)

// TestLab runs the labs of docs/ch01-apiserver.md and docs/ch01-auth.md against a fresh chapter 1
// apiserver, once with the newest and once with the oldest kubectl the course
// supports, so the doc cannot drift from the code. The lab avoids output that
// differs between kubectl versions; the one such example (protobuf bodies,
// kubectl 1.32+) is a lab-skip block.
func TestLab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the apiserver and runs the whole lab")
	}
	for _, tool := range []string{"curl", "jq", "openssl", "base64", "timeout"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the lab needs %s: %v", tool, err)
		}
	}
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	for _, version := range []string{"1.33", "1.27"} {
		// Each page gets a fresh cluster. The auth page issues kubeconfigs
		// with the chapter binary ($KUBIK) from the cluster's CA ($DATA_DIR).
		for _, page := range []string{"ch01-apiserver", "ch01-auth"} {
			t.Run(page+"/kubectl-"+version, func(t *testing.T) {
				kubectl := testenv.Kubectl(t, version)
				cluster := testenv.Start(t, bin, testenv.Options{})
				labtest.Run(t, "../docs/"+page+".md", labtest.Env{
					Kubectl:    kubectl,
					Kubeconfig: cluster.Kubeconfig,
					Vars: []string{"TMPDIR=" + t.TempDir(), // mktemp in the lab stays in the test's temp dir
						"KUBIK=" + bin, "DATA_DIR=" + cluster.DataDir},
				})
			})
		}
	}
}
