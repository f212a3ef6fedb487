package nodeagent

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"path/filepath"
	"time"

	"github.com/containernetworking/cni/libcni"
)

// The backends, named as flannel names them in its net-conf.json.
const (
	BackendHostGW = "host-gw"
	BackendVXLAN  = "vxlan"
)

// Defaults of Config.
const (
	DefaultClusterCIDR  = "10.244.0.0/16"
	DefaultInterface    = "eth0"
	DefaultResyncPeriod = 30 * time.Second
)

// Config is what the agent needs to know; the flags of kubik-node-agent.
type Config struct {
	// NodeName is the Node this agent runs on (flannel: NODE_NAME).
	NodeName string
	// Kubeconfig is the path of the agent's kubeconfig (Identity(NodeName)).
	Kubeconfig string
	// Backend is BackendHostGW (default) or BackendVXLAN.
	Backend string
	// ClusterCIDR is the cluster's pod network; every Node's podCIDR lies
	// in it (flannel: "Network" of net-conf.json).
	ClusterCIDR netip.Prefix
	// Interface carries the traffic between nodes (flannel: --iface);
	// default eth0.
	Interface string
	// PublicIP is the address other nodes reach this one at (flannel:
	// --public-ip); default the first IPv4 address of Interface.
	PublicIP netip.Addr
	// SubnetFile is where the CNI plugin's subnet file is written.
	SubnetFile string
	// CNIConfPath and CNIConfList: the network configuration list written
	// once the node's network is ready (containerd's CNI conf_dir/<file>).
	// An empty CNIConfPath writes nothing.
	CNIConfPath string
	CNIConfList []byte
	// ResyncPeriod is how often everything is checked against the Nodes
	// besides the watch (default 30 s).
	ResyncPeriod time.Duration
	Logger       *slog.Logger
}

// complete fills in the defaults and checks cfg.
func (cfg *Config) complete() error {
	if cfg.Backend == "" {
		cfg.Backend = BackendHostGW
	}
	if cfg.Interface == "" {
		cfg.Interface = DefaultInterface
	}
	if !cfg.ClusterCIDR.IsValid() {
		cfg.ClusterCIDR = netip.MustParsePrefix(DefaultClusterCIDR)
	}
	if cfg.ResyncPeriod <= 0 {
		cfg.ResyncPeriod = DefaultResyncPeriod
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var errs []error
	if cfg.NodeName == "" {
		errs = append(errs, errors.New("the node name is required"))
	}
	if cfg.Kubeconfig == "" {
		errs = append(errs, errors.New("a kubeconfig is required"))
	}
	if cfg.Backend != BackendHostGW && cfg.Backend != BackendVXLAN {
		errs = append(errs, fmt.Errorf("backend %q: must be %s or %s", cfg.Backend, BackendHostGW, BackendVXLAN))
	}
	if !cfg.ClusterCIDR.Addr().Is4() || cfg.ClusterCIDR.Masked() != cfg.ClusterCIDR {
		errs = append(errs, fmt.Errorf("cluster CIDR %s: must be a canonical IPv4 prefix", cfg.ClusterCIDR))
	}
	if cfg.PublicIP.IsValid() && !cfg.PublicIP.Is4() {
		errs = append(errs, fmt.Errorf("public IP %s: must be an IPv4 address", cfg.PublicIP))
	}
	if cfg.SubnetFile == "" || !filepath.IsAbs(cfg.SubnetFile) {
		errs = append(errs, fmt.Errorf("subnet file %q: must be an absolute path", cfg.SubnetFile))
	}
	if cfg.CNIConfPath != "" {
		if _, err := libcni.ConfListFromBytes(cfg.CNIConfList); err != nil {
			errs = append(errs, fmt.Errorf("CNI network configuration list: %w", err))
		}
	}
	return errors.Join(errs...)
}
