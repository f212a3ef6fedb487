package nftables

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch07-kube-proxy/proxy"
	"kubik/ch07-kube-proxy/proxy/healthcheck"
	"kubik/ch07-kube-proxy/proxy/nftables/nft"
	pt "kubik/ch07-kube-proxy/proxy/proxytest"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

// The node of upstream's tests.
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

// NewFakeProxier is upstream's: an IPv4 proxier on a fake table, pod CIDR
// 10.0.0.0/8, ServiceCIDR 172.30.0.0/16, NodePorts on 192.168.0.2 only.
// (Only IPv4 is implemented.)
func NewFakeProxier(ipFamily corev1.IPFamily) (*nft.Fake, *Proxier) {
	if ipFamily != corev1.IPv4Protocol {
		panic("only IPv4 is implemented")
	}
	fake := nft.NewFake(nft.IPv4Family, kubeProxyTable)
	p, err := NewProxier(Config{
		NFTables:            fake,
		SyncPeriod:          30 * time.Second,
		MasqueradeBit:       14,
		LocalDetector:       proxyutil.NewDetectLocalByCIDR("10.0.0.0/8"),
		NodeName:            testNodeName,
		NodeIP:              proxyutil.ParseIPSloppy(testNodeIP),
		NodePortAddresses:   []string{testNodeIP + "/32", testNodeIPv6 + "/128"},
		Conntrack:           conntrackNone{},
		NetworkInterfacer:   pt.NewFakeNetwork(),
		ServiceHealthServer: healthcheck.FakeServiceHealthServer{},
	})
	if err != nil {
		panic(err)
	}
	// As upstream's fake proxier (a real one formats 1<<14 as 0x00004000).
	p.masqueradeMark = "0x4000"
	p.serviceCIDRs = "172.30.0.0/16"
	p.setInitialized(true)
	return fake, p
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

var _ = metav1.ObjectMeta{}

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

func assertEqual(t *testing.T, expected, got any) {
	t.Helper()
	if !reflect.DeepEqual(expected, got) {
		t.Errorf("expected %v, got %v", expected, got)
	}
}

var _ proxy.NamespacedName

func getLine() string {
	_, file, line, ok := runtime.Caller(1)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (from %s:%d)", file, line)
}

// dedent removes the indentation common to all non-blank lines.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	prefix := ""
	first := true
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

func assertNFTablesTransactionEqual(t *testing.T, line string, expected, result string) {
	t.Helper()
	if diff := cmp.Diff(pt.SortNFTablesTransaction(expected), pt.SortNFTablesTransaction(result)); diff != "" {
		t.Errorf("tables do not match%s:\ndiff:\n%s\nfull result: %+v", line, diff, result)
	}
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

func runPacketFlowTests(t *testing.T, line string, fake *nft.Fake, nodeIPs []string, testCases []packetFlowTest) {
	t.Helper()
	var cases []pt.PacketFlowTest
	for _, tc := range testCases {
		cases = append(cases, pt.PacketFlowTest{Name: tc.name, SourceIP: tc.sourceIP, Protocol: string(tc.protocol),
			DestIP: tc.destIP, DestPort: tc.destPort, Output: tc.output, Masq: tc.masq})
	}
	pt.RunPacketFlowTests(t, func(t *testing.T, sourceIP, protocol, destIP, destPort string) ([]string, string, bool) {
		return pt.TraceNFTablesPacket(t, fake, sourceIP, protocol, destIP, destPort, nodeIPs)
	}, cases)
}
