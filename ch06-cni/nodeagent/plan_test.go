package nodeagent

import (
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

var (
	testCluster = netip.MustParsePrefix("10.244.0.0/16")
	testOwn     = netip.MustParsePrefix("10.244.1.0/24")
)

func testNode(name, cidr, ip string, annotations map[string]string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}
	n.Spec.PodCIDR = cidr
	if ip != "" {
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: name}, {Type: corev1.NodeInternalIP, Address: ip}}
	}
	return n
}

func vxlanAnnotations(mac, ip string) map[string]string {
	return nodeAnnotations(BackendVXLAN, fmt.Sprintf(`{"VNI":1,"VtepMAC":%q}`, mac), ip)
}

func TestHostGWPlan(t *testing.T) {
	nodes := []*corev1.Node{
		testNode("node-3", "10.244.3.0/24", "10.240.0.13", nil),
		testNode("node-1", "10.244.1.0/24", "10.240.0.11", nil), // this node
		testNode("node-2", "10.244.2.0/24", "10.240.0.12", nil),
		testNode("no-cidr", "", "10.240.0.14", nil),
		testNode("no-ip", "10.244.5.0/24", "", nil),
		testNode("outside", "10.99.0.0/24", "10.240.0.16", nil),
		testNode("wide", "10.0.0.0/8", "10.240.0.17", nil),
		testNode("mine-too", "10.244.1.128/25", "10.240.0.18", nil),
		testNode("same-as-3", "10.244.3.0/24", "10.240.0.19", nil), // sorts after node-3
		testNode("bad-cidr", "10.244.7.1/24", "10.240.0.20", nil),
		testNode("v6", "fd00::/64", "10.240.0.21", nil),
	}
	peers, skipped := peersFor(BackendHostGW, "node-1", testCluster, testOwn, nodes)
	got := planHostGW(peers)
	want := plan{Routes: []route{
		{Dst: netip.MustParsePrefix("10.244.2.0/24"), Gw: netip.MustParseAddr("10.240.0.12")},
		{Dst: netip.MustParsePrefix("10.244.3.0/24"), Gw: netip.MustParseAddr("10.240.0.13")},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plan:\n got %+v\nwant %+v", got, want)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Node] = s.Reason
	}
	for node, part := range map[string]string{
		"no-cidr":   "no spec.podCIDR yet",
		"no-ip":     "no IPv4 InternalIP",
		"outside":   "not inside the cluster CIDR 10.244.0.0/16",
		"wide":      "not inside the cluster CIDR",
		"mine-too":  "overlaps this node's 10.244.1.0/24",
		"same-as-3": "overlaps node node-3's 10.244.3.0/24",
		"bad-cidr":  "host bits set",
		"v6":        "no IPv4 entry",
	} {
		if !strings.Contains(reasons[node], part) {
			t.Errorf("node %s: reason %q, want it to say %q", node, reasons[node], part)
		}
	}
	if len(skipped) != 8 {
		t.Errorf("skipped %v", skipped)
	}
}

func TestVXLANPlan(t *testing.T) {
	mac2, mac3 := "aa:bb:cc:00:00:02", "aa:bb:cc:00:00:03"
	nodes := []*corev1.Node{
		testNode("node-1", "10.244.1.0/24", "10.240.0.11", vxlanAnnotations("aa:bb:cc:00:00:01", "10.240.0.11")),
		// The public-ip annotation, not the InternalIP, is where the VTEP listens.
		testNode("node-2", "10.244.2.0/24", "10.240.0.99", vxlanAnnotations(mac2, "10.240.0.12")),
		testNode("node-3", "10.244.3.0/24", "", vxlanAnnotations(mac3, "10.240.0.13")),
		testNode("host-gw", "10.244.4.0/24", "10.240.0.14", nodeAnnotations(BackendHostGW, "null", "10.240.0.14")),
		testNode("no-agent", "10.244.5.0/24", "10.240.0.15", nil),
		testNode("bad-mac", "10.244.6.0/24", "10.240.0.16", vxlanAnnotations("zz", "10.240.0.16")),
		testNode("multicast-mac", "10.244.7.0/24", "10.240.0.17", vxlanAnnotations("01:00:5e:00:00:01", "10.240.0.17")),
		testNode("other-vni", "10.244.8.0/24", "10.240.0.18",
			nodeAnnotations(BackendVXLAN, `{"VNI":2,"VtepMAC":"aa:bb:cc:00:00:08"}`, "10.240.0.18")),
		testNode("no-public-ip", "10.244.9.0/24", "10.240.0.19", vxlanAnnotations("aa:bb:cc:00:00:09", "")),
		testNode("same-mac", "10.244.10.0/24", "10.240.0.20", vxlanAnnotations(mac3, "10.240.0.20")),
		testNode("loopback", "10.244.11.0/24", "10.240.0.21", vxlanAnnotations("aa:bb:cc:00:00:11", "127.0.0.1")),
	}
	peers, skipped := peersFor(BackendVXLAN, "node-1", testCluster, testOwn, nodes)
	got := planVXLAN(peers)
	if len(got.Routes) != 2 {
		t.Fatalf("plan %+v; skipped %v", got, skipped)
	}
	var lines []string
	for _, r := range got.Routes {
		lines = append(lines, "route "+r.String())
	}
	for _, n := range got.Neighbors {
		lines = append(lines, "neigh "+n.IP.String()+" lladdr "+n.MAC.String())
	}
	for _, f := range got.FDB {
		lines = append(lines, "fdb "+f.MAC.String()+" dst "+f.Dst.String())
	}
	want := []string{
		"route 10.244.2.0/24 via 10.244.2.0 onlink",
		"route 10.244.3.0/24 via 10.244.3.0 onlink",
		"neigh 10.244.2.0 lladdr " + mac2,
		"neigh 10.244.3.0 lladdr " + mac3,
		"fdb " + mac2 + " dst 10.240.0.12",
		"fdb " + mac3 + " dst 10.240.0.13",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("plan:\n got %q\nwant %q", lines, want)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Node] = s.Reason
	}
	for node, part := range map[string]string{
		"host-gw":       `is "host-gw", not "vxlan"`,
		"no-agent":      `is "", not "vxlan"`,
		"bad-mac":       "not an Ethernet address",
		"multicast-mac": "multicast",
		"other-vni":     "VNI 2",
		"no-public-ip":  "not an IPv4 address",
		"same-mac":      "is node node-3's too",
		"loopback":      "not a unicast address",
	} {
		if !strings.Contains(reasons[node], part) {
			t.Errorf("node %s: reason %q, want it to say %q", node, reasons[node], part)
		}
	}
}

