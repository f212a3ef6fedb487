package iptables

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch07-kube-proxy/proxy/healthcheck"
	pt "kubik/ch07-kube-proxy/proxy/proxytest"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

// Conventions of upstream's tests using NewFakeProxier: pod IPs 10.0.0.0/8,
// ClusterIPs 172.30.0.0/16, node IPs 192.168.0.0/24 (local 192.168.0.2),
// external IPs 192.168.99.0/24, LB IPs 1.2.3.4, 5.6.7.8, 9.10.11.12,
// non-cluster IPs 203.0.113.0/24, LB source range 203.0.113.0/25.
const (
	testNodeName              = "test-node"
	testNodeIP                = "192.168.0.2"
	testNodeIPAlt             = "192.168.1.2"
	testExternalIP            = "192.168.99.11"
	testNodeIPv6              = "2001:db8::1"
	testNodeIPv6Alt           = "2001:db8:1::2"
	testExternalClient        = "203.0.113.2"
	testExternalClientBlocked = "203.0.113.130"
)

var testNodeIPs = []string{testNodeIP, testNodeIPAlt, testExternalIP, testNodeIPv6, testNodeIPv6Alt}

// NewFakeProxier is upstream's: pod CIDR 10.0.0.0/8, localhost NodePorts
// on, NodePorts on every local address, the nfacct counters present.
func NewFakeProxier(ipt *fakeIPTables) *Proxier {
	p, err := NewProxier(Config{
		IPTables:            ipt,
		SyncPeriod:          30 * time.Second,
		MasqueradeBit:       14,
		LocalhostNodePorts:  true,
		LocalDetector:       proxyutil.NewDetectLocalByCIDR("10.0.0.0/8"),
		NodeName:            testNodeName,
		NodeIP:              proxyutil.ParseIPSloppy(testNodeIP),
		Sysctl:              fakeSysctl{},
		Conntrack:           conntrackNone{},
		NFAcct:              fakeNFAcct{},
		NetworkInterfacer:   pt.NewFakeNetwork(),
		ServiceHealthServer: healthcheck.FakeServiceHealthServer{},
	})
	if err != nil {
		panic(err)
	}
	// As upstream's fake proxier (a real one formats 1<<14 as 0x00004000).
	p.masqueradeMark = "0x4000"
	p.setInitialized(true)
	return p
}

// syncProxyRules is upstream's name of SyncProxyRules.
func (p *Proxier) syncProxyRules() { _ = p.SyncProxyRules() }

func makeTestService(namespace, name string, svcFunc func(*corev1.Service)) *corev1.Service {
	return pt.MakeTestService(namespace, name, svcFunc)
}

func makeTestEndpointSlice(namespace, name string, sliceNum int, epsFunc func(*discoveryv1.EndpointSlice)) *discoveryv1.EndpointSlice {
	return pt.MakeTestEndpointSlice(namespace, name, sliceNum, epsFunc)
}

func makeServiceMap(p *Proxier, services ...*corev1.Service) {
	for _, s := range services {
		p.OnServiceAdd(s)
	}
	p.mu.Lock()
	p.servicesSynced = true
	p.mu.Unlock()
}

func populateEndpointSlices(p *Proxier, slices ...*discoveryv1.EndpointSlice) {
	for _, s := range slices {
		p.OnEndpointSliceAdd(s)
	}
}

// deepCopy copies an EndpointSlice (upstream: its generated DeepCopy).
func deepCopy(s *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	out := &discoveryv1.EndpointSlice{}
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

func getLine() int {
	_, _, line, ok := runtime.Caller(1)
	if !ok {
		return 0
	}
	return line
}

// dedent removes the indentation common to all non-blank lines.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	prefix, first := "", true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		for !strings.HasPrefix(ind, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
		} else {
			lines[i] = strings.TrimPrefix(l, prefix)
		}
	}
	return strings.Join(lines, "\n")
}

