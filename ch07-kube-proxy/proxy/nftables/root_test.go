package nftables

import (
	"errors"
	"sort"
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

// rootServices: web (10.96.0.10:80 → endpoints :8080) and empty (10.96.0.11:80).
func rootServices(endpoints ...string) ([]*corev1.Service, *discoveryv1.EndpointSlice) {
	svc := func(name, ip string) *corev1.Service {
		return pt.MakeTestService("default", name, func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeClusterIP
			s.Spec.ClusterIP = ip
			s.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
		})
	}
	slice := pt.MakeTestEndpointSlice("default", "web", 1, func(s *discoveryv1.EndpointSlice) {
		s.AddressType = discoveryv1.AddressTypeIPv4
		for _, ip := range endpoints {
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: pt.Ptr(true)}})
		}
		s.Ports = []discoveryv1.EndpointPort{pt.TCPPort("http", 8080)}
	})
	return []*corev1.Service{svc("web", "10.96.0.10"), svc("empty", "10.96.0.11")}, slice
}

func newRealProxier(t *testing.T, node string) *Proxier {
	t.Helper()
	p, err := NewProxier(Config{SyncPeriod: 30 * time.Second, MasqueradeBit: 14,
		LocalDetector: proxyutil.NewDetectLocalByCIDR("10.244.0.0/16"), NodeName: "node-1",
		NodeIP: proxyutil.ParseIPSloppy("10.244.1.1"), NodePortAddresses: []string{"10.244.1.1/32"},
		ServiceHealthServer: healthcheck.FakeServiceHealthServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func startProxier(t *testing.T, node string, p *Proxier, svcs []*corev1.Service, slice *discoveryv1.EndpointSlice) {
	t.Helper()
	for _, s := range svcs {
		p.OnServiceAdd(s)
	}
	p.OnEndpointSliceAdd(slice)
	p.OnServiceCIDRsChanged([]string{"10.96.0.0/12"})
	_ = pt.Do(t, node, func() error {
		p.OnServiceSynced()
		p.OnEndpointSlicesSynced()
		return nil
	})
	if p.needFullSync {
		t.Fatal("the first sync failed")
	}
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestRealNFTables applies the table in a scratch network namespace and
// sends traffic through it, as TestRealIPTables does for iptables.
func TestRealNFTables(t *testing.T) {
	tp := pt.NewTopology(t)
	pt.Serve(t, tp.Pod1, 8080, "pod1")
	pt.Serve(t, tp.Pod2, 8080, "pod2")

	svcs, slice := rootServices(tp.Pod1IP, tp.Pod2IP)
	p := newRealProxier(t, tp.Node)
	startProxier(t, tp.Node, p, svcs, slice)

	ruleset := pt.Run(t, "ip", "netns", "exec", tp.Node, "nft", "list", "ruleset")
	for _, want := range []string{
		"table ip kube-proxy {",
		`comment "rules for kube-proxy"`,
		"chain nat-prerouting {",
		"type nat hook prerouting priority dstnat; policy accept;",
		"ip daddr . meta l4proto . th dport vmap @service-ips",
		"10.96.0.10 . tcp . 80 : goto service-",
		`10.96.0.11 . tcp . 80 comment "default/empty:http" : goto reject-chain`,
		"numgen random mod 2 vmap { 0 : goto endpoint-",
		"meta l4proto tcp dnat to 10.244.2.2:8080",
		`ip daddr 10.96.0.0/12 drop comment "Drop traffic to unallocated ClusterIPs"`,
		"elements = { 10.244.1.1 }",
	} {
		if !strings.Contains(ruleset, want) {
			t.Errorf("nft list ruleset lacks %q:\n%s", want, ruleset)
		}
	}

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
	if _, err := pt.Dial(t, tp.Client, "10.96.0.11:80"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial to a Service without endpoints: %v, want connection refused", err)
	}

	// Restart: the same table.
	p2 := newRealProxier(t, tp.Node)
	startProxier(t, tp.Node, p2, svcs, slice)
	// (The base chains are re-created, so nft lists them in another order.)
	if again := pt.Run(t, "ip", "netns", "exec", tp.Node, "nft", "list", "ruleset"); sortedLines(again) != sortedLines(ruleset) {
		t.Errorf("table after a restart differs:\nbefore:\n%s\nafter:\n%s", ruleset, again)
	}

	// Partial sync: pod2 goes away; its chain is flushed now, deleted by a
	// sync more than a second later.
	_, oneEndpoint := rootServices(tp.Pod1IP)
	p2.OnEndpointSliceUpdate(slice, oneEndpoint)
	if err := pt.Do(t, tp.Node, p2.SyncProxyRules); err != nil {
		t.Fatal(err)
	}
	after := pt.Run(t, "ip", "netns", "exec", tp.Node, "nft", "list", "ruleset")
	if strings.Contains(after, "10.244.2.2:8080") || !strings.Contains(after, "numgen random mod 1 vmap") {
		t.Errorf("after removing pod2:\n%s", after)
	}
	for i := 0; i < 5; i++ {
		if got, err := pt.Dial(t, tp.Client, "10.96.0.10:80"); err != nil || got != "pod1" {
			t.Fatalf("dial after removing pod2: %q, %v", got, err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(pt.Run(t, "ip", "netns", "exec", tp.Node, "nft", "list", "chains"), "10.244.2.2/8080") {
		if time.Now().After(deadline) {
			t.Fatal("the stale endpoint chain was never deleted")
		}
		// A chain is deleted by the first sync more than a second after the
		// last sync that found it stale (as upstream, whose syncs are at
		// least --iptables-min-sync-period apart).
		time.Sleep(1100 * time.Millisecond)
		if err := pt.Do(t, tp.Node, p2.SyncProxyRules); err != nil {
			t.Fatal(err)
		}
	}
}
