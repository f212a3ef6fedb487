package kubik

import (
	"net/netip"
	"strings"
	"testing"

	"kubik/ch06-cni/fabric"
	"kubik/ch08-full-cluster/cloudprovider"
)

const goodConfig = `
loadBalancer:
  ipPool: 10.240.8.200-10.240.8.250
network:
  nodeCIDR: 10.240.8.0/24
  bridge: kbr1a2b3c
balancer:
  netns: kubik-1a2b3c-balancer
  address: 10.240.8.2
instances:
  netnsPrefix: kubik-1a2b3c-
`

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader(goodConfig))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Instances.Interface != "eth0" || cfg.Balancer.StateFile != "/run/kubik-cloud/kubik-1a2b3c-balancer.json" ||
		!strings.HasPrefix(cfg.Balancer.HostLink, "klb") || len(cfg.Balancer.HostLink) != 9 {
		t.Errorf("defaults: %+v", cfg)
	}
	p, _ := cfg.parse()
	if p.pool.size() != 51 || !p.pool.contains(netip.MustParseAddr("10.240.8.250")) || p.pool.contains(netip.MustParseAddr("10.240.8.251")) {
		t.Errorf("pool %s, size %d", p.pool, p.pool.size())
	}

	for _, tc := range []struct{ name, edit, want string }{
		{"unknown field", "  bridge: kbr1a2b3c\n  mtu: 1500", "field mtu not found"},
		{"pool outside the node network", "10.240.8.200-10.240.8.250|10.240.9.1-10.240.9.9", "not inside network.nodeCIDR"},
		{"pool backwards", "10.240.8.200-10.240.8.250|10.240.8.250-10.240.8.200", "first <= last"},
		{"pool as a CIDR too big", "10.240.8.200-10.240.8.250|10.0.0.0/8", "more than 65536 addresses"},
		{"address in the pool", "address: 10.240.8.2|address: 10.240.8.201", "contains balancer.address"},
		{"address off the network", "address: 10.240.8.2|address: 192.168.1.2", "an address of 10.240.8.0/24 is required"},
		{"no bridge", "  bridge: kbr1a2b3c\n|", "network.bridge is required"},
		{"netns with a slash", "netns: kubik-1a2b3c-balancer|netns: ../x", "a namespace name is required"},
		{"two documents", "netnsPrefix: kubik-1a2b3c-|netnsPrefix: kubik-1a2b3c-\n---\nx: 1", "more than one YAML document"},
	} {
		text := goodConfig
		if old, repl, ok := strings.Cut(tc.edit, "|"); ok {
			text = strings.Replace(text, old, repl, 1)
		} else {
			text = strings.Replace(text, "  bridge: kbr1a2b3c", tc.edit, 1)
		}
		_, err := ParseConfig(strings.NewReader(text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := ParseConfig(strings.NewReader(goodConfig + "#" + strings.Repeat("x", maxConfigSize))); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized: %v", err)
	}
	if _, err := ParseConfig(nil); err == nil {
		t.Error("no config accepted")
	}
}

func TestRegistered(t *testing.T) {
	if _, err := cloudprovider.InitCloudProvider("kubik", ""); err == nil || !strings.Contains(err.Error(), "needs --cloud-config") {
		t.Errorf("kubik without a config: %v", err)
	}
	if _, err := cloudprovider.InitCloudProvider("aws", ""); err == nil || err.Error() != `unknown cloud provider "aws"` {
		t.Errorf("aws: %v", err)
	}
}

func TestRenderRuleset(t *testing.T) {
	st := &state{LoadBalancers: map[string]*loadBalancerRecord{
		"b": {Service: "default/web", IP: "10.240.8.200", Ports: []lbPort{{Name: "http", Protocol: "TCP", Port: 80, NodePort: 31380}},
			Backends: []backend{{"node-1", "10.240.8.11"}, {"node-2", "10.240.8.12"}}},
		"a": {Service: "prod/db", IP: "10.240.8.201", Ports: []lbPort{{Protocol: "UDP", Port: 53, NodePort: 30053}},
			SourceRanges: []string{"10.0.0.0/8", "192.168.0.0/16"}, Backends: []backend{{"node-1", "10.240.8.11"}}},
		"c": {Service: "default/empty", IP: "10.240.8.202", Ports: []lbPort{{Protocol: "TCP", Port: 80, NodePort: 30000}}},
	}}
	want := `add table ip kubik-lb
delete table ip kubik-lb
table ip kubik-lb {
	chain prerouting {
		type nat hook prerouting priority dstnat; policy accept;
		ip saddr { 10.0.0.0/8, 192.168.0.0/16 } ip daddr 10.240.8.201 udp dport 53 dnat to 10.240.8.11 : 30053 comment "prod/db:53"
		ip daddr 10.240.8.200 tcp dport 80 dnat to numgen random mod 2 map { 0 : 10.240.8.11, 1 : 10.240.8.12 } : 31380 comment "default/web:http"
	}
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		ct status dnat snat to 10.240.8.2
	}
}
`
	if got := renderRuleset(st, netip.MustParseAddr("10.240.8.2"), nil); got != want {
		t.Errorf("ruleset:\n%s\nwant:\n%s", got, want)
	}
	if got := nftComment(`a"b c/d`); got != "a_b_c/d" {
		t.Errorf("nftComment: %q", got)
	}
}

// TestConfigFor: the configuration of a chapter 6 fabric, written and
// read back.
func TestConfigFor(t *testing.T) {
	cfg, err := ConfigFor(fabric.Config{ID: "1a2b3c", NodeCIDR: netip.MustParsePrefix("10.240.8.0/24")}, "/var/lib/x/cloud.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseConfig(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if *back != *cfg || cfg.LoadBalancer.IPPool != "10.240.8.200-10.240.8.250" || cfg.Network.Bridge != "kbr1a2b3c" ||
		cfg.Balancer.NetNS != "kubik-1a2b3c-balancer" || cfg.Balancer.Address != "10.240.8.2" || cfg.Instances.NetNSPrefix != "kubik-1a2b3c-" {
		t.Errorf("config:\n%s", data)
	}
	if _, err := ConfigFor(fabric.Config{ID: "x", NodeCIDR: netip.MustParsePrefix("10.240.8.0/28")}, ""); err == nil {
		t.Error("a /28 node network accepted")
	}
}
