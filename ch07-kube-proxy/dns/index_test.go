package dns_test

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/miekg/dns"

	"kubik/ch01-apiserver/api/corev1"
	kubedns "kubik/ch07-kube-proxy/dns"
)

// ask asks srv directly (no sockets) and returns the rcode and the answer.
func ask(t *testing.T, srv *kubedns.Server, name string, qtype uint16) (string, []string) {
	t.Helper()
	m := srv.Reply(new(dns.Msg).SetQuestion(name, qtype), false)
	return dns.RcodeToString[m.Rcode], rrs(m.Answer)
}

func expect(t *testing.T, srv *kubedns.Server, name string, qtype uint16, rcode string, answer ...string) {
	t.Helper()
	gotRcode, got := ask(t, srv, name, qtype)
	if gotRcode != rcode || !slices.Equal(got, sorted(answer)) {
		t.Errorf("%s %s: %s %q, want %s %q", name, dns.TypeToString[qtype], gotRcode, got, rcode, sorted(answer))
	}
}

// TestIndexUpdates changes Services and EndpointSlices one at a time and
// sees every record that depends on them follow: A, endpoint names, SRV,
// PTR, and the SOA serial.
func TestIndexUpdates(t *testing.T) {
	idx := kubedns.NewIndex()
	srv, err := kubedns.NewServer(kubedns.Config{ReverseCIDRs: []netip.Prefix{serviceCIDR, podCIDR}}, idx)
	if err != nil {
		t.Fatal(err)
	}
	const name = "api.shop.svc.cluster.local."
	http := []portSpec{{"http", corev1.ProtocolTCP, 80}}

	// Nothing yet; then the namespace, then the Service.
	expect(t, srv, name, dns.TypeA, "NXDOMAIN")
	idx.SetNamespace("shop")
	expect(t, srv, "shop.svc.cluster.local.", dns.TypeA, "NOERROR")
	expect(t, srv, name, dns.TypeA, "NXDOMAIN")
	serial := idx.Serial()
	idx.SetService(service("shop", "api", "10.96.1.1", http...))
	expect(t, srv, name, dns.TypeA, "NOERROR", name+" 30 IN A 10.96.1.1")
	expect(t, srv, "1.1.96.10.in-addr.arpa.", dns.TypePTR, "NOERROR", "1.1.96.10.in-addr.arpa. 30 IN PTR "+name)
	if idx.Serial() < serial {
		t.Errorf("serial went back: %d, then %d", serial, idx.Serial())
	}

	// A new ClusterIP: the old PTR is gone.
	idx.SetService(service("shop", "api", "10.96.1.2", http...))
	expect(t, srv, name, dns.TypeA, "NOERROR", name+" 30 IN A 10.96.1.2")
	expect(t, srv, "1.1.96.10.in-addr.arpa.", dns.TypePTR, "NXDOMAIN")
	expect(t, srv, "2.1.96.10.in-addr.arpa.", dns.TypePTR, "NOERROR", "2.1.96.10.in-addr.arpa. 30 IN PTR "+name)

	// Endpoints arrive, in a slice seen before its Service is headless.
	idx.SetEndpointSlice(endpointSlice("shop", "api-a", "api", http, "10.244.5.1 api-0", "10.244.5.2"))
	expect(t, srv, "api-0."+name, dns.TypeA, "NOERROR", "api-0."+name+" 30 IN A 10.244.5.1")
	expect(t, srv, name, dns.TypeA, "NOERROR", name+" 30 IN A 10.96.1.2")
	headless := service("shop", "api", corev1.ClusterIPNone, http...)
	idx.SetService(headless)
	expect(t, srv, name, dns.TypeA, "NOERROR", name+" 30 IN A 10.244.5.1", name+" 30 IN A 10.244.5.2")
	expect(t, srv, "2.1.96.10.in-addr.arpa.", dns.TypePTR, "NXDOMAIN")
	expect(t, srv, "_http._tcp."+name, dns.TypeSRV, "NOERROR",
		"_http._tcp."+name+" 30 IN SRV 0 50 80 10-244-5-2."+name,
		"_http._tcp."+name+" 30 IN SRV 0 50 80 api-0."+name)

	// A second slice; then an endpoint turns not ready; then the first
	// slice goes.
	idx.SetEndpointSlice(endpointSlice("shop", "api-b", "api", http, "10.244.6.1"))
	expect(t, srv, name, dns.TypeA, "NOERROR", name+" 30 IN A 10.244.5.1", name+" 30 IN A 10.244.5.2", name+" 30 IN A 10.244.6.1")
	idx.SetEndpointSlice(endpointSlice("shop", "api-a", "api", http, "10.244.5.1 api-0 -", "10.244.5.2"))
	expect(t, srv, name, dns.TypeA, "NOERROR", name+" 30 IN A 10.244.5.2", name+" 30 IN A 10.244.6.1")
	expect(t, srv, "api-0."+name, dns.TypeA, "NXDOMAIN")
	expect(t, srv, "1.5.244.10.in-addr.arpa.", dns.TypePTR, "NXDOMAIN")
	idx.DeleteEndpointSlice("shop", "api-a")
	expect(t, srv, name, dns.TypeA, "NOERROR", name+" 30 IN A 10.244.6.1")
	expect(t, srv, "2.5.244.10.in-addr.arpa.", dns.TypePTR, "NXDOMAIN")
	expect(t, srv, "1.6.244.10.in-addr.arpa.", dns.TypePTR, "NOERROR", "1.6.244.10.in-addr.arpa. 30 IN PTR 10-244-6-1."+name)

	// publishNotReadyAddresses brings the not-ready endpoint back.
	idx.SetEndpointSlice(endpointSlice("shop", "api-a", "api", http, "10.244.5.1 api-0 -"))
	expect(t, srv, "api-0."+name, dns.TypeA, "NXDOMAIN")
	headless.Spec.PublishNotReadyAddresses = true
	idx.SetService(headless)
	expect(t, srv, "api-0."+name, dns.TypeA, "NOERROR", "api-0."+name+" 30 IN A 10.244.5.1")

	// A slice relabelled to another Service moves its endpoints.
	idx.SetService(service("shop", "other", corev1.ClusterIPNone, http...))
	idx.SetEndpointSlice(endpointSlice("shop", "api-b", "other", http, "10.244.6.1"))
	expect(t, srv, "other.shop.svc.cluster.local.", dns.TypeA, "NOERROR", "other.shop.svc.cluster.local. 30 IN A 10.244.6.1")
	expect(t, srv, name, dns.TypeA, "NOERROR", name+" 30 IN A 10.244.5.1")

	// An IPv6 slice does not count (an IPv4 cluster).
	v6 := endpointSlice("shop", "api-a", "api", http, "fd00::1")
	v6.AddressType = "IPv6"
	idx.SetEndpointSlice(v6)
	expect(t, srv, name, dns.TypeA, "NXDOMAIN")

	// The Service goes: its names and its endpoints' names go with it.
	before := idx.Serial()
	idx.DeleteService("shop", "other")
	expect(t, srv, "other.shop.svc.cluster.local.", dns.TypeA, "NXDOMAIN")
	expect(t, srv, "1.6.244.10.in-addr.arpa.", dns.TypePTR, "NXDOMAIN")
	if idx.Serial() < before {
		t.Errorf("serial went back after a delete")
	}

	// The namespace goes: NXDOMAIN for what was in it.
	idx.DeleteNamespace("shop")
	expect(t, srv, "shop.svc.cluster.local.", dns.TypeA, "NXDOMAIN")
	expect(t, srv, name, dns.TypeA, "NXDOMAIN")
}

