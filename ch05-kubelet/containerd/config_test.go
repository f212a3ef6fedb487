package containerd

import (
	"encoding/json"
	"strings"
	"testing"
)

// The config keeps every path of containerd's under Dir and carries the
// settings this machine needs; the CNI conflist is valid JSON with the
// node's subnet and gateway.
func TestConfig(t *testing.T) {
	cfg := Config{Dir: "/data/kubelet/containerd", Name: "kubik-0123abcd", PodCIDR: "10.244.0.0/24", SandboxImage: "registry.k8s.io/pause:3.10"}
	toml := configTOML(cfg)
	for _, want := range []string{
		`root = "/data/kubelet/containerd/root"`,
		`state = "/data/kubelet/containerd/state"`,
		`address = "/data/kubelet/containerd/containerd.sock"`,
		`path = "/data/kubelet/containerd/opt"`,
		`Root = "/data/kubelet/containerd/runc"`,
		`sandbox_image = "registry.k8s.io/pause:3.10"`,
		`restrict_oom_score_adj = true`,
		`netns_mounts_under_state_dir = true`,
		`bin_dir = "/usr/lib/cni"`,
		`conf_dir = "/data/kubelet/containerd/net.d"`,
		`SystemdCgroup = false`,
	} {
		if !strings.Contains(toml, want) {
			t.Errorf("config.toml lacks %s:\n%s", want, toml)
		}
	}
	var conf struct {
		Name    string
		Plugins []struct {
			Type   string
			IPMasq bool `json:"ipMasq"`
			IPAM   struct {
				DataDir string
				Ranges  [][]struct{ Subnet, Gateway string }
			}
		}
	}
	if err := json.Unmarshal([]byte(cniConflist(cfg)), &conf); err != nil {
		t.Fatalf("conflist: %v\n%s", err, cniConflist(cfg))
	}
	b := conf.Plugins[0]
	if conf.Name != cfg.Name || b.Type != "bridge" || b.IPMasq || b.IPAM.DataDir != "/data/kubelet/containerd/ipam" ||
		b.IPAM.Ranges[0][0].Subnet != "10.244.0.0/24" || b.IPAM.Ranges[0][0].Gateway != "10.244.0.1" {
		t.Errorf("conflist: %+v", conf)
	}
	if cfg.Endpoint() != "unix:///data/kubelet/containerd/containerd.sock" || cfg.CgroupParent() != "/kubik-0123abcd" ||
		cfg.NetNSPath() != "/run/netns/kubik-0123abcd" {
		t.Errorf("endpoint %s, cgroup parent %s, netns %s", cfg.Endpoint(), cfg.CgroupParent(), cfg.NetNSPath())
	}
}