func TestBackendData(t *testing.T) {
	d := vxlanBackendData{VNI: 1, VtepMAC: "0a:58:0a:f4:01:00"}
	if got := d.marshal(); got != `{"VNI":1,"VtepMAC":"0a:58:0a:f4:01:00"}` {
		t.Fatalf("marshal: %s", got)
	}
	if got, err := parseVXLANBackendData(d.marshal()); err != nil || got.mac.String() != d.VtepMAC || got.VNI != 1 {
		t.Fatalf("parse: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "null", "[]", `{"VNI":1}`, `{"VNI":1,"VtepMAC":"0a:58:0a:f4:01"}`,
		`{"VNI":"1","VtepMAC":"0a:58:0a:f4:01:00"}`, `{"VtepMAC":"` + strings.Repeat("a", 2000) + `"}`} {
		if _, err := parseVXLANBackendData(bad); err == nil {
			t.Errorf("parse %.40q: no error", bad)
		}
	}
}

func TestMasqRules(t *testing.T) {
	cr := masqRules(testCluster, testOwn, true)
	want := []string{
		"-N KUBIK-POSTRTG",
		`-A KUBIK-POSTRTG -m mark --mark 0x4000/0x4000 -m comment --comment "kube-proxy masquerades what it marked" -j RETURN`,
		`-A KUBIK-POSTRTG -s 10.244.0.0/16 -d 10.244.0.0/16 -m comment --comment "pod to pod keeps its source address" -j RETURN`,
		`-A KUBIK-POSTRTG -s 10.244.0.0/16 ! -d 224.0.0.0/4 -m comment --comment "pod to outside the pod network, not multicast" -j MASQUERADE --random-fully`,
		`-A KUBIK-POSTRTG ! -s 10.244.0.0/16 -d 10.244.1.0/24 -m comment --comment "the return path to the pods of this node" -j RETURN`,
		`-A KUBIK-POSTRTG ! -s 10.244.0.0/16 -d 10.244.0.0/16 -m comment --comment "host to remote pods" -j MASQUERADE --random-fully`,
	}
	if got := cr.saveLines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("saveLines:\n got %q\nwant %q", got, want)
	}
	if got := saveQuote([]string{"--comment", "single-word_1", "--comment", `a "q" it's`}); got != `--comment single-word_1 --comment "a \"q\" it\'s"` {
		t.Fatalf("saveQuote: %s", got)
	}
}

func TestConfigComplete(t *testing.T) {
	cfg := Config{NodeName: "n", Kubeconfig: "k", SubnetFile: "/run/s.env"}
	if err := cfg.complete(); err != nil {
		t.Fatal(err)
	}
	if cfg.Backend != BackendHostGW || cfg.Interface != "eth0" || cfg.ClusterCIDR != testCluster || cfg.ResyncPeriod != DefaultResyncPeriod {
		t.Fatalf("defaults: %+v", cfg)
	}
	bad := Config{Backend: "udp", ClusterCIDR: netip.MustParsePrefix("10.244.1.0/16"), SubnetFile: "rel",
		CNIConfPath: "/x", CNIConfList: []byte("{")}
	err := bad.complete()
	for _, part := range []string{"node name", "kubeconfig", `backend "udp"`, "canonical", "absolute", "CNI network configuration"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("error %v; want it to mention %q", err, part)
		}
	}
}
