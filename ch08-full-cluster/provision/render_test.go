package provision

import (
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kubik/ch08-full-cluster/cloudprovider/kubik"
	"kubik/ch08-full-cluster/pki"
	"kubik/ch08-full-cluster/supervisor"
)

func topology(t *testing.T, cps, workers int) (Topology, string) {
	t.Helper()
	topo, err := NewTopology(cps, workers, netip.MustParsePrefix("10.240.9.0/24"))
	if err != nil {
		t.Fatal(err)
	}
	topo.Cloud = &kubik.Config{LoadBalancer: kubik.LoadBalancerConfig{IPPool: "10.240.9.200-10.240.9.250"},
		Network:   kubik.NetworkConfig{NodeCIDR: "10.240.9.0/24", Bridge: "kbrtest"},
		Balancer:  kubik.BalancerConfig{NetNS: "kubik-test-balancer", Address: "10.240.9.2"},
		Instances: kubik.InstancesConfig{NetNSPrefix: "kubik-test-", Interface: "eth0"}}
	dir := filepath.Join(t.TempDir(), "pki")
	if err := pki.Write(dir, topo.PKI()); err != nil {
		t.Fatal(err)
	}
	return topo, dir
}

func TestNewTopology(t *testing.T) {
	topo, _ := topology(t, 3, 2)
	var got []string
	for _, m := range topo.Machines {
		got = append(got, m.Name+"="+m.IP.String()+"/"+string(m.Role))
	}
	want := []string{"lb=10.240.9.10/load-balancer", "cp-1=10.240.9.11/control-plane", "cp-2=10.240.9.12/control-plane",
		"cp-3=10.240.9.13/control-plane", "w-1=10.240.9.21/worker", "w-2=10.240.9.22/worker"}
	if !slices.Equal(got, want) {
		t.Errorf("machines: %q", got)
	}
	if topo.LoadBalancerAddress() != "10.240.9.10:6443" {
		t.Error(topo.LoadBalancerAddress())
	}
	for _, bad := range [][2]int{{0, 1}, {10, 1}, {1, -1}} {
		if _, err := NewTopology(bad[0], bad[1], netip.MustParsePrefix("10.240.9.0/24")); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}

// TestRenderRoots: a machine rendered for "/" (a VM) and for a directory
// (a network-namespace machine) differ only by the root in the paths,
// every unit parses, and each flag names a file the machine has.
func TestRenderRoots(t *testing.T) {
	topo, pkiDir := topology(t, 3, 2)
	local := filepath.Join(t.TempDir(), "machines", "cp-1")
	for _, name := range []string{"lb", "cp-1", "w-1"} {
		m, _ := topo.Machine(name)
		vm, err := Render(topo, pkiDir, name, "/")
		if err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(filepath.Dir(local), name)
		here, err := Render(topo, pkiDir, name, root)
		if err != nil {
			t.Fatal(err)
		}
		if len(vm) != len(here) {
			t.Fatalf("%s: %d files for /, %d for %s", name, len(vm), len(here), root)
		}
		var units []string
		for i := range vm {
			a, b := vm[i], here[i]
			if a.Path != b.Path || a.Mode != b.Mode {
				t.Errorf("%s: %s %v vs %s %v", name, a.Path, a.Mode, b.Path, b.Mode)
			}
			if strings.HasSuffix(a.Path, ".service") {
				units = append(units, strings.TrimSuffix(filepath.Base(a.Path), ".service"))
				if string(b.Data) != strings.ReplaceAll(string(a.Data), "=/etc/", "="+root+"/etc/") &&
					!strings.Contains(string(b.Data), root+"/") {
					t.Errorf("%s: %s does not use the root %s:\n%s", name, b.Path, root, b.Data)
				}
				u, err := supervisor.ParseUnit(filepath.Base(a.Path), a.Data)
				if err != nil {
					t.Errorf("%s: %s: %v\n%s", name, a.Path, err, a.Data)
					continue
				}
				if len(u.Warnings) > 0 || !u.Enabled() {
					t.Errorf("%s: %s: warnings %q, enabled %v", name, a.Path, u.Warnings, u.Enabled())
				}
				checkPaths(t, name, u, vm)
			}
		}
		want := topo.Units(m.Role)
		slices.Sort(want)
		if !slices.Equal(units, want) {
			t.Errorf("%s: units %q, want %q", name, units, want)
		}
	}
}

// checkPaths: every absolute path in a flag is a file of the machine, a
// binary it is given, a directory its components create, or Debian's.
func checkPaths(t *testing.T, machine string, u *supervisor.Unit, files []File) {
	t.Helper()
	have := map[string]bool{}
	for _, f := range files {
		have["/"+f.Path] = true
	}
	made := []string{"/var/lib/etcd", "/var/lib/kubelet", "/run/kubik/", "/var/lib/kubik-cni", "/opt/cni/bin", "/var/lib/kubik/images"}
	cmds := slices.Concat(u.ExecStartPre, u.ExecStart)
	for _, c := range cmds {
		for i, arg := range c.Argv {
			_, value, _ := strings.Cut(arg, "=")
			if i == 0 {
				value = arg
			}
			for _, p := range strings.Split(value, ",") {
				if !strings.HasPrefix(p, "/") {
					continue
				}
				ok := have[p] || strings.HasPrefix(p, "/usr/local/bin/") || strings.HasPrefix(p, "/usr/sbin/") ||
					slices.ContainsFunc(made, func(d string) bool { return strings.HasPrefix(p, d) })
				if !ok {
					t.Errorf("%s: %s: %s names %s, which the machine lacks", machine, u.Name, c.Argv[0], p)
				}
			}
		}
	}
}

// TestRenderContents spot-checks what each machine's files say.
func TestRenderContents(t *testing.T) {
	topo, pkiDir := topology(t, 3, 1)
	get := func(machine, path string) string {
		t.Helper()
		files, err := Render(topo, pkiDir, machine, "/")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Path == path {
				if f.Link != "" {
					return "-> " + f.Link
				}
				return string(f.Data)
			}
		}
		t.Fatalf("%s has no %s", machine, path)
		return ""
	}
	for _, c := range []struct{ machine, path, want string }{
		{"cp-2", "etc/systemd/system/etcd.service", "--initial-cluster=cp-1=https://10.240.9.11:2380,cp-2=https://10.240.9.12:2380,cp-3=https://10.240.9.13:2380"},
		{"cp-2", "etc/systemd/system/etcd.service", "--listen-client-urls=https://10.240.9.12:2379,https://127.0.0.1:2379"},
		{"cp-2", "etc/systemd/system/kube-apiserver.service", "--etcd-servers=https://10.240.9.11:2379,https://10.240.9.12:2379,https://10.240.9.13:2379"},
		{"cp-2", "etc/systemd/system/kube-apiserver.service", "--encryption-provider-config=/var/lib/kubernetes/encryption-config.yaml"},
		{"cp-2", "etc/systemd/system/kube-controller-manager.service", "--node-monitor-grace-period=50s"},
		{"cp-2", "etc/systemd/system/cloud-controller-manager.service", "--cloud-config=/etc/kubernetes/cloud-config.yaml"},
		{"cp-2", "etc/kubernetes/cloud-config.yaml", "ipPool: 10.240.9.200-10.240.9.250"},
		{"cp-2", "var/lib/kubernetes/kube-scheduler.kubeconfig", "server: https://127.0.0.1:6443"},
		{"cp-2", "etc/kubik/etcdctl.env", "ETCDCTL_CERT=/etc/etcd/etcd-healthcheck-client.crt"},
		{"lb", "etc/haproxy/haproxy.cfg", "server cp-3 10.240.9.13:6443 check verifyhost cp-3"},
		{"lb", "etc/haproxy/haproxy.cfg", "bind 10.240.9.10:6443"},
		{"w-1", "var/lib/kubelet/kubeconfig", "server: https://10.240.9.10:6443"},
		{"w-1", "etc/systemd/system/kubelet.service", "--cni-bin-dir=/opt/cni/bin"},
		{"w-1", "etc/systemd/system/kubik-node-agent.service", "--cni-conf-path=/var/lib/kubelet/containerd/net.d/10-kubik.conflist"},
		{"w-1", "etc/kubik/cni/10-kubik.conflist", `"subnetFile": "/run/kubik/subnet.env"`},
		{"w-1", "opt/cni/bin/kubik-cni", "-> /usr/local/bin/kubik-cni"},
	} {
		if got := get(c.machine, c.path); !strings.Contains(got, c.want) {
			t.Errorf("%s:%s lacks %q:\n%s", c.machine, c.path, c.want, got)
		}
	}
	if _, err := Render(topo, pkiDir, "cp-9", "/"); err == nil {
		t.Error("an unknown machine: want an error")
	}
	topo.Cloud = nil
	files, _ := Render(topo, pkiDir, "cp-1", "/")
	for _, f := range files {
		if strings.Contains(f.Path, "cloud") {
			t.Errorf("no cloud, yet %s", f.Path)
		}
	}
}

