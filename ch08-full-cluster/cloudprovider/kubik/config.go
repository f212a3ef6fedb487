package kubik

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Config is the provider's configuration file (--cloud-config), in YAML:
//
//	loadBalancer:
//	  ipPool: 10.240.8.200-10.240.8.250   # the balancers' addresses, on the node network
//	network:
//	  nodeCIDR: 10.240.8.0/24             # the node network
//	  bridge: kbr1a2b3c                   # its bridge
//	  bridgeNetNS: ""                     # the namespace the bridge is in ("": this process's)
//	balancer:
//	  netns: kubik-1a2b3c-balancer        # the balancer's namespace, /run/netns/<netns>
//	  address: 10.240.8.2                 # its own address on the node network
//	  hostLink: ""                        # its veth's end on the bridge ("": klb + a hash)
//	  stateFile: ""                       # the cloud's records ("": /run/kubik-cloud/<netns>.json)
//	instances:
//	  netnsPrefix: kubik-1a2b3c-          # node N's machine is /run/netns/<prefix>N
//	  interface: eth0                     # the machine's link on the node network
type Config struct {
	LoadBalancer LoadBalancerConfig `yaml:"loadBalancer"`
	Network      NetworkConfig      `yaml:"network"`
	Balancer     BalancerConfig     `yaml:"balancer"`
	Instances    InstancesConfig    `yaml:"instances"`
}

// LoadBalancerConfig is the balancers' address pool.
type LoadBalancerConfig struct {
	// IPPool is "first-last" or a CIDR, inside the node network.
	IPPool string `yaml:"ipPool"`
}

// NetworkConfig is the node network the machines share.
type NetworkConfig struct {
	NodeCIDR    string `yaml:"nodeCIDR"`
	Bridge      string `yaml:"bridge"`
	BridgeNetNS string `yaml:"bridgeNetNS"`
}

// BalancerConfig is the balancer's namespace.
type BalancerConfig struct {
	NetNS     string `yaml:"netns"`
	Address   string `yaml:"address"`
	HostLink  string `yaml:"hostLink"`
	StateFile string `yaml:"stateFile"`
}

// InstancesConfig says where the machines are.
type InstancesConfig struct {
	NetNSPrefix string `yaml:"netnsPrefix"`
	Interface   string `yaml:"interface"`
}

// maxConfigSize bounds the configuration file.
const maxConfigSize = 64 << 10

// NetNSDir is where named network namespaces are (ip netns).
const NetNSDir = "/run/netns"

// ParseConfig reads and checks a configuration, filling in the defaults.
// Unknown fields, a second document and anything over 64 KiB are errors.
func ParseConfig(r io.Reader) (*Config, error) {
	if r == nil {
		return nil, errors.New("the kubik cloud provider needs --cloud-config")
	}
	data, err := io.ReadAll(io.LimitReader(r, maxConfigSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfigSize {
		return nil, fmt.Errorf("cloud config: larger than %d bytes", maxConfigSize)
	}
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("cloud config: %w", err)
	}
	var extra any
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, errors.New("cloud config: more than one YAML document")
	}
	if err := cfg.complete(); err != nil {
		return nil, fmt.Errorf("cloud config: %w", err)
	}
	return &cfg, nil
}

// parsed is the configuration, checked.
type parsed struct {
	nodeCIDR netip.Prefix
	pool     pool
	address  netip.Addr
}

