package nftables

import (
	"sort"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	pt "kubik/ch07-kube-proxy/proxy/proxytest"
)

// partialSyncServices is a mix of what partial syncs write: ClusterIP and
// NodePort, no endpoints, externalTrafficPolicy Local (node-1 is ours),
// ClientIP affinity.
func partialSyncServices() []*corev1.Service {
	svc := func(name, ip string, f func(*corev1.Service)) *corev1.Service {
		return pt.MakeTestService("default", name, func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeClusterIP
			s.Spec.ClusterIP = ip
			s.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
			if f != nil {
				f(s)
			}
		})
	}
	nodePort := func(port int32) func(*corev1.Service) {
		return func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort; s.Spec.Ports[0].NodePort = port }
	}
	return []*corev1.Service{
		svc("web", "10.96.0.10", nodePort(30080)),
		svc("empty", "10.96.0.11", nodePort(30081)),
		svc("local", "10.96.0.12", func(s *corev1.Service) {
			nodePort(30082)(s)
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}),
		svc("sticky", "10.96.0.13", func(s *corev1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }),
		svc("dns", "10.96.0.14", func(s *corev1.Service) {
			s.Spec.Ports = []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}}
		}),
	}
}

// endpointSlice of Service name: "ip" or "ip@node".
func endpointSlice(name string, port discoveryv1.EndpointPort, endpoints ...string) *discoveryv1.EndpointSlice {
	return pt.MakeTestEndpointSlice("default", name, 1, func(s *discoveryv1.EndpointSlice) {
		s.AddressType = discoveryv1.AddressTypeIPv4
		for _, e := range endpoints {
			ip, node, _ := strings.Cut(e, "@")
			ep := discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: pt.Ptr(true)}}
			if node != "" {
				ep.NodeName = pt.Ptr(node)
			}
			s.Endpoints = append(s.Endpoints, ep)
		}
		s.Ports = []discoveryv1.EndpointPort{port}
	})
}

func dnsPort() discoveryv1.EndpointPort {
	return discoveryv1.EndpointPort{Name: pt.Ptr("dns"), Port: pt.Ptr(int32(53)), Protocol: pt.Ptr(corev1.ProtocolUDP)}
}

// normalizedTable is `nft list table ip kube-proxy` with its chains, sets
// and maps in name order and each set's or map's lines sorted (rules keep
// their order): a table built by partial syncs creates its chains in
// another order than one written whole.
func normalizedTable(t *testing.T, node string) string {
	t.Helper()
	out := pt.Run(t, "ip", "netns", "exec", node, "nft", "list", "table", "ip", "kube-proxy")
	var blocks []string
	var cur []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || l == "}" && len(cur) == 0:
		case strings.HasPrefix(l, "chain ") || strings.HasPrefix(l, "set ") || strings.HasPrefix(l, "map "):
			cur = []string{l}
		case l == "}":
			if !strings.HasPrefix(cur[0], "chain ") {
				body := strings.Join(cur[1:], " ")
				items := strings.FieldsFunc(body, func(r rune) bool { return r == ',' || r == '{' || r == '}' })
				for i := range items {
					items[i] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(items[i]), "elements ="))
				}
				sort.Strings(items)
				cur = append(cur[:1], items...)
			}
			blocks = append(blocks, strings.Join(cur, "\n  "))
			cur = nil
		case cur != nil:
			cur = append(cur, l)
		}
	}
	sort.Strings(blocks)
	return strings.Join(blocks, "\n")
}

