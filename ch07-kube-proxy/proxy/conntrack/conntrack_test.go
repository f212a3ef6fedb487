package conntrack

import (
	"log/slog"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch07-kube-proxy/proxy"
	pt "kubik/ch07-kube-proxy/proxy/proxytest"
)

// TestCleanStaleEntriesReal creates UDP conntrack entries in a scratch network
// namespace (with the conntrack tool) and checks that CleanStaleEntries
// deletes those whose reply comes from an endpoint that is gone, and
// keeps the others.
func TestCleanStaleEntriesReal(t *testing.T) {
	tp := pt.NewTopology(t)
	insert := func(src, sport, dst, dport, replySrc string) {
		pt.Run(t, "ip", "netns", "exec", tp.Node, "conntrack", "-I", "-p", "udp", "-s", src, "-d", dst,
			"--sport", sport, "--dport", dport, "--reply-src", replySrc, "--reply-dst", src,
			"--reply-port-src", "53", "--reply-port-dst", sport, "--timeout", "300")
	}
	insert("10.244.3.2", "40001", "10.96.0.10", "53", "10.244.1.2")    // to a current endpoint
	insert("10.244.3.2", "40002", "10.96.0.10", "53", "10.244.2.9")    // to an endpoint that is gone
	insert("10.244.3.3", "40003", "10.244.1.1", "30053", "10.244.2.9") // node port, gone endpoint
	insert("10.244.3.2", "40004", "10.96.0.99", "53", "10.244.2.9")    // another Service: untouched

	svcPortMap := proxy.ServicePortMap{}
	endpointsMap := proxy.EndpointsMap{}
	name := proxy.ServicePortName{NamespacedName: proxy.NamespacedName{Namespace: "ns", Name: "dns"}, Port: "dns", Protocol: corev1.ProtocolUDP}
	svcPortMap[name] = proxy.NewTestServicePort("10.96.0.10", 53, corev1.ProtocolUDP, 30053)
	endpointsMap[name] = []proxy.Endpoint{proxy.NewBaseEndpointInfo("10.244.1.2", 53, false, true, true, false, nil, nil)}

	if err := pt.Do(t, tp.Node, func() error {
		CleanStaleEntries(New(), corev1.IPv4Protocol, svcPortMap, endpointsMap, slog.New(slog.DiscardHandler))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	out := pt.Run(t, "ip", "netns", "exec", tp.Node, "conntrack", "-L", "-p", "udp")
	for _, want := range []string{"src=10.244.1.2 dst=10.244.3.2", "dst=10.96.0.99"} {
		if !strings.Contains(out, want) {
			t.Errorf("entry %q was deleted:\n%s", want, out)
		}
	}
	if strings.Count(out, "src=10.244.2.9 dst=10.244.3.2") != 1 { // only the other Service's
		t.Errorf("stale entries were not deleted:\n%s", out)
	}
	if strings.Contains(out, "dport=30053") {
		t.Errorf("the stale node port entry was not deleted:\n%s", out)
	}
}
