package dns

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/miekg/dns"
)

// HealthHandler answers /health with 200 "OK" while the process runs, as
// CoreDNS's health plugin (the Deployment's liveness probe, port 8080).
func HealthHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "OK")
	})
	return mux
}

// ReadyHandler answers /ready with 200 "OK" once ready() is true, and 503
// with the name of the plugin that is not ready ("kubernetes") before, as
// CoreDNS's ready plugin (the readiness probe, port 8181).
func ReadyHandler(ready func() bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
		if !ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, "kubernetes")
			return
		}
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "OK")
	})
	return mux
}

// metrics counts queries and answers: a small part of what CoreDNS's
// prometheus plugin exports, under its names.
type metrics struct {
	mu        sync.Mutex
	requests  map[[2]string]uint64 // {proto, type}
	responses map[string]uint64    // rcode
}

// countedTypes are the query types counted by name; others are "other"
// (CoreDNS keeps a fixed list too, so the label set stays bounded).
var countedTypes = map[uint16]bool{
	dns.TypeA: true, dns.TypeAAAA: true, dns.TypeSRV: true, dns.TypePTR: true, dns.TypeTXT: true,
	dns.TypeSOA: true, dns.TypeNS: true, dns.TypeCNAME: true, dns.TypeMX: true, dns.TypeANY: true,
	dns.TypeHTTPS: true,
}

func (m *metrics) count(req, resp *dns.Msg, udp bool) {
	proto, qtype := "udp", "other"
	if !udp {
		proto = "tcp"
	}
	if len(req.Question) == 1 && countedTypes[req.Question[0].Qtype] {
		qtype = dns.TypeToString[req.Question[0].Qtype]
	}
	rcode := dns.RcodeToString[resp.Rcode]
	if rcode == "" {
		rcode = "other"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.requests == nil {
		m.requests, m.responses = map[[2]string]uint64{}, map[string]uint64{}
	}
	m.requests[[2]string{proto, qtype}]++
	m.responses[rcode]++
}

// MetricsHandler serves /metrics in Prometheus' text format (CoreDNS: port
// 9153).
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		m := &s.metrics
		m.mu.Lock()
		reqKeys := make([][2]string, 0, len(m.requests))
		for k := range m.requests {
			reqKeys = append(reqKeys, k)
		}
		slices.SortFunc(reqKeys, func(a, b [2]string) int {
			if c := cmp.Compare(a[0], b[0]); c != 0 {
				return c
			}
			return cmp.Compare(a[1], b[1])
		})
		rcodes := make([]string, 0, len(m.responses))
		for k := range m.responses {
			rcodes = append(rcodes, k)
		}
		slices.Sort(rcodes)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintln(w, "# HELP coredns_dns_requests_total Counter of DNS requests made per zone, protocol and family.")
		fmt.Fprintln(w, "# TYPE coredns_dns_requests_total counter")
		for _, k := range reqKeys {
			fmt.Fprintf(w, "coredns_dns_requests_total{proto=%q,type=%q} %d\n", k[0], k[1], m.requests[k])
		}
		fmt.Fprintln(w, "# HELP coredns_dns_responses_total Counter of response status codes.")
		fmt.Fprintln(w, "# TYPE coredns_dns_responses_total counter")
		for _, rc := range rcodes {
			fmt.Fprintf(w, "coredns_dns_responses_total{rcode=%q} %d\n", rc, m.responses[rc])
		}
		m.mu.Unlock()
	})
	return mux
}
