package cluster8

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kubik/ch06-cni/cluster6"
	"kubik/ch06-cni/fabric"
	"kubik/ch08-full-cluster/cloudprovider/kubik"
	"kubik/ch08-full-cluster/provision"
)

// Config is the chapter program's flags: the topology's size and network,
// where the binaries and the images are.
type Config struct {
	DataDir       string
	ControlPlanes int    // --control-plane
	Workers       int    // --workers
	NodeCIDR      string // --node-cidr
	SecurePort    int    // --secure-port: the apiservers' and the load balancer's
	BinDir        string // --bin-dir: the component binaries (default: this program's directory)
	// ControlPlaneBinDir (--control-plane-bin-dir) holds other
	// kube-apiserver, kube-scheduler and kube-controller-manager binaries:
	// upstream's, to run the same cluster with their control plane.
	ControlPlaneBinDir string
	// Binaries (--apiserver-bin, --scheduler-bin, --controller-manager-bin,
	// --kubelet-bin, --kube-proxy-bin) are single components run from
	// upstream's binaries instead, each with upstream's flags: keyed by
	// the component's name (every machine's) or MACHINE/COMPONENT (one
	// worker's), the value a file or the directory holding it.
	Binaries    map[string]string
	ImageDir    string // --image-dir: the nodes' image tarballs
	Backend     string
	ProxyMode   string
	DNSReplicas int
	LogLevel    string
	// EtcdUnsafeNoFsync: --etcd-unsafe-no-fsync (provision.Topology's).
	EtcdUnsafeNoFsync bool
}

// NewConfig is the default: 3 control-plane machines, 2 workers, on the
// reader's node network 10.240.0.0/24.
func NewConfig() *Config {
	return &Config{DataDir: ".kubik/ch08", ControlPlanes: 3, Workers: 2, NodeCIDR: "10.240.0.0/24", SecurePort: 6443,
		Backend: "host-gw", ProxyMode: "iptables", DNSReplicas: 2, LogLevel: "info", EtcdUnsafeNoFsync: true}
}

// AddFlags registers the flags.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "the cluster's directory: PKI, admin.kubeconfig, each machine's root (machines/<name>)")
	fs.IntVar(&c.ControlPlanes, "control-plane", c.ControlPlanes, "control-plane machines (etcd member, kube-apiserver, kube-scheduler, kube-controller-manager, cloud-controller-manager each)")
	fs.IntVar(&c.Workers, "workers", c.Workers, "worker machines (kubelet with containerd, kube-proxy, node agent each)")
	fs.StringVar(&c.NodeCIDR, "node-cidr", c.NodeCIDR, "the node network: the host's bridge .1, the cloud's balancer .2, the load balancer .10, control plane .11-, workers .21-")
	fs.IntVar(&c.SecurePort, "secure-port", c.SecurePort, "the apiservers' port, and the load balancer's (each on its machine's address)")
	fs.StringVar(&c.BinDir, "bin-dir", c.BinDir, "the component binaries (default: this program's directory)")
	fs.StringVar(&c.ControlPlaneBinDir, "control-plane-bin-dir", c.ControlPlaneBinDir, "run upstream's kube-apiserver, kube-scheduler and kube-controller-manager from this directory (make ref-build: .kubik/ref/bin) instead of --bin-dir's")
	for _, b := range []struct{ flag, component string }{{"apiserver-bin", "kube-apiserver"}, {"scheduler-bin", "kube-scheduler"},
		{"controller-manager-bin", "kube-controller-manager"}} {
		fs.Func(b.flag, "run upstream's "+b.component+" from this file (or directory, e.g. .kubik/ref/bin) on every control-plane machine", func(v string) error {
			return c.setBinary(b.component, v)
		})
	}
	for _, component := range []string{"kubelet", "kube-proxy"} {
		fs.Func(component+"-bin", "run upstream's "+component+" from FILE (or a directory holding it) on every worker, or from MACHINE=FILE on one (repeatable: w-2=.kubik/ref/bin)", func(v string) error {
			if machine, file, ok := strings.Cut(v, "="); ok {
				return c.setBinary(machine+"/"+component, file)
			}
			return c.setBinary(component, v)
		})
	}
	fs.StringVar(&c.ImageDir, "image-dir", c.ImageDir, "the nodes' image tarballs, imported by each kubelet (make images; default: DATA_DIR/../images)")
	fs.StringVar(&c.Backend, "backend", c.Backend, "the node agents' backend: host-gw or vxlan")
	fs.StringVar(&c.ProxyMode, "proxy-mode", c.ProxyMode, "kube-proxy's mode: iptables or nftables")
	fs.IntVar(&c.DNSReplicas, "dns-replicas", c.DNSReplicas, "replicas of the cluster DNS (kube-system/coredns; 0: none)")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "the components' log level: debug, info, warn or error")
	fs.BoolVar(&c.EtcdUnsafeNoFsync, "etcd-unsafe-no-fsync", c.EtcdUnsafeNoFsync, "run the etcd members with --unsafe-no-fsync: a host whose disk is shared and busy cannot stall their fsyncs (and their elections); a crash of the host loses their last writes")
}

