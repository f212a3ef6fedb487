package containerd

import (
	"fmt"
	"net/netip"
	"path/filepath"
)

// CNIBinDir is where Debian's containernetworking-plugins puts the
// reference plugins (not /opt/cni/bin).
const CNIBinDir = "/usr/lib/cni"

// BridgeNetwork is chapter 5's pod network: the reference bridge and
// host-local plugins on the node's pod CIDR (cniConflist below) — enough
// for pods on one node; chapter 6 connects nodes.
type BridgeNetwork struct{}

// ConfList is cniConflist.
func (BridgeNetwork) ConfList(cfg Config) ([]byte, error) { return []byte(cniConflist(cfg)), nil }

// BinDir is Debian's plugin directory.
func (BridgeNetwork) BinDir() string { return CNIBinDir }

// configTOML is containerd 1.6's config (version 2): every path of its own
// under cfg.Dir, the CRI plugin with our pause image and CNI network.
func configTOML(cfg Config) string {
	d := cfg.Dir
	return fmt.Sprintf(`# Written by the kubik kubelet; rewritten at every start.
version = 2
root = %[1]q
state = %[2]q

[grpc]
  address = %[3]q

[plugins."io.containerd.internal.v1.opt"]
  path = %[4]q

[plugins."io.containerd.grpc.v1.cri"]
  # Our pause image, imported from a tarball: never pulled.
  sandbox_image = %[5]q
  # The pods' network namespaces are pinned under state, not /var/run/netns.
  netns_mounts_under_state_dir = true
  # Without CAP_SYS_RESOURCE even root cannot set a negative
  # oom_score_adj, which the pause container asks for.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %[6]q
    conf_dir = %[7]q
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        # cgroupfs driver: the kubelet passes plain cgroup paths.
        SystemdCgroup = false
        Root = %[8]q
`, filepath.Join(d, "root"), filepath.Join(d, "state"), cfg.Socket(), filepath.Join(d, "opt"),
		cfg.SandboxImage, cfg.network().BinDir(), filepath.Join(d, "net.d"), filepath.Join(d, "runc"))
}

// cniConflist is the pod network: a bridge cni0 in the node's namespace,
// addresses from host-local (its data under cfg.Dir, not the shared
// /var/lib/cni/networks), the bridge as the pods' gateway. ipMasq is off:
// pod IPs stay visible, and nothing is NATed toward a network the node
// namespace has no route to anyway.
func cniConflist(cfg Config) string {
	gw := ""
	if p, err := netip.ParsePrefix(cfg.PodCIDR); err == nil {
		gw = p.Masked().Addr().Next().String()
	}
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": %[1]q,
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": %[2]q,
        "ranges": [[{"subnet": %[3]q, "gateway": %[4]q}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`, cfg.Name, filepath.Join(cfg.Dir, "ipam"), cfg.PodCIDR, gw)
}