// TestReverseZones: a prefix is split into whole-octet zones.
func TestReverseZones(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		first  string
		last   string
		n      int
	}{
		{"10.96.0.0/12", "96.10.in-addr.arpa.", "111.10.in-addr.arpa.", 16},
		{"10.244.0.0/16", "244.10.in-addr.arpa.", "244.10.in-addr.arpa.", 1},
		{"10.244.1.0/24", "1.244.10.in-addr.arpa.", "1.244.10.in-addr.arpa.", 1},
		{"192.168.0.0/23", "0.168.192.in-addr.arpa.", "1.168.192.in-addr.arpa.", 2},
		{"10.0.0.0/8", "10.in-addr.arpa.", "10.in-addr.arpa.", 1},
		{"10.1.2.3/32", "3.2.1.10.in-addr.arpa.", "3.2.1.10.in-addr.arpa.", 1},
	} {
		zs, err := kubedns.ReverseZones(netip.MustParsePrefix(tc.prefix))
		if err != nil || len(zs) != tc.n || zs[0] != tc.first || zs[len(zs)-1] != tc.last {
			t.Errorf("ReverseZones(%s) = %v, %v", tc.prefix, zs, err)
		}
	}
	if _, err := kubedns.ReverseZones(netip.MustParsePrefix("fd00::/64")); err == nil {
		t.Error("an IPv6 prefix has no in-addr.arpa zones")
	}
}
