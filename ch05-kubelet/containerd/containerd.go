// Package containerd runs the node's container runtime: one containerd
// daemon of our own, configured and started by the kubelet's process and
// stopped with it. On a real machine containerd is a systemd service the
// kubelet finds at --container-runtime-endpoint; here the program owns it so
// that `make ch05-run` works on a fresh machine and leaves nothing behind.
//
// What this package writes and starts (everything under Config.Dir, except
// the network namespace and the cgroups, which the kernel keeps elsewhere):
//
//	<dir>/config.toml          containerd's config: root, state, socket, opt and runc state
//	                           under <dir>, sandbox_image = our pause image,
//	                           restrict_oom_score_adj (this machine lacks CAP_SYS_RESOURCE)
//	<dir>/net.d/10-kubik.conflist  the CNI network: reference bridge + host-local plugins
//	<dir>/containerd.sock      the CRI endpoint the kubelet dials
//	/run/netns/<Name>          the node's network namespace: containerd runs in it
//	                           (nsenter --net, never `ip netns exec`, which remounts /sys),
//	                           so the CNI bridge, the pods' gateway and ip_forward live there
//	                           and no route from the machine's own namespace leads into the
//	                           pod network — nothing a pod sends can leave the machine
//	/sys/fs/cgroup/*/<Name>/   the pods' cgroups (the kubelet passes CgroupParent /<Name>/pod<uid>)
//
// Stop (and Cleanup, which a crashed run's successor calls first) removes all
// of it: containerd by PID, left-over shims by PID, mounts under <dir>, the
// network namespace, the cgroups and the CNI result cache entries.
package containerd

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Config describes the node's containerd.
type Config struct {
	Dir          string // everything of containerd's lives here (absolute)
	Name         string // network namespace, cgroup parent and CNI network name, e.g. kubik-3f2a9c1d
	PodCIDR      string // the node's pod subnet, e.g. 10.244.0.0/24
	SandboxImage string // the pause image, e.g. registry.k8s.io/pause:3.10 (imported, never pulled)
	// Network is the pod network: the CNI configuration containerd reads
	// and the plugins it execs for each pod sandbox. Nil: chapter 5's,
	// BridgeNetwork. Chapter 6 brings its own plugin.
	Network Network
	// NetNS is a network namespace that already exists (a path), for a
	// node that is a machine of its own (chapter 6): containerd runs in it,
	// and it stays when containerd stops. Empty: containerd gets a
	// namespace of its own, Name, made by Start and removed by Stop.
	NetNS  string
	Logger *slog.Logger
}

// Network is the seam between the node and its pod network. containerd
// (its CRI plugin) execs CNI plugins from one directory, inside the node's
// network namespace, for every pod sandbox; which plugins, configured how,
// is the network's business — the network chapter's.
type Network interface {
	// ConfList is the CNI network configuration list (net.d), written
	// before containerd starts: its reload on change is unreliable. Nil:
	// none yet — the network's node agent writes it (at ConfListPath) once
	// the node's network is set up; until then the runtime reports
	// NetworkReady=false and the Node is NotReady, as upstream.
	ConfList(cfg Config) ([]byte, error)
	// BinDir is the directory of plugin binaries (containerd's bin_dir).
	BinDir() string
}

// Daemon is a running containerd.
type Daemon struct {
	cfg  Config
	cmd  *exec.Cmd
	done chan struct{}
	log  *slog.Logger
}

// Socket is the CRI endpoint, as --container-runtime-endpoint spells it.
func (c Config) Socket() string { return filepath.Join(c.Dir, "containerd.sock") }

// ConfListPath is where containerd reads the pod network's CNI
// configuration list.
func (c Config) ConfListPath() string { return filepath.Join(c.Dir, "net.d", "10-kubik.conflist") }

// Endpoint is the gRPC target of Socket (absolute: unix:///...).
func (c Config) Endpoint() string { return "unix://" + c.Socket() }

// NetNSPath is the node's network namespace.
func (c Config) NetNSPath() string {
	if c.NetNS != "" {
		return c.NetNS
	}
	return "/run/netns/" + c.Name
}

// network is c.Network, or chapter 5's bridge.
func (c Config) network() Network {
	if c.Network == nil {
		return BridgeNetwork{}
	}
	return c.Network
}

// CgroupParent is where the pods' cgroups go (cgroupfs driver).
func (c Config) CgroupParent() string { return "/" + c.Name }

// LogDir is where the kubelet asks the runtime to write container logs.
func (c Config) LogDir() string { return filepath.Join(c.Dir, "pods") }

// CheckHost returns a clear error when this machine cannot run containers
// for us: not Linux, not root, or a tool missing.
func CheckHost() error {
	if runtime.GOOS != "linux" {
		return errors.New("the kubelet runs containers with containerd and runc, which need Linux; this is " + runtime.GOOS)
	}
	if os.Geteuid() != 0 {
		return errors.New("the kubelet must run as root (it starts containerd, creates a network namespace and cgroups): run it as root, e.g. `sudo env \"PATH=$PATH\" make ch05-run`")
	}
	for _, req := range Requirements() {
		tool, pkg, _ := strings.Cut(req, "=")
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found: install the package %s (all of them: scripts/ensure-deps.sh %s)", tool, pkg, strings.Join(Requirements(), " "))
		}
	}
	return nil
}

// Requirements are the commands a node needs and the Debian packages that
// have them, as scripts/ensure-deps.sh takes them (command=package).
func Requirements() []string {
	return []string{
		"containerd=containerd", "containerd-shim-runc-v2=containerd", "ctr=containerd",
		"runc=runc",
		CNIBinDir + "/bridge=containernetworking-plugins",
		"nsenter=util-linux", "ip=iproute2",
		"/bin/busybox=busybox-static", // the busybox image is made of it (see package images)
	}
}