// assertIPTablesRulesEqual compares expected with the sorted result; with
// checkConsistency, it also checks that every jump has a chain with rules.
func assertIPTablesRulesEqual(t *testing.T, line int, checkConsistency bool, expected, result string) {
	t.Helper()
	expected = strings.TrimLeft(expected, " \t\n")
	sorted, err := pt.SortIPTablesRules(strings.TrimLeft(result, " \t\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(expected, sorted); diff != "" {
		t.Errorf("rules do not match (from line %d):\ndiff:\n%s\nfull result:\n%s", line, diff, sorted)
	}
	if checkConsistency {
		if err := checkIPTablesRuleJumps(expected); err != nil {
			t.Fatalf("%s (from line %d)", err, line)
		}
	}
}

// assertIPTablesChainEqual compares the rules of one chain, in order.
func assertIPTablesChainEqual(t *testing.T, line int, table Table, chain Chain, expected, result string) {
	t.Helper()
	dump, err := pt.ParseIPTablesDump(result)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	if c := dump.GetChain(string(table), string(chain)); c != nil {
		for _, r := range c.Rules {
			got += r + "\n"
		}
	}
	if diff := cmp.Diff(strings.TrimLeft(expected, " \t\n"), got); diff != "" {
		t.Errorf("chain %s/%s does not match (from line %d):\n%s", table, chain, line, diff)
	}
}

func findAllMatches(lines []string, pattern string) map[string]bool {
	re := regexp.MustCompile(pattern)
	all := map[string]bool{}
	for _, l := range lines {
		if m := re.FindStringSubmatch(l); len(m) == 2 {
			all[m[1]] = true
		}
	}
	return all
}

// checkIPTablesRuleJumps checks that every -j goes to a chain that is
// created and has rules, and that every created chain is used.
func checkIPTablesRuleJumps(ruleData string) error {
	tables := map[string][]string{}
	var table string
	for _, l := range strings.Split(ruleData, "\n") {
		if strings.HasPrefix(l, "*") {
			table = l[1:]
		} else if table != "" && l != "" {
			tables[table] = append(tables[table], l)
		}
	}
	minus := func(a, b map[string]bool) []string {
		var out []string
		for k := range a {
			if !b[k] {
				out = append(out, k)
			}
		}
		sort.Strings(out)
		return out
	}
	for name, lines := range tables {
		created := findAllMatches(lines, `^:([^ ]*)`)
		for c := range findAllMatches(lines, `-X ([^ ]*)`) {
			delete(created, c)
		}
		filled := findAllMatches(lines, `-A ([^ ]*)`)
		jumped := findAllMatches(lines, `-j ([^ ]*)`)
		for _, j := range []string{"ACCEPT", "REJECT", "DROP", "MARK", "RETURN", "DNAT", "SNAT", "MASQUERADE"} {
			delete(jumped, j)
		}
		if missing := append(minus(jumped, created), minus(filled, created)...); len(missing) > 0 {
			return fmt.Errorf("some chains in %s are used but were not created: %v", name, missing)
		}
		empty := minus(jumped, filled)
		empty = slicesDelete(empty, string(kubeNodePortsChain))
		if len(empty) > 0 {
			return fmt.Errorf("some chains in %s are jumped to but have no rules: %v", name, empty)
		}
		extra := minus(created, jumped)
		for _, c := range []Chain{kubeServicesChain, kubeExternalServicesChain, kubeNodePortsChain, kubePostroutingChain, kubeForwardChain, kubeMarkMasqChain, kubeProxyFirewallChain, kubeletFirewallChain} {
			extra = slicesDelete(extra, string(c))
		}
		if len(extra) > 0 {
			return fmt.Errorf("some chains in %s are created but not used: %v", name, extra)
		}
	}
	return nil
}

func slicesDelete(s []string, v string) []string {
	var out []string
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

// packetFlowTest is upstream's test case of a packet trace.
type packetFlowTest struct {
	name     string
	sourceIP string
	protocol corev1.Protocol
	destIP   string
	destPort int
	output   string
	masq     bool
}

func runPacketFlowTests(t *testing.T, line int, ipt *fakeIPTables, nodeIPs []string, testCases []packetFlowTest) {
	t.Helper()
	var cases []pt.PacketFlowTest
	for _, tc := range testCases {
		cases = append(cases, pt.PacketFlowTest{Name: tc.name, SourceIP: tc.sourceIP, Protocol: string(tc.protocol),
			DestIP: tc.destIP, DestPort: tc.destPort, Output: tc.output, Masq: tc.masq})
	}
	state := ipt.state()
	pt.RunPacketFlowTests(t, func(t *testing.T, sourceIP, protocol, destIP, destPort string) ([]string, string, bool) {
		return pt.TraceIPTablesPacket(t, state, sourceIP, protocol, destIP, destPort, nodeIPs)
	}, cases)
}

func assertEqual(t *testing.T, expected, got any, msg ...string) {
	t.Helper()
	if !reflect.DeepEqual(expected, got) {
		t.Errorf("expected %v, got %v %v", expected, got, msg)
	}
}

func assertContains(t *testing.T, s, sub, msg string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s: %q not found", msg, sub)
	}
}

func assertNotContains(t *testing.T, s, sub, msg string) {
	t.Helper()
	if strings.Contains(s, sub) {
		t.Errorf("%s: %q found", msg, sub)
	}
}
