package kubik

import (
	"fmt"
	"net/netip"

	"gopkg.in/yaml.v3"

	"kubik/ch06-cni/fabric"
)

// ConfigFor is the configuration for the cloud of chapter 6's fabric f:
// its bridge and machines, the balancer as one more of its namespaces
// (kubik-<id>-balancer, so that the fabric's Cleanup removes it too) at
// the node network's .2, the pool .200-.250, the records in stateFile.
// The node network must be a /24 or larger.
func ConfigFor(f fabric.Config, stateFile string) (*Config, error) {
	n := f.NodeCIDR.Masked()
	if !n.Addr().Is4() || n.Bits() > 24 {
		return nil, fmt.Errorf("node network %s: the kubik cloud needs an IPv4 /24 or larger", n)
	}
	at := func(i int) netip.Addr {
		b := n.Addr().As4()
		b[3] += byte(i)
		return netip.AddrFrom4(b)
	}
	cfg := &Config{
		LoadBalancer: LoadBalancerConfig{IPPool: at(200).String() + "-" + at(250).String()},
		Network:      NetworkConfig{NodeCIDR: n.String(), Bridge: f.BridgeName()},
		Balancer:     BalancerConfig{NetNS: f.NamespaceName("balancer"), Address: at(2).String(), StateFile: stateFile},
		Instances:    InstancesConfig{NetNSPrefix: f.NamespaceName("")},
	}
	if err := cfg.complete(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Marshal is the configuration as a --cloud-config file.
func (c *Config) Marshal() ([]byte, error) { return yaml.Marshal(c) }