// TestPartialSyncsOverNetlink: partial syncs (over netlink where they can
// be) leave the same table as a full sync (`nft -f`) of the same state in
// a fresh node.
func TestPartialSyncsOverNetlink(t *testing.T) {
	a, b := pt.NewTopology(t), pt.NewTopology(t)
	svcs := partialSyncServices()
	before := []*discoveryv1.EndpointSlice{
		endpointSlice("web", pt.TCPPort("http", 8080), "10.244.1.2", "10.244.2.2"),
		endpointSlice("empty", pt.TCPPort("http", 8080)),
		endpointSlice("local", pt.TCPPort("http", 8080), "10.244.1.3@node-1", "10.244.2.3@node-2"),
		endpointSlice("sticky", pt.TCPPort("http", 8080), "10.244.1.4", "10.244.2.4"),
		endpointSlice("dns", dnsPort(), "10.244.1.5"),
	}
	after := []*discoveryv1.EndpointSlice{
		endpointSlice("web", pt.TCPPort("http", 8080), "10.244.1.2", "10.244.3.2", "10.244.4.2"),
		endpointSlice("empty", pt.TCPPort("http", 8080), "10.244.1.6"),
		endpointSlice("local", pt.TCPPort("http", 8080), "10.244.2.3@node-2"),
		endpointSlice("sticky", pt.TCPPort("http", 8080), "10.244.1.4"),
		endpointSlice("dns", dnsPort()),
	}
	fresh := pt.MakeTestService("default", "fresh", func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeClusterIP
		s.Spec.ClusterIP = "10.96.0.15"
		s.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	})
	freshSlice := endpointSlice("fresh", pt.TCPPort("http", 8080), "10.244.1.7")

	p := newRealProxier(t, a.Node)
	for _, s := range svcs {
		p.OnServiceAdd(s)
	}
	for _, s := range before {
		p.OnEndpointSliceAdd(s)
	}
	p.OnServiceCIDRsChanged([]string{"10.96.0.0/12"})
	_ = pt.Do(t, a.Node, func() error {
		p.OnServiceSynced()
		p.OnEndpointSlicesSynced()
		return nil
	})
	if p.needFullSync {
		t.Fatal("the first sync failed")
	}
	transactions := func() (int, int) {
		return p.nftables.(interface{ Transactions() (int, int) }).Transactions()
	}
	sync := func() {
		t.Helper()
		if err := pt.Do(t, a.Node, p.SyncProxyRules); err != nil {
			t.Fatal(err)
		}
	}
	// One partial sync per change; all but the affinity Service's go over
	// netlink.
	for i := range before {
		if svcs[i].Name == "sticky" {
			continue
		}
		p.OnEndpointSliceUpdate(before[i], after[i])
		sync()
	}
	p.OnServiceAdd(fresh)
	p.OnEndpointSliceAdd(freshSlice)
	sync()
	overNetlink, byNFT := transactions()
	if overNetlink != 5 || byNFT != 1 {
		t.Errorf("after 5 partial syncs: %d transactions over netlink and %d by nft -f, want 5 and 1 (the first sync)", overNetlink, byNFT)
	}
	p.OnEndpointSliceUpdate(before[3], after[3])
	sync()
	if _, byNFT := transactions(); byNFT != 2 {
		t.Errorf("the affinity Service's partial sync did not go to nft -f")
	}
	// The stale chains go a second later.
	time.Sleep(1100 * time.Millisecond)
	sync()
	if p.needFullSync {
		t.Fatal("a partial sync failed")
	}

	q := newRealProxier(t, b.Node)
	startProxier(t, b.Node, q, append(svcs, fresh), after[0])
	for _, s := range append(after[1:], freshSlice) {
		q.OnEndpointSliceAdd(s)
	}
	if err := pt.Do(t, b.Node, q.SyncProxyRules); err != nil {
		t.Fatal(err)
	}
	got, want := normalizedTable(t, a.Node), normalizedTable(t, b.Node)
	if got != want {
		t.Errorf("table after partial syncs differs from a full sync's:\n%s", lineDiff(want, got))
	}
	for _, s := range []string{"numgen random mod 3 vmap", "dnat to 10.244.1.7:8080", `comment "default/dns:dns" : goto reject-chain`,
		"update @affinity-", "fib saddr type local"} {
		if !strings.Contains(got, s) {
			t.Errorf("table lacks %q:\n%s", s, got)
		}
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
