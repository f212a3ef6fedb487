// Package node5 is chapter 5's node: what a machine runs to be a Kubernetes
// node — its container runtime (a containerd of its own, unless
// --container-runtime-endpoint names one) and its kubelet, identity
// system:node:<name>, which can be restarted alone (SIGHUP, restart.go)
// like `systemctl restart kubelet` on a real machine.
//
// Chapter 5's cluster5 runs one such node for this machine next to chapter
// 4's control plane. Chapter 6 runs several, each inside a network
// namespace of its own with its own pod network: the seam is Config.Network
// (which CNI configuration and plugins containerd uses) and Config.NetNS
// (which network namespace the node lives in).
package node5

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kubik/ch01-apiserver/pki"
	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/ch05-kubelet/kubelet"
	"kubik/ch05-kubelet/kubelet/server"
)

// Config is the node's configuration: the kubelet's flags, with upstream's
// names, and the network seam.
type Config struct {
	HostnameOverride string
	NodeIP           string
	RuntimeEndpoint  string
	RootDir          string
	PodCIDR          string
	ImageDir         string

	PodManifestPath    string
	FileCheckFrequency time.Duration
	ClusterDNS         string
	ClusterDomain      string
	ResolvConf         string
	Server             ServerFlags // the kubelet API: server.go

	// Network is the pod network of the node's containerd; nil: chapter
	// 5's reference bridge (containerd.BridgeNetwork).
	Network containerd.Network `json:"-"`
	// NetNS is the network namespace the node lives in, when it is a
	// machine of its own (chapter 6); empty: this machine, with a network
	// namespace of its own for containerd and the pods.
	NetNS string
}

// NewConfig is the configuration with its defaults.
func NewConfig() *Config {
	return &Config{PodCIDR: "10.244.0.0/24", FileCheckFrequency: kubelet.DefaultFileCheckFrequency, ResolvConf: "/etc/resolv.conf",
		Server: ServerFlags{Port: server.DefaultPort}}
}

// AddFlags registers the kubelet's flags; c's values are their defaults
// (a later chapter sets some before: chapter 7's --cluster-dns).
func (c *Config) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.HostnameOverride, "hostname-override", c.HostnameOverride, "the node's name (default: the machine's hostname)")
	fs.StringVar(&c.NodeIP, "node-ip", c.NodeIP, "the node's InternalIP (default: the machine's first non-loopback IPv4 address)")
	fs.StringVar(&c.RuntimeEndpoint, "container-runtime-endpoint", c.RuntimeEndpoint, "the CRI socket of a containerd already running (default: start our own, with state under --root-dir)")
	fs.StringVar(&c.RootDir, "root-dir", c.RootDir, "the kubelet's directory: containerd's state, pods' volumes (pods/<uid>), pod logs (logs/pods) (default: --data-dir/kubelet)")
	fs.StringVar(&c.PodCIDR, "pod-cidr", c.PodCIDR, "the node's pod subnet (hollow nodes use 10.244.1.0/24 onwards)")
	fs.StringVar(&c.ImageDir, "image-dir", c.ImageDir, "OCI image tarballs imported into containerd at start when missing (default: --data-dir/images; `make images` writes them)")
	fs.StringVar(&c.PodManifestPath, "pod-manifest-path", c.PodManifestPath, "a directory of static pod manifests the kubelet runs without the apiserver, shown there as mirror pods (default: none)")
	fs.DurationVar(&c.FileCheckFrequency, "file-check-frequency", c.FileCheckFrequency, "how often --pod-manifest-path is read again")
	fs.StringVar(&c.ClusterDNS, "cluster-dns", c.ClusterDNS, "comma-separated IPs of the cluster's DNS server, the nameserver of dnsPolicy ClusterFirst pods (default: none; such pods get the node's resolver and a MissingClusterDNS event)")
	fs.StringVar(&c.ClusterDomain, "cluster-domain", c.ClusterDomain, "the cluster's DNS domain (e.g. cluster.local): ClusterFirst pods search <ns>.svc.<domain> svc.<domain> <domain>")
	c.Server.AddFlags(fs)
	fs.StringVar(&c.ResolvConf, "resolv-conf", c.ResolvConf, "the node's resolver config, which dnsPolicy Default pods get (\"\": none)")
}

// Resolve checks that this machine can run containers for us (Linux, root,
// the tools) and fills the defaults that depend on the machine and the data
// dir: the root and image dirs, the node's name and IP. Call it once,
// before anything starts: the cluster needs the name to issue the kubelet's
// identity, and a machine that cannot run containers is refused before the
// control plane starts.
func (c *Config) Resolve(dataDir string) error {
	if err := containerd.CheckHost(); err != nil {
		return err
	}
	if c.RootDir == "" {
		c.RootDir = filepath.Join(dataDir, "kubelet")
	}
	if c.ImageDir == "" {
		c.ImageDir = filepath.Join(dataDir, "images")
	}
	var err error
	if c.RootDir, err = filepath.Abs(c.RootDir); err != nil {
		return err
	}
	if c.HostnameOverride == "" {
		h, err := os.Hostname()
		if err != nil {
			return err
		}
		c.HostnameOverride = strings.ToLower(h)
	}
	if c.NodeIP == "" {
		if c.NodeIP, err = firstIPv4(); err != nil {
			return err
		}
	}
	return nil
}