func (c *Config) complete() error {
	if c.Network.Bridge == "" {
		return errors.New("network.bridge is required")
	}
	if c.Balancer.NetNS == "" || strings.ContainsAny(c.Balancer.NetNS, "/\x00") || c.Balancer.NetNS == "." || c.Balancer.NetNS == ".." {
		return fmt.Errorf("balancer.netns %q: a namespace name is required", c.Balancer.NetNS)
	}
	if c.Instances.NetNSPrefix == "" || strings.ContainsAny(c.Instances.NetNSPrefix, "/\x00") {
		return fmt.Errorf("instances.netnsPrefix %q: a namespace name prefix is required", c.Instances.NetNSPrefix)
	}
	if c.Instances.Interface == "" {
		c.Instances.Interface = "eth0"
	}
	if c.Balancer.HostLink == "" {
		sum := sha256.Sum256([]byte(c.Balancer.NetNS))
		c.Balancer.HostLink = "klb" + hex.EncodeToString(sum[:3])
	}
	if len(c.Balancer.HostLink) > 15 {
		return fmt.Errorf("balancer.hostLink %q: longer than 15 characters", c.Balancer.HostLink)
	}
	if c.Balancer.StateFile == "" {
		c.Balancer.StateFile = filepath.Join("/run/kubik-cloud", c.Balancer.NetNS+".json")
	}
	_, err := c.parse()
	return err
}

func (c *Config) parse() (*parsed, error) {
	var p parsed
	var err error
	if p.nodeCIDR, err = netip.ParsePrefix(c.Network.NodeCIDR); err != nil || !p.nodeCIDR.Addr().Is4() {
		return nil, fmt.Errorf("network.nodeCIDR %q: an IPv4 CIDR is required", c.Network.NodeCIDR)
	}
	p.nodeCIDR = p.nodeCIDR.Masked()
	if p.address, err = netip.ParseAddr(c.Balancer.Address); err != nil || !p.nodeCIDR.Contains(p.address) {
		return nil, fmt.Errorf("balancer.address %q: an address of %s is required", c.Balancer.Address, p.nodeCIDR)
	}
	if p.pool, err = parsePool(c.LoadBalancer.IPPool); err != nil {
		return nil, fmt.Errorf("loadBalancer.ipPool: %w", err)
	}
	if !p.nodeCIDR.Contains(p.pool.first) || !p.nodeCIDR.Contains(p.pool.last) {
		return nil, fmt.Errorf("loadBalancer.ipPool %s: not inside network.nodeCIDR %s", p.pool, p.nodeCIDR)
	}
	if p.pool.contains(p.address) {
		return nil, fmt.Errorf("loadBalancer.ipPool %s contains balancer.address %s", p.pool, p.address)
	}
	return &p, nil
}

// pool is a range of IPv4 addresses, first to last.
type pool struct{ first, last netip.Addr }

// maxPoolSize bounds the pool: every allocation walks it.
const maxPoolSize = 1 << 16

// parsePool reads "10.240.8.200-10.240.8.250" or "10.240.8.192/27".
func parsePool(s string) (pool, error) {
	s = strings.TrimSpace(s)
	var p pool
	if first, last, ok := strings.Cut(s, "-"); ok {
		var err1, err2 error
		p.first, err1 = netip.ParseAddr(strings.TrimSpace(first))
		p.last, err2 = netip.ParseAddr(strings.TrimSpace(last))
		if err1 != nil || err2 != nil || !p.first.Is4() || !p.last.Is4() || p.last.Less(p.first) {
			return p, fmt.Errorf("%q: want first-last IPv4 addresses, first <= last", s)
		}
	} else {
		prefix, err := netip.ParsePrefix(s)
		if err != nil || !prefix.Addr().Is4() {
			return p, fmt.Errorf("%q: want first-last or an IPv4 CIDR", s)
		}
		prefix = prefix.Masked()
		p.first, p.last = prefix.Addr(), lastAddr(prefix)
	}
	if p.size() > maxPoolSize {
		return p, fmt.Errorf("%q: more than %d addresses", s, maxPoolSize)
	}
	return p, nil
}

func (p pool) String() string { return p.first.String() + "-" + p.last.String() }

func (p pool) contains(a netip.Addr) bool {
	return a.Is4() && !a.Less(p.first) && !p.last.Less(a)
}

func (p pool) size() int {
	f, l := p.first.As4(), p.last.As4()
	return int(be32(l)) - int(be32(f)) + 1
}

func be32(b [4]byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().As4()
	v := be32(b) | (1<<(32-p.Bits()) - 1)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}