// State is what `up` writes to DATA_DIR/cluster.json for the commands
// that act on a running cluster (down, drills, shell, poweroff).
type State struct {
	Topology provision.Topology `json:"topology"`
	BinDir   string             `json:"binDir"`
	// ControlPlaneBinDir holds the upstream control-plane binaries, if any.
	ControlPlaneBinDir string `json:"controlPlaneBinDir,omitempty"`
	// Binaries are the single components' upstream binaries (Config's).
	Binaries map[string]string `json:"binaries,omitempty"`
	ImageDir string            `json:"imageDir"`
}

func statePath(dataDir string) string { return filepath.Join(dataDir, "cluster.json") }

// maxStateFile bounds cluster.json.
const maxStateFile = 1 << 20

// LoadState reads DATA_DIR/cluster.json.
func LoadState(dataDir string) (*State, error) {
	data, err := os.ReadFile(statePath(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no cluster (no cluster.json): start one with `make ch08-run`: %w", dataDir, err)
	}
	if err != nil {
		return nil, err
	}
	if len(data) > maxStateFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", statePath(dataDir), maxStateFile)
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", statePath(dataDir), err)
	}
	return &s, s.Topology.Validate()
}

func (s *State) write(dataDir string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(statePath(dataDir), append(data, '\n'), 0o644)
}

// setBinary records key's upstream binary: a file, or the directory
// holding it (state resolves it and checks it is there).
func (c *Config) setBinary(key, file string) error {
	if file == "" {
		return errors.New("a file or a directory is needed")
	}
	if c.Binaries == nil {
		c.Binaries = map[string]string{}
	}
	c.Binaries[key] = file
	return nil
}

// Component is the component a Binaries key names (its part after the
// machine's name, if any).
func Component(key string) string {
	if _, component, ok := strings.Cut(key, "/"); ok {
		return component
	}
	return key
}

// UpstreamControlPlane are the binaries --control-plane-bin-dir replaces.
var UpstreamControlPlane = []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager"}

// Topology is the flags' topology (without the local cloud, which only
// `up` makes).
func (cfg *Config) Topology() (provision.Topology, error) {
	prefix, err := netip.ParsePrefix(cfg.NodeCIDR)
	if err != nil {
		return provision.Topology{}, fmt.Errorf("--node-cidr: %w", err)
	}
	t, err := provision.NewTopology(cfg.ControlPlanes, cfg.Workers, prefix)
	if err != nil {
		return t, err
	}
	t.SecurePort, t.Backend, t.ProxyMode, t.LogLevel = cfg.SecurePort, cfg.Backend, cfg.ProxyMode, cfg.LogLevel
	t.EtcdUnsafeNoFsync = cfg.EtcdUnsafeNoFsync
	t.UpstreamControlPlane = cfg.ControlPlaneBinDir != ""
	for key := range cfg.Binaries {
		machine, _, ok := strings.Cut(key, "/")
		if _, found := t.Machine(machine); ok && !found {
			return t, fmt.Errorf("the binary of %s: no machine %q in the topology", key, machine)
		}
		if !slices.Contains(append(provision.Binaries(provision.ControlPlane), provision.Binaries(provision.Worker)...), Component(key)) {
			return t, fmt.Errorf("the binary of %s: no such component", key)
		}
		if Component(key) == "kubelet" {
			// Its unit would start it with our kubelet's flags, without a
			// containerd of its own to talk to: it could not run.
			return t, fmt.Errorf("the binary of %s: upstream's kubelet needs a containerd unit of its own (ours runs its containerd in-process), which is not rendered yet", key)
		}
		t.Upstream = append(t.Upstream, key)
	}
	slices.Sort(t.Upstream)
	return t, t.Validate()
}

