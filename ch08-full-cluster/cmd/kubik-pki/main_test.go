package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kubik/ch08-full-cluster/pki"
	"kubik/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestCommand: the command writes the directory from its flags, twice
// without a change, and refuses incomplete flags with a message.
func TestCommand(t *testing.T) {
	bin := testenv.Build(t, "kubik/ch08-full-cluster/cmd/kubik-pki")
	dir := filepath.Join(t.TempDir(), "pki")
	args := []string{"--dir", dir, "--control-plane", "cp-1=10.240.0.11", "--workers", "node-0=10.240.0.20", "--load-balancer", "10.240.0.10:6443"}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "admin: "+filepath.Join(dir, "admin.kubeconfig")+" (server https://10.240.0.10:6443)") {
		t.Fatalf("%v\n%s", err, out)
	}
	key, _ := os.ReadFile(filepath.Join(dir, pki.KubeletClientCert("node-0")+".key"))
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, pki.KubeletClientCert("node-0")+".key")); string(again) != string(key) || len(key) == 0 {
		t.Fatal("a second run replaced a key")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--control-plane", "cp-1=10.0.0.1", "--load-balancer", "10.0.0.2"}, "--dir is required"},
		{[]string{"--dir", dir, "--load-balancer", "10.0.0.2"}, "at least one control-plane machine"},
		{[]string{"--dir", dir, "--control-plane", "cp-1", "--load-balancer", "10.0.0.2"}, `--control-plane: "cp-1" is not name=ip`},
	} {
		out, err := exec.Command(bin, c.args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v\n%s", c.args, err, out)
		}
	}
}
