package iptables

import (
	"errors"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch07-kube-proxy/proxy/healthcheck"
	pt "kubik/ch07-kube-proxy/proxy/proxytest"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

// webService is ClusterIP 10.96.0.10:80 → the pods' :8080; emptyService
// (10.96.0.11:80) has no endpoints.
func rootServices(tp *pt.Topology, endpoints ...string) ([]*corev1.Service, *discoveryv1.EndpointSlice) {
	web := pt.MakeTestService("default", "web", func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeClusterIP
		s.Spec.ClusterIP = "10.96.0.10"
		s.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	})
	empty := pt.MakeTestService("default", "empty", func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeClusterIP
		s.Spec.ClusterIP = "10.96.0.11"
		s.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	})
	slice := pt.MakeTestEndpointSlice("default", "web", 1, func(s *discoveryv1.EndpointSlice) {
		s.AddressType = discoveryv1.AddressTypeIPv4
		for _, ip := range endpoints {
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: pt.Ptr(true)}})
		}
		s.Ports = []discoveryv1.EndpointPort{pt.TCPPort("http", 8080)}
	})
	return []*corev1.Service{web, empty}, slice
}

// newRealProxier makes a proxier on the real iptables of netns node.
func newRealProxier(t *testing.T, node string) *Proxier {
	t.Helper()
	var p *Proxier
	if err := pt.Do(t, node, func() error {
		ipt, err := New()
		if err != nil {
			return err
		}
		p, err = NewProxier(Config{IPTables: ipt, SyncPeriod: 30 * time.Second, MasqueradeBit: 14, LocalhostNodePorts: true,
			LocalDetector: proxyutil.NewDetectLocalByCIDR("10.244.0.0/16"), NodeName: "node-1",
			NodeIP: proxyutil.ParseIPSloppy("10.244.1.1"), ServiceHealthServer: healthcheck.FakeServiceHealthServer{}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// startProxier feeds the informer events and the "synced" calls, which
// run the first sync, in netns node.
func startProxier(t *testing.T, node string, p *Proxier, svcs []*corev1.Service, slice *discoveryv1.EndpointSlice) {
	t.Helper()
	for _, s := range svcs {
		p.OnServiceAdd(s)
	}
	p.OnEndpointSliceAdd(slice)
	_ = pt.Do(t, node, func() error {
		p.OnServiceSynced()
		p.OnEndpointSlicesSynced()
		return nil
	})
}

var counters = regexp.MustCompile(`\[\d+:\d+\]`)

// iptablesSave is iptables-save of netns, without comments and counters.
func iptablesSave(t *testing.T, netns string) string {
	out := pt.Run(t, "ip", "netns", "exec", netns, "iptables-save")
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, counters.ReplaceAllString(l, "[0:0]"))
		}
	}
	return strings.Join(lines, "\n")
}

// TestRealIPTables applies the rules in a scratch network namespace and
// sends traffic through them: a ClusterIP balances over two pods, a
// Service without endpoints refuses connections; a restarted proxier
// writes the same rules without duplicating the jumps; a partial sync
// removes the endpoint that went away.
func TestRealIPTables(t *testing.T) {
	tp := pt.NewTopology(t)
	pt.Serve(t, tp.Pod1, 8080, "pod1")
	pt.Serve(t, tp.Pod2, 8080, "pod2")

	svcs, slice := rootServices(tp, tp.Pod1IP, tp.Pod2IP)
	p := newRealProxier(t, tp.Node)
	startProxier(t, tp.Node, p, svcs, slice)

	save := iptablesSave(t, tp.Node)
	for _, want := range []string{
		`-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES`,
		`-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-`,
		`-A KUBE-SERVICES -d 10.96.0.11/32 -p tcp -m comment --comment "default/empty:http has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable`,
		`-m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-`,
		`-A KUBE-SEP-`, `-j DNAT --to-destination 10.244.2.2:8080`,
		`-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0`,
		`-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000`,
	} {
		if !strings.Contains(save, want) {
			t.Errorf("iptables-save lacks %q:\n%s", want, save)
		}
	}

	// Traffic: both pods answer through the ClusterIP.
	seen := map[string]int{}
	for i := 0; i < 40 && (seen["pod1"] == 0 || seen["pod2"] == 0); i++ {
		got, err := pt.Dial(t, tp.Client, "10.96.0.10:80")
		if err != nil {
			t.Fatalf("dial ClusterIP: %v", err)
		}
		seen[got]++
	}
	if seen["pod1"] == 0 || seen["pod2"] == 0 {
		t.Errorf("ClusterIP did not balance over both pods: %v", seen)
	}
	// No endpoints: refused, not a timeout.
	if _, err := pt.Dial(t, tp.Client, "10.96.0.11:80"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial to a Service without endpoints: %v, want connection refused\n%s", err,
			pt.Run(t, "ip", "netns", "exec", tp.Node, "iptables-save", "-c", "-t", "filter"))
	}

	// Restart: a new proxier writes the same rules, no duplicate jumps.
	p2 := newRealProxier(t, tp.Node)
	startProxier(t, tp.Node, p2, svcs, slice)
	if again := iptablesSave(t, tp.Node); again != save {
		t.Errorf("rules after a restart differ:\nbefore:\n%s\nafter:\n%s", save, again)
	}

	// Partial sync: pod2 goes away; its KUBE-SEP chain is deleted.
	_, oneEndpoint := rootServices(tp, tp.Pod1IP)
	p2.OnEndpointSliceUpdate(slice, oneEndpoint)
	if err := pt.Do(t, tp.Node, p2.SyncProxyRules); err != nil {
		t.Fatal(err)
	}
	if p2.needFullSync {
		t.Error("sync after an endpoint change was not partial")
	}
	after := iptablesSave(t, tp.Node)
	if strings.Contains(after, "10.244.2.2:8080") || !strings.Contains(after, "10.244.1.2:8080") {
		t.Errorf("after removing pod2:\n%s", after)
	}
	for i := 0; i < 5; i++ {
		if got, err := pt.Dial(t, tp.Client, "10.96.0.10:80"); err != nil || got != "pod1" {
			t.Fatalf("dial after removing pod2: %q, %v", got, err)
		}
	}
}
