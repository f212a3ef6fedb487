package dns_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	kubedns "kubik/ch07-kube-proxy/dns"
	"kubik/internal/testenv"
)

// TestMain removes the chapter binaries the tests built.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestAgainstAPIServer runs the server with its informers against the
// real chapter 1 apiserver, creates, changes and deletes Services and
// EndpointSlices through the API, and sees the answers follow.
func TestAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 1 apiserver")
	}
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	cluster := testenv.Start(t, bin, testenv.Options{})
	c, err := rest.New(cluster.Kubeconfig, "kube-dns-test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)

	idx := kubedns.NewIndex()
	synced := kubedns.RunInformers(ctx, c, idx, nil)
	srv, err := kubedns.NewServer(kubedns.Config{ReverseCIDRs: []netip.Prefix{serviceCIDR, podCIDR}, HasSynced: synced}, idx)
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, srv)

	// answer is "RCODE rr; rr" (records sorted) for a query over UDP.
	answer := func(name string, qtype uint16) string {
		m := exchange(t, addr, "udp", name, qtype, 4096)
		return strings.TrimSpace(dns.RcodeToString[m.Rcode] + " " + strings.Join(rrs(m.Answer), "; "))
	}
	eventually := func(name string, qtype uint16, want string) {
		t.Helper()
		testenv.Eventually(t, name+" "+dns.TypeToString[qtype], 30*time.Second, func() (string, bool) {
			got := answer(name, qtype)
			return got, got == want
		})
	}

	testenv.Eventually(t, "informers synced", 30*time.Second, func() (string, bool) { return "", synced() })
	eventually("kubernetes.default.svc.cluster.local.", dns.TypeA, "NOERROR kubernetes.default.svc.cluster.local. 30 IN A 10.96.0.1")
	eventually("1.0.96.10.in-addr.arpa.", dns.TypePTR, "NOERROR 1.0.96.10.in-addr.arpa. 30 IN PTR kubernetes.default.svc.cluster.local.")
	eventually("web.default.svc.cluster.local.", dns.TypeA, "NXDOMAIN")

	// A ClusterIP Service: its A record has the address the apiserver
	// allocated.
	web, err := rest.Create(ctx, c, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}}}})
	if err != nil {
		t.Fatal(err)
	}
	ip := web.Spec.ClusterIP
	eventually("web.default.svc.cluster.local.", dns.TypeA, "NOERROR web.default.svc.cluster.local. 30 IN A "+ip)
	rev, _ := dns.ReverseAddr(ip)
	eventually(rev, dns.TypePTR, "NOERROR "+rev+" 30 IN PTR web.default.svc.cluster.local.")

	// An update: a second port gets its SRV record.
	web.Spec.Ports = append(web.Spec.Ports, corev1.ServicePort{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 9090})
	if _, err := rest.Update(ctx, c, web); err != nil {
		t.Fatal(err)
	}
	eventually("_metrics._tcp.web.default.svc.cluster.local.", dns.TypeSRV,
		"NOERROR _metrics._tcp.web.default.svc.cluster.local. 30 IN SRV 0 100 9090 web.default.svc.cluster.local.")

	// A headless Service and its EndpointSlice, as the EndpointSlice
	// controller would write it for a StatefulSet's pods.
	if _, err := rest.Create(ctx, c, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "db"},
			Ports: []corev1.ServicePort{{Name: "postgres", Protocol: corev1.ProtocolTCP, Port: 5432}}}}); err != nil {
		t.Fatal(err)
	}
	eventually("db.default.svc.cluster.local.", dns.TypeA, "NXDOMAIN") // no endpoints yet
	pg := []portSpec{{"postgres", corev1.ProtocolTCP, 5432}}
	es, err := rest.Create(ctx, c, endpointSlice("default", "db-x1y2z", "db", pg, "10.244.1.7 db-0", "10.244.2.8 db-1"))
	if err != nil {
		t.Fatal(err)
	}
	eventually("db.default.svc.cluster.local.", dns.TypeA,
		"NOERROR db.default.svc.cluster.local. 30 IN A 10.244.1.7; db.default.svc.cluster.local. 30 IN A 10.244.2.8")
	eventually("db-1.db.default.svc.cluster.local.", dns.TypeA, "NOERROR db-1.db.default.svc.cluster.local. 30 IN A 10.244.2.8")
	eventually("8.2.244.10.in-addr.arpa.", dns.TypePTR, "NOERROR 8.2.244.10.in-addr.arpa. 30 IN PTR db-1.db.default.svc.cluster.local.")

	// db-1 stops being ready, db-2 comes.
	next := endpointSlice("default", "db-x1y2z", "db", pg, "10.244.1.7 db-0", "10.244.2.8 db-1 -", "10.244.3.9 db-2")
	next.ResourceVersion = es.ResourceVersion
	if es, err = rest.Update(ctx, c, next); err != nil {
		t.Fatal(err)
	}
	eventually("db.default.svc.cluster.local.", dns.TypeA,
		"NOERROR db.default.svc.cluster.local. 30 IN A 10.244.1.7; db.default.svc.cluster.local. 30 IN A 10.244.3.9")
	eventually("db-1.db.default.svc.cluster.local.", dns.TypeA, "NXDOMAIN")
	eventually("_postgres._tcp.db.default.svc.cluster.local.", dns.TypeSRV,
		"NOERROR _postgres._tcp.db.default.svc.cluster.local. 30 IN SRV 0 50 5432 db-0.db.default.svc.cluster.local.; "+
			"_postgres._tcp.db.default.svc.cluster.local. 30 IN SRV 0 50 5432 db-2.db.default.svc.cluster.local.")

	// An ExternalName Service; a new namespace.
	if _, err := rest.Create(ctx, c, externalName("default", "search", "www.example.com")); err != nil {
		t.Fatal(err)
	}
	eventually("search.default.svc.cluster.local.", dns.TypeA, "NOERROR search.default.svc.cluster.local. 30 IN CNAME www.example.com.")
	eventually("shop.svc.cluster.local.", dns.TypeA, "NXDOMAIN")
	if _, err := rest.Create(ctx, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}); err != nil {
		t.Fatal(err)
	}
	eventually("shop.svc.cluster.local.", dns.TypeA, "NOERROR")

	// Deletes: the slice, then the Services.
	if err := rest.Delete[discoveryv1.EndpointSlice](ctx, c, "default", "db-x1y2z", nil); err != nil {
		t.Fatal(err)
	}
	eventually("db.default.svc.cluster.local.", dns.TypeA, "NXDOMAIN")
	eventually("7.1.244.10.in-addr.arpa.", dns.TypePTR, "NXDOMAIN")
	for _, name := range []string{"web", "db", "search"} {
		if err := rest.Delete[corev1.Service](ctx, c, "default", name, nil); err != nil {
			t.Fatal(err)
		}
	}
	eventually("web.default.svc.cluster.local.", dns.TypeA, "NXDOMAIN")
	eventually(rev, dns.TypePTR, "NXDOMAIN")
	eventually("search.default.svc.cluster.local.", dns.TypeA, "NXDOMAIN")
	eventually("kubernetes.default.svc.cluster.local.", dns.TypeA, "NOERROR kubernetes.default.svc.cluster.local. 30 IN A 10.96.0.1")
}
