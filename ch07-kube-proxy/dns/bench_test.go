package dns_test

import (
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kubik/ch01-apiserver/api/corev1"
	kubedns "kubik/ch07-kube-proxy/dns"
)

// BenchmarkQueries measures answers per second and the 99th percentile
// latency seen by UDP clients on loopback, against a server holding 1000
// Services (every tenth headless, with three endpoints each; the others
// with a ClusterIP and an EndpointSlice of three endpoints). The queries
// go round the Services: A of the Service, SRV of its port, PTR of its
// address, and a name that does not exist.
//
//	go test -run XXX -bench Queries ./ch07-kube-proxy/dns/
func BenchmarkQueries(b *testing.B) {
	const services = 1000
	idx := kubedns.NewIndex()
	idx.SetNamespace("bench")
	http := []portSpec{{"http", corev1.ProtocolTCP, 80}}
	var queries []*dns.Msg
	for i := range services {
		name := fmt.Sprintf("svc-%d", i)
		ip := fmt.Sprintf("10.96.%d.%d", 10+i/250, 1+i%250)
		if i%10 == 0 {
			ip = corev1.ClusterIPNone
		}
		idx.SetService(service("bench", name, ip, http...))
		var eps []ep
		for j := range 3 {
			eps = append(eps, ep(fmt.Sprintf("10.244.%d.%d", i/80, 1+(i%80)*3+j)))
		}
		idx.SetEndpointSlice(endpointSlice("bench", name+"-abcde", name, http, eps...))
		fqdn := name + ".bench.svc.cluster.local."
		queries = append(queries,
			new(dns.Msg).SetQuestion(fqdn, dns.TypeA),
			new(dns.Msg).SetQuestion("_http._tcp."+fqdn, dns.TypeSRV),
			new(dns.Msg).SetQuestion("nope-"+fqdn, dns.TypeA))
		if ip != corev1.ClusterIPNone {
			rev, _ := dns.ReverseAddr(ip)
			queries = append(queries, new(dns.Msg).SetQuestion(rev, dns.TypePTR))
		}
	}
	srv, err := kubedns.NewServer(kubedns.Config{ReverseCIDRs: []netip.Prefix{serviceCIDR, podCIDR}}, idx)
	if err != nil {
		b.Fatal(err)
	}
	addr := serve(b, srv)

	var mu sync.Mutex
	var latencies []time.Duration
	b.SetParallelism(4) // 4 × GOMAXPROCS clients, each waiting for its answer
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		c := &dns.Client{Net: "udp", Timeout: 5 * time.Second}
		conn, err := c.Dial(addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer conn.Close()
		var mine []time.Duration
		for i := 0; pb.Next(); i++ {
			q := queries[(i*7919)%len(queries)].Copy()
			q.Id = dns.Id()
			t0 := time.Now()
			r, _, err := c.ExchangeWithConn(q, conn)
			if err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(t0))
			if r.Rcode == dns.RcodeServerFailure {
				b.Errorf("SERVFAIL for %s", q.Question[0].Name)
				return
			}
		}
		mu.Lock()
		latencies = append(latencies, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "queries/s")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "p50-µs")
}
