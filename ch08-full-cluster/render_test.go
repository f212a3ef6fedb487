package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kubik/internal/testenv"
)

// TestRenderCommand: `render --root /` writes each machine's files as a
// VM needs them (what the Vagrant provisioning copies), without root.
func TestRenderCommand(t *testing.T) {
	bin := testenv.Build(t, "kubik/ch08-full-cluster")
	dir := t.TempDir()
	out, err := exec.Command(bin, "render", "--data-dir", filepath.Join(dir, "data"), "--control-plane", "1", "--workers", "1",
		"--node-cidr", "10.240.9.0/24", "--interface", "eth1", "--root", "/", "--out", filepath.Join(dir, "out")).CombinedOutput()
	if err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	for _, want := range []string{"lb: ", "cp-1: ", "w-1: ", "binaries it needs in /usr/local/bin: kubelet, kube-proxy, kubik-node-agent, kubik-cni"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("render's output lacks %q:\n%s", want, out)
		}
	}
	unit, err := os.ReadFile(filepath.Join(dir, "out", "w-1", "etc", "systemd", "system", "kubik-node-agent.service"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ExecStart=/usr/local/bin/kubik-node-agent", "--iface=eth1", "--kubeconfig=/var/lib/kubik-node-agent/kubeconfig"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("kubik-node-agent.service lacks %q:\n%s", want, unit)
		}
	}
	for _, f := range []string{"cp-1/etc/etcd/etcd-server-cp-1.key", "cp-1/var/lib/kubernetes/encryption-config.yaml",
		"lb/etc/haproxy/haproxy.cfg", "w-1/var/lib/kubelet/kubeconfig", "w-1/opt/cni/bin/kubik-cni"} {
		if _, err := os.Lstat(filepath.Join(dir, "out", f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "cp-1", "etc", "systemd", "system", "cloud-controller-manager.service")); err == nil {
		t.Error("a VM's control plane got the local cloud's cloud-controller-manager")
	}
}