// Node is a running node.
type Node struct {
	Name     string
	IP       string
	Endpoint string // the CRI endpoint its kubelet uses

	runtime *containerd.Daemon // nil: a runtime someone else runs
	kubelet *kubeletService
}

// Start starts the node's runtime (unless one is given) and its kubelet,
// which runs until ctx ends. kubeconfig is the kubelet's identity
// (system:node:<name>); ca issues its serving certificate and verifies the
// apiserver's client certificate — nil when cfg.Server names the files
// (chapter 6's machines get theirs from the cluster's PKI). cfg must be
// Resolved.
func Start(ctx context.Context, cfg *Config, kubeconfig string, ca *pki.CA, log *slog.Logger) (_ *Node, err error) {
	n := &Node{Name: cfg.HostnameOverride, IP: cfg.NodeIP, Endpoint: cfg.RuntimeEndpoint}
	defer func() {
		if err != nil {
			n.Stop()
		}
	}()

	// The node's runtime: our own containerd unless one is given.
	netns := cfg.NetNS
	rc := containerd.Config{Dir: filepath.Join(cfg.RootDir, "containerd"), Name: RuntimeName(cfg.RootDir),
		PodCIDR: cfg.PodCIDR, SandboxImage: images.Pause, Network: cfg.Network, NetNS: cfg.NetNS, Logger: log}
	if n.Endpoint == "" {
		if n.runtime, err = containerd.Start(ctx, rc); err != nil {
			return nil, err
		}
		n.Endpoint, netns = rc.Endpoint(), rc.NetNSPath()
		if err := importImages(n.runtime, cfg.ImageDir, log); err != nil {
			return nil, err
		}
	}

	kcfg := kubelet.Config{NodeName: n.Name, NodeIP: n.IP, Kubeconfig: kubeconfig, RuntimeEndpoint: n.Endpoint,
		PodCIDR: cfg.PodCIDR, CgroupParent: rc.CgroupParent(), PodLogsDir: filepath.Join(cfg.RootDir, "logs", "pods"),
		RootDir: cfg.RootDir, NetNS: netns, Logger: log,
		PodManifestPath: cfg.PodManifestPath, FileCheckFrequency: cfg.FileCheckFrequency,
		ClusterDomain: cfg.ClusterDomain, ResolvConf: cfg.ResolvConf}
	if cfg.ClusterDNS != "" {
		kcfg.ClusterDNS = strings.Split(cfg.ClusterDNS, ",")
	}
	if kcfg.Server, err = cfg.Server.config(ca, n.Name, n.IP, cfg.RootDir); err != nil {
		return nil, err
	}
	// The kubelet, restarted alone on SIGHUP: restart.go.
	if n.kubelet, err = startKubelet(ctx, kcfg, log); err != nil {
		return nil, err
	}
	return n, nil
}

// Wait returns when the kubelet has stopped: nil once ctx has ended, the
// error it failed with otherwise.
func (n *Node) Wait() error {
	err := <-n.kubelet.done
	n.kubelet.done <- err // for Stop
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Stop waits for the kubelet to stop (its context must have ended), then,
// if the runtime is the node's own, removes the pods — our containerd goes
// with us, so they must go first — and stops containerd, leaving no
// containers, mounts, network namespace or cgroups behind.
func (n *Node) Stop() {
	if n.kubelet != nil {
		<-n.kubelet.done
		k := n.kubelet.Kubelet()
		if n.runtime != nil {
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if err := k.Shutdown(sctx); err != nil {
				n.kubelet.log.Error("removing the pods failed", "err", err)
			}
			cancel()
		}
		k.Close()
		n.kubelet = nil
	}
	if n.runtime != nil {
		n.runtime.Stop()
		n.runtime = nil
	}
}

// RuntimeName names the node's containerd network namespace, cgroup parent
// and CNI network after its root dir, so two runs in different dirs never
// clash.
func RuntimeName(rootDir string) string {
	sum := sha256.Sum256([]byte(rootDir))
	return "kubik-" + hex.EncodeToString(sum[:4])
}

// importImages imports the tarballs of dir whose images containerd lacks.
func importImages(d *containerd.Daemon, dir string, log *slog.Logger) error {
	log = log.With("component", "kubelet")
	tars, _ := filepath.Glob(filepath.Join(dir, "*.tar"))
	if len(tars) == 0 {
		log.Warn("no image tarballs: run `make images` (pods can use only images containerd already has)", "dir", dir)
		return nil
	}
	have, err := d.Images()
	if err != nil {
		return err
	}
	for _, t := range tars {
		names, err := images.Names(t)
		if err != nil {
			return err
		}
		missing := false
		for _, n := range names {
			missing = missing || !have[n]
		}
		if !missing {
			continue
		}
		start := time.Now()
		if err := d.ImportImage(t); err != nil {
			return err
		}
		log.Info("image imported", "images", strings.Join(names, ","), "took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// firstIPv4 is the machine's first global unicast IPv4 address, as the
// kubelet picks its node IP when --node-ip is not given.
func firstIPv4() (string, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
			return n.IP.String(), nil
		}
	}
	return "127.0.0.1", nil
}
