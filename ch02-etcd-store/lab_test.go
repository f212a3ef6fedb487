package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"kubik/internal/labtest"
	"kubik/internal/testenv"
)

// etcdLine is what ch02 logs when its embedded etcd serves, before the
// apiserver starts (so before /readyz answers): where etcd listens.
var etcdLine = regexp.MustCompile(`msg="embedded etcd is serving" .*endpoint=(http://\S+)`)

// TestLab runs the lab of docs/ch02-etcd-store.md against a fresh chapter 2
// apiserver with its embedded etcd, plus a second apiserver on the same etcd
// (as the doc tells the reader to start one), once with the newest and once
// with the oldest kubectl the course supports. The lab reads etcd with
// etcdctl: ETCDCTL_ENDPOINTS is the embedded etcd, APISERVER2 the second
// apiserver's URL.
func TestLab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts two apiservers and runs the whole lab")
	}
	ensureEtcdctl(t)
	for _, tool := range []string{"jq", "timeout"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the lab needs %s: %v", tool, err)
		}
	}
	bin := testenv.Build(t, "kubik/ch02-etcd-store")
	for _, version := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+version, func(t *testing.T) {
			kubectl := testenv.Kubectl(t, version)
			first := testenv.Start(t, bin, testenv.Options{})
			m := etcdLine.FindStringSubmatch(first.Logs())
			if m == nil {
				t.Fatalf("ch02 did not log its etcd endpoint:\n%s", first.Logs())
			}
			endpoint := m[1]

			// The second apiserver shares the etcd and the cluster CA, so the
			// admin kubeconfig of the first works against it too.
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "pki"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"ca.crt", "ca.key"} {
				b, err := os.ReadFile(filepath.Join(first.DataDir, "pki", f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "pki", f), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			second := testenv.Start(t, bin, testenv.Options{DataDir: dir, Args: []string{"--etcd-servers", endpoint}})

			labtest.Run(t, "../docs/ch02-etcd-store.md", labtest.Env{
				Kubectl:    kubectl,
				Kubeconfig: first.Kubeconfig,
				Vars:       []string{"ETCDCTL_ENDPOINTS=" + endpoint, "APISERVER2=" + second.URL},
			})
		})
	}
}

// ensureEtcdctl installs Debian's etcd-client when etcdctl is missing
// (scripts/ensure-deps.sh); the test skips if that is impossible.
func ensureEtcdctl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("etcdctl"); err == nil {
		return
	}
	out, err := exec.Command("../scripts/ensure-deps.sh", "etcdctl=etcd-client").CombinedOutput()
	if _, lerr := exec.LookPath("etcdctl"); lerr != nil {
		t.Skipf("no etcdctl and installing etcd-client failed (%v):\n%s", err, out)
	}
}