// TestHAProxyConfigChecks: haproxy -c accepts the load balancer's
// configuration (Debian's haproxy; skipped without it).
func TestHAProxyConfigChecks(t *testing.T) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		t.Skip("haproxy is not installed")
	}
	topo, pkiDir := topology(t, 3, 0)
	root := t.TempDir()
	files, err := Render(topo, pkiDir, "lb", root)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(root, files); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("haproxy", "-c", "-f", filepath.Join(root, "etc", "haproxy", "haproxy.cfg")).CombinedOutput()
	if err != nil || strings.Contains(string(out), "WARNING") {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
	// Write is idempotent and makes the links.
	if err := Write(root, files); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "etc", "haproxy", "ca.crt")); err != nil {
		t.Fatal(err)
	}
}

// TestRenderOptions: the local runner's etcd without fsync, and the
// control plane of upstream's binaries, whose log flag is klog's.
func TestRenderOptions(t *testing.T) {
	topo, pkiDir := topology(t, 1, 1)
	unitOf := func(topo Topology, name string) string {
		t.Helper()
		files, err := Render(topo, pkiDir, "cp-1", "/")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Path == "etc/systemd/system/"+name+".service" {
				return string(f.Data)
			}
		}
		t.Fatalf("no %s.service", name)
		return ""
	}
	if u := unitOf(topo, "etcd"); strings.Contains(u, "--unsafe-no-fsync") {
		t.Errorf("etcd without fsync by default:\n%s", u)
	}
	for _, name := range []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager"} {
		if u := unitOf(topo, name); !strings.Contains(u, "--log-level=info") || strings.Contains(u, "--v=") {
			t.Errorf("%s: want --log-level:\n%s", name, u)
		}
	}
	topo.EtcdUnsafeNoFsync, topo.UpstreamControlPlane = true, true
	if u := unitOf(topo, "etcd"); !strings.Contains(u, "--unsafe-no-fsync") {
		t.Errorf("EtcdUnsafeNoFsync: etcd lacks --unsafe-no-fsync:\n%s", u)
	}
	for _, name := range []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager"} {
		if u := unitOf(topo, name); strings.Contains(u, "--log-level") || !strings.Contains(u, "--v=1") {
			t.Errorf("UpstreamControlPlane: %s's log flag:\n%s", name, u)
		}
	}
	if u := unitOf(topo, "kube-controller-manager"); !strings.Contains(u, "--use-service-account-credentials=true") ||
		!strings.Contains(u, "--service-account-private-key-file=/var/lib/kubernetes/sa.key") {
		t.Errorf("UpstreamControlPlane: upstream's controller manager's flags:\n%s", u)
	}
	if u := unitOf(topo, "cloud-controller-manager"); !strings.Contains(u, "--log-level=info") {
		t.Errorf("the cloud controller manager is ours either way:\n%s", u)
	}
}

