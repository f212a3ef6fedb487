package vagrant_test

// The Vagrantfile at the repository's root, checked by Vagrant itself
// (vagrant validate) for both providers and both boxes, the default
// topology and the small one; and, with KUBIK_VAGRANT_E2E=1, the whole
// cluster on VMs (e2e.sh).

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// vagrantEnv keeps Vagrant's state and the Vagrantfile's directories in
// the test's own: nothing lands in the checkout or in ~/.vagrant.d.
func vagrantEnv(t *testing.T, extra ...string) []string {
	tmp := t.TempDir()
	env := []string{"VAGRANT_HOME=" + filepath.Join(tmp, "vagrant.d"), "VAGRANT_DOTFILE_PATH=" + filepath.Join(tmp, "dot"),
		"KUBIK_DIR=" + filepath.Join(tmp, "kubik"), "VAGRANT_CHECKPOINT_DISABLE=1", "VAGRANT_NO_COLOR=1"}
	for _, e := range os.Environ() {
		if name, _, _ := strings.Cut(e, "="); name != "CONTROL_PLANE" && name != "WORKERS" && name != "KUBIK_BOX" &&
			!strings.HasPrefix(name, "VAGRANT_") && !strings.HasPrefix(name, "KUBIK_") {
			env = append(env, e)
		}
	}
	return append(env, extra...)
}

func TestVagrantfileValidates(t *testing.T) {
	vagrant, err := exec.LookPath("vagrant")
	if err != nil {
		t.Fatal("vagrant is not installed: make deps installs it (scripts/ensure-deps.sh)")
	}
	root := repoRoot(t)
	plugins, err := exec.Command(vagrant, "plugin", "list").CombinedOutput()
	if err != nil || !strings.Contains(string(plugins), "vagrant-libvirt") {
		t.Fatalf("the vagrant-libvirt plugin is not installed (apt-get install vagrant-libvirt; make deps installs it): %s", plugins)
	}
	_, vbErr := exec.LookPath("VBoxManage")
	for _, provider := range []string{"libvirt", "virtualbox"} {
		for _, env := range [][]string{
			{},                               // the public box, 3 control-plane machines and 2 workers
			{"KUBIK_BOX=kubik/bookworm64"},   // the offline box (make box): isolated management network
			{"CONTROL_PLANE=1", "WORKERS=1"}, // the small one
			{"KUBIK_LIBVIRT_DRIVER=qemu", "CONTROL_PLANE=2", "WORKERS=3"}, // software emulation
		} {
			name := provider + "/" + strings.Join(append([]string{"default"}, env...)[min(len(env), 1):], ",")
			t.Run(name, func(t *testing.T) {
				args := []string{"validate"}
				if provider == "virtualbox" && vbErr != nil {
					// Without VirtualBox, Vagrant refuses the provider
					// outright: the rest of the Vagrantfile is still checked.
					t.Log("VirtualBox is not installed: its provider block is not checked (vagrant validate --ignore-provider)")
					args = append(args, "--ignore-provider")
				}
				cmd := exec.Command(vagrant, args...)
				cmd.Dir = root
				cmd.Env = vagrantEnv(t, append(env, "VAGRANT_DEFAULT_PROVIDER="+provider)...)
				out, err := cmd.CombinedOutput()
				if err != nil || !strings.Contains(string(out), "Vagrantfile validated successfully") {
					t.Fatalf("vagrant validate: %v\n%s", err, out)
				}
			})
		}
	}
}

// The Vagrantfile refuses a topology the node network cannot hold, before
// anything starts.
func TestVagrantfileRefusesBadTopology(t *testing.T) {
	vagrant, err := exec.LookPath("vagrant")
	if err != nil {
		t.Fatal("vagrant is not installed: make deps installs it (scripts/ensure-deps.sh)")
	}
	cmd := exec.Command(vagrant, "validate")
	cmd.Dir = repoRoot(t)
	cmd.Env = vagrantEnv(t, "CONTROL_PLANE=10", "VAGRANT_DEFAULT_PROVIDER=libvirt")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "CONTROL_PLANE=10: 1 to 9") {
		t.Fatalf("vagrant validate with CONTROL_PLANE=10: want a refusal, got %v\n%s", err, out)
	}
}

// TestVagrantE2E is make vagrant-e2e: it runs only with KUBIK_VAGRANT_E2E=1
// (about 15-25 minutes under software emulation), as root.
func TestVagrantE2E(t *testing.T) {
	if os.Getenv("KUBIK_VAGRANT_E2E") != "1" {
		t.Skip("the VMs' end-to-end test runs with KUBIK_VAGRANT_E2E=1 (make vagrant-e2e)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: libvirt, debootstrap, the cloud's network namespace")
	}
	cmd := exec.Command(filepath.Join(repoRoot(t), "ch08-full-cluster", "vagrant", "e2e.sh"))
	cmd.Dir = repoRoot(t)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("e2e.sh: %v", err)
	}
}
