package dns_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	kubedns "kubik/ch07-kube-proxy/dns"
)

// The cluster the unit tests answer for.
var (
	serviceCIDR = netip.MustParsePrefix("10.96.0.0/12")
	podCIDR     = netip.MustParsePrefix("10.244.0.0/16")
	// dnsPodIP is the address of "this" server: an endpoint of kube-dns.
	dnsPodIP = netip.MustParseAddr("10.244.1.10")
)

type portSpec struct {
	name  string
	proto corev1.Protocol
	port  int32
}

func service(ns, name, clusterIP string, ports ...portSpec) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: clusterIP, ClusterIPs: []string{clusterIP}}}
	for _, p := range ports {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: p.name, Protocol: p.proto, Port: p.port})
	}
	return svc
}

func externalName(ns, name, target string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: target}}
}

// ep is one endpoint of a slice: "10.244.1.7", "10.244.1.7 db-0",
// "10.244.3.1 -" (not ready) or "10.244.3.1 db-3 -".
type ep string

func endpointSlice(ns, name, svc string, ports []portSpec, eps ...ep) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	for _, p := range ports {
		es.Ports = append(es.Ports, discoveryv1.EndpointPort{Name: ptr(p.name), Protocol: ptr(p.proto), Port: ptr(p.port)})
	}
	for _, e := range eps {
		f := strings.Fields(string(e))
		end := discoveryv1.Endpoint{Addresses: []string{f[0]}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}
		for _, x := range f[1:] {
			if x == "-" {
				end.Conditions.Ready = ptr(false)
			} else {
				end.Hostname = ptr(x)
			}
		}
		es.Endpoints = append(es.Endpoints, end)
	}
	return es
}

func ptr[T any](v T) *T { return &v }

// The sizes of the headless Services "medium" and "many": medium's A
// records need more than 512 bytes but fit in 4096 (EDNS0); many's need
// more than 4096 and fit in a TCP message.
const (
	mediumEndpoints = 100
	manyEndpoints   = 300
)

// fillIndex puts the test cluster into idx.
func fillIndex(idx *kubedns.Index) {
	for _, ns := range []string{"default", "kube-system", "other"} {
		idx.SetNamespace(ns)
	}
	https := portSpec{"https", corev1.ProtocolTCP, 443}
	idx.SetService(service("default", "kubernetes", "10.96.0.1", https))

	dnsPorts := []portSpec{{"dns", corev1.ProtocolUDP, 53}, {"dns-tcp", corev1.ProtocolTCP, 53}, {"metrics", corev1.ProtocolTCP, 9153}}
	idx.SetService(service("kube-system", "kube-dns", "10.96.0.10", dnsPorts...))
	idx.SetEndpointSlice(endpointSlice("kube-system", "kube-dns-abcde", "kube-dns", dnsPorts, "10.244.1.10", "10.244.2.10"))

	http := []portSpec{{"http", corev1.ProtocolTCP, 80}}
	idx.SetService(service("default", "web", "10.96.5.20", http...))
	idx.SetEndpointSlice(endpointSlice("default", "web-1", "web", http, "10.244.1.5", "10.244.1.6 -"))

	pg := []portSpec{{"postgres", corev1.ProtocolTCP, 5432}}
	idx.SetService(service("default", "db", corev1.ClusterIPNone, pg...))
	idx.SetEndpointSlice(endpointSlice("default", "db-1", "db", pg, "10.244.1.7 db-0", "10.244.2.8 db-1", "10.244.2.9", "10.244.3.1 db-3 -"))

	peers := service("default", "peers", corev1.ClusterIPNone, portSpec{"gossip", corev1.ProtocolUDP, 7946})
	peers.Spec.PublishNotReadyAddresses = true
	idx.SetService(peers)
	idx.SetEndpointSlice(endpointSlice("default", "peers-1", "peers", []portSpec{{"gossip", corev1.ProtocolUDP, 7946}}, "10.244.3.3 peer-0 -"))

	idx.SetService(service("default", "empty", corev1.ClusterIPNone, http...))
	idx.SetService(externalName("default", "ext", "www.example.com"))
	idx.SetService(externalName("default", "alias", "web.default.svc.cluster.local"))
	idx.SetService(service("other", "web", "10.96.7.7", http...))
	idx.SetService(service("default", "my-svc", "10.96.0.50", http...))

	for _, h := range []struct {
		name  string
		n     int
		third int
	}{{"medium", mediumEndpoints, 90}, {"many", manyEndpoints, 100}} {
		idx.SetService(service("default", h.name, corev1.ClusterIPNone, http...))
		var eps []ep
		for i := range h.n {
			eps = append(eps, ep(fmt.Sprintf("10.244.%d.%d", h.third+i/200, 1+i%200)))
		}
		idx.SetEndpointSlice(endpointSlice("default", h.name+"-1", h.name, http, eps...))
	}
}

// startServer serves a filled index on a loopback port (UDP and TCP).
func startServer(t testing.TB, hasSynced func() bool) (*kubedns.Server, string) {
	t.Helper()
	idx := kubedns.NewIndex()
	fillIndex(idx)
	srv, err := kubedns.NewServer(kubedns.Config{ReverseCIDRs: []netip.Prefix{serviceCIDR, podCIDR},
		LocalIPs: []netip.Addr{dnsPodIP}, HasSynced: hasSynced}, idx)
	if err != nil {
		t.Fatal(err)
	}
	return srv, serve(t, srv)
}

// serve runs srv on 127.0.0.1 and returns its address.
func serve(t testing.TB, srv *kubedns.Server) string {
	t.Helper()
	l, err := kubedns.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return l.AddrPort().String()
}

// exchange sends one query over network ("udp", "tcp"); edns is the
// EDNS0 buffer size to advertise (0: no EDNS0).
func exchange(t testing.TB, addr, network, name string, qtype uint16, edns uint16) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	if edns > 0 {
		m.SetEdns0(edns, false)
	}
	c := &dns.Client{Net: network, Timeout: 10 * time.Second, UDPSize: 65535}
	r, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("%s %s over %s: %v", name, dns.TypeToString[qtype], network, err)
	}
	if r.Id != m.Id {
		t.Fatalf("answer id %d, query id %d", r.Id, m.Id)
	}
	return r
}

// rrs are records as text, sorted (the loadbalance shuffle makes the
// order random), with the tab separators as single spaces.
func rrs(records []dns.RR) []string {
	var out []string
	for _, r := range records {
		if _, ok := r.(*dns.OPT); ok {
			continue
		}
		out = append(out, strings.Join(strings.Fields(r.String()), " "))
	}
	slices.Sort(out)
	return out
}