// state is the configuration as the machines will run it.
func (cfg *Config) state(dir string) (*State, error) {
	st := &State{BinDir: cfg.BinDir, ImageDir: cfg.ImageDir, ControlPlaneBinDir: cfg.ControlPlaneBinDir}
	if st.BinDir == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		st.BinDir = filepath.Dir(self)
	}
	if st.ImageDir == "" {
		st.ImageDir = filepath.Join(filepath.Dir(dir), "images")
	}
	var err error
	for _, p := range []*string{&st.BinDir, &st.ImageDir, &st.ControlPlaneBinDir} {
		if *p == "" {
			continue
		}
		if *p, err = filepath.Abs(*p); err != nil {
			return nil, err
		}
	}
	for key, file := range cfg.Binaries {
		if st.Binaries == nil {
			st.Binaries = map[string]string{}
		}
		if fi, err := os.Stat(file); err == nil && fi.IsDir() {
			file = filepath.Join(file, Component(key))
		}
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("the binary of %s: %w (make ref-build builds upstream's)", key, err)
		}
		if st.Binaries[key], err = filepath.Abs(file); err != nil {
			return nil, err
		}
	}
	for _, b := range UpstreamControlPlane {
		if _, err := os.Stat(filepath.Join(st.ControlPlaneBinDir, b)); st.ControlPlaneBinDir != "" && err != nil {
			return nil, fmt.Errorf("--control-plane-bin-dir: %w (make ref-build builds upstream's)", err)
		}
	}
	var missing []string
	need := append(append(provision.Binaries(provision.ControlPlane), provision.Binaries(provision.Worker)...), "kubik-supervisor")
	for _, b := range need {
		if _, err := os.Stat(filepath.Join(st.BinDir, b)); err != nil && b != "cloud-controller-manager" {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("--bin-dir %s lacks %s (make ch08-run builds them all)", st.BinDir, strings.Join(missing, ", "))
	}
	if tars, _ := filepath.Glob(filepath.Join(st.ImageDir, "*.tar")); len(tars) == 0 {
		return nil, fmt.Errorf("--image-dir %s has no image tarballs: run `make images`", st.ImageDir)
	}
	if st.Topology, err = cfg.Topology(); err != nil {
		return nil, err
	}
	st.Topology.UpstreamControlPlane = st.ControlPlaneBinDir != ""
	if _, err := os.Stat(filepath.Join(st.BinDir, "cloud-controller-manager")); err == nil {
		fcfg, err := fabricConfig(dir, st.Topology)
		if err != nil {
			return nil, err
		}
		st.Topology.Cloud = cloudConfig(st.Topology, dir, fcfg, hostNetNS())
	}
	return st, st.Topology.Validate()
}

// cloudConfig is the kubik cloud of this host: the fabric's bridge as its
// network, a balancer namespace at the node network's .2 with the
// addresses .200-.250, the machines' namespaces as its instances. The
// cloud-controller-manager runs on a control-plane machine, and reaches
// the bridge in the host's namespace (hostNetNS), as a cloud's API
// reaches the cloud's network.
func cloudConfig(t provision.Topology, dataDir string, fcfg fabric.Config, hostNetNS string) *kubik.Config {
	at := func(n byte) string {
		b := t.NodeCIDR.Addr().As4()
		b[3] += n
		return netip.AddrFrom4(b).String()
	}
	return &kubik.Config{
		LoadBalancer: kubik.LoadBalancerConfig{IPPool: at(200) + "-" + at(250)},
		Network:      kubik.NetworkConfig{NodeCIDR: t.NodeCIDR.String(), Bridge: fcfg.BridgeName(), BridgeNetNS: hostNetNS},
		Balancer: kubik.BalancerConfig{NetNS: fcfg.NamespaceName("balancer"), Address: at(2),
			StateFile: filepath.Join(dataDir, "cloud", "state.json")},
		Instances: kubik.InstancesConfig{NetNSPrefix: fcfg.NamespaceName(""), Interface: t.Interface},
	}
}

// fabricConfig is the fabric of the cluster in dataDir (its names carry a
// hash of the directory, as chapter 6's).
func fabricConfig(dataDir string, t provision.Topology) (fabric.Config, error) {
	return cluster6.FabricConfig(dataDir, t.NodeCIDR.String(), t.ClusterCIDR, t.ServiceCIDR, nil)
}

// sameMachines reports whether two topologies have the same machines (a
// data dir keeps its etcd members: another topology needs a fresh one).
func sameMachines(a, b provision.Topology) bool {
	return slices.Equal(a.Machines, b.Machines) && a.NodeCIDR == b.NodeCIDR
}