// TestRenderUpstreamComponents: single components of upstream's binaries
// (Topology.Upstream) get upstream's flags, on their machines only.
func TestRenderUpstreamComponents(t *testing.T) {
	topo, pkiDir := topology(t, 1, 2)
	topo.Upstream = []string{"kube-controller-manager", "kube-scheduler", "w-2/kube-proxy"}
	unitOf := func(machine, name string) string {
		t.Helper()
		files, err := Render(topo, pkiDir, machine, "/")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Path == "etc/systemd/system/"+name+".service" {
				return string(f.Data)
			}
		}
		t.Fatalf("%s: no %s.service", machine, name)
		return ""
	}
	if u := unitOf("cp-1", "kube-apiserver"); !strings.Contains(u, "--log-level=info") || strings.Contains(u, "--kubelet-preferred-address-types") {
		t.Errorf("Kubik's apiserver:\n%s", u)
	}
	if u := unitOf("cp-1", "kube-scheduler"); !strings.Contains(u, "--v=1") {
		t.Errorf("upstream's scheduler: want --v=1:\n%s", u)
	}
	// On Kubik's apiserver, upstream's controller manager runs every
	// controller under its own identity: Kubik has no system:controller:* roles.
	if u := unitOf("cp-1", "kube-controller-manager"); !strings.Contains(u, "--use-service-account-credentials=false") {
		t.Errorf("upstream's controller manager on Kubik's apiserver:\n%s", u)
	}
	if u := unitOf("w-2", "kube-proxy"); !strings.Contains(u, "--conntrack-max-per-core=0") || !strings.Contains(u, "--v=1") {
		t.Errorf("upstream's kube-proxy on w-2:\n%s", u)
	}
	if u := unitOf("w-1", "kube-proxy"); strings.Contains(u, "--conntrack-max-per-core") {
		t.Errorf("w-1's kube-proxy is Kubik's:\n%s", u)
	}
	topo.Upstream = append(topo.Upstream, "kube-apiserver")
	if u := unitOf("cp-1", "kube-apiserver"); !strings.Contains(u, "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname") {
		t.Errorf("upstream's apiserver:\n%s", u)
	}
	if u := unitOf("cp-1", "kube-controller-manager"); !strings.Contains(u, "--use-service-account-credentials=true") {
		t.Errorf("upstream's controller manager on upstream's apiserver:\n%s", u)
	}
}
