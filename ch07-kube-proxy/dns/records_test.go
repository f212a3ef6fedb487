package dns_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

const soaCluster = "cluster.local. 30 IN SOA ns.dns.cluster.local. hostmaster.cluster.local. SERIAL 7200 1800 86400 30"

// soaText is the SOA of the authority section with its serial (the time
// of the index's last change) written SERIAL.
func soaText(m *dns.Msg) string {
	var out []string
	for _, rr := range m.Ns {
		f := strings.Fields(rr.String())
		if soa, ok := rr.(*dns.SOA); ok && soa.Serial > 0 && len(f) == 11 {
			f[6] = "SERIAL"
		}
		out = append(out, strings.Join(f, " "))
	}
	return strings.Join(out, "\n")
}

// TestRecords asks the server every kind of record over UDP with EDNS0
// and compares the whole answer: rcode, answer, additional and authority
// sections, TTLs included.
func TestRecords(t *testing.T) {
	_, addr := startServer(t, nil)
	for _, tc := range []struct {
		name   string
		qtype  uint16
		rcode  int
		answer []string
		extra  []string
		soa    string // the authority section
	}{
		// A of a ClusterIP Service, in every namespace.
		{"kubernetes.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess,
			[]string{"kubernetes.default.svc.cluster.local. 30 IN A 10.96.0.1"}, nil, ""},
		{"web.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"web.default.svc.cluster.local. 30 IN A 10.96.5.20"}, nil, ""},
		{"web.other.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"web.other.svc.cluster.local. 30 IN A 10.96.7.7"}, nil, ""},
		// Headless: one A per ready endpoint (10.244.3.1 is not ready) ...
		{"db.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{
			"db.default.svc.cluster.local. 30 IN A 10.244.1.7",
			"db.default.svc.cluster.local. 30 IN A 10.244.2.8",
			"db.default.svc.cluster.local. 30 IN A 10.244.2.9"}, nil, ""},
		// ... and not-ready ones too when the Service publishes them.
		{"peers.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"peers.default.svc.cluster.local. 30 IN A 10.244.3.3"}, nil, ""},
		// A headless Service without ready endpoints: NXDOMAIN (the schema's rule).
		{"empty.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},
		// Endpoint names: the endpoint's hostname, else its address dashed.
		{"db-0.db.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"db-0.db.default.svc.cluster.local. 30 IN A 10.244.1.7"}, nil, ""},
		{"10-244-2-9.db.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"10-244-2-9.db.default.svc.cluster.local. 30 IN A 10.244.2.9"}, nil, ""},
		{"db-3.db.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},
		{"nope.db.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},
		// As CoreDNS, a ClusterIP Service's endpoints have names too.
		{"10-244-1-5.web.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"10-244-1-5.web.default.svc.cluster.local. 30 IN A 10.244.1.5"}, nil, ""},

		// SRV: ClusterIP → the Service name, with its A as additional data.
		{"_https._tcp.kubernetes.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess,
			[]string{"_https._tcp.kubernetes.default.svc.cluster.local. 30 IN SRV 0 100 443 kubernetes.default.svc.cluster.local."},
			[]string{"kubernetes.default.svc.cluster.local. 30 IN A 10.96.0.1"}, ""},
		{"_dns._udp.kube-dns.kube-system.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess,
			[]string{"_dns._udp.kube-dns.kube-system.svc.cluster.local. 30 IN SRV 0 100 53 kube-dns.kube-system.svc.cluster.local."},
			[]string{"kube-dns.kube-system.svc.cluster.local. 30 IN A 10.96.0.10"}, ""},
		// SRV of the Service name itself: every port (53 once: dns and dns-tcp share it).
		{"kube-dns.kube-system.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess, []string{
			"kube-dns.kube-system.svc.cluster.local. 30 IN SRV 0 33 53 kube-dns.kube-system.svc.cluster.local.",
			"kube-dns.kube-system.svc.cluster.local. 30 IN SRV 0 33 9153 kube-dns.kube-system.svc.cluster.local."},
			[]string{"kube-dns.kube-system.svc.cluster.local. 30 IN A 10.96.0.10"}, ""},
		// Headless → one per ready endpoint, named by hostname or dashed address.
		{"_postgres._tcp.db.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess, []string{
			"_postgres._tcp.db.default.svc.cluster.local. 30 IN SRV 0 33 5432 10-244-2-9.db.default.svc.cluster.local.",
			"_postgres._tcp.db.default.svc.cluster.local. 30 IN SRV 0 33 5432 db-0.db.default.svc.cluster.local.",
			"_postgres._tcp.db.default.svc.cluster.local. 30 IN SRV 0 33 5432 db-1.db.default.svc.cluster.local."}, []string{
			"10-244-2-9.db.default.svc.cluster.local. 30 IN A 10.244.2.9",
			"db-0.db.default.svc.cluster.local. 30 IN A 10.244.1.7",
			"db-1.db.default.svc.cluster.local. 30 IN A 10.244.2.8"}, ""},
		{"_gossip._udp.peers.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess,
			[]string{"_gossip._udp.peers.default.svc.cluster.local. 30 IN SRV 0 100 7946 peer-0.peers.default.svc.cluster.local."},
			[]string{"peer-0.peers.default.svc.cluster.local. 30 IN A 10.244.3.3"}, ""},
		// No such port, or protocol.
		{"_http._udp.web.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeNameError, nil, nil, soaCluster},
		{"_ftp._tcp.web.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeNameError, nil, nil, soaCluster},
		{"a.b._http._tcp.web.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeNameError, nil, nil, soaCluster},

		// PTR of ClusterIPs and endpoint addresses.
		{"1.0.96.10.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, []string{"1.0.96.10.in-addr.arpa. 30 IN PTR kubernetes.default.svc.cluster.local."}, nil, ""},
		{"20.5.96.10.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, []string{"20.5.96.10.in-addr.arpa. 30 IN PTR web.default.svc.cluster.local."}, nil, ""},
		{"7.1.244.10.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, []string{"7.1.244.10.in-addr.arpa. 30 IN PTR db-0.db.default.svc.cluster.local."}, nil, ""},
		{"9.2.244.10.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, []string{"9.2.244.10.in-addr.arpa. 30 IN PTR 10-244-2-9.db.default.svc.cluster.local."}, nil, ""},
		{"5.1.244.10.in-addr.arpa.", dns.TypePTR, dns.RcodeSuccess, []string{"5.1.244.10.in-addr.arpa. 30 IN PTR 10-244-1-5.web.default.svc.cluster.local."}, nil, ""},
		{"99.99.244.10.in-addr.arpa.", dns.TypePTR, dns.RcodeNameError, nil, nil,
			"244.10.in-addr.arpa. 30 IN SOA ns.dns.244.10.in-addr.arpa. hostmaster.244.10.in-addr.arpa. SERIAL 7200 1800 86400 30"},
		{"7.7.111.10.in-addr.arpa.", dns.TypePTR, dns.RcodeNameError, nil, nil,
			"111.10.in-addr.arpa. 30 IN SOA ns.dns.111.10.in-addr.arpa. hostmaster.111.10.in-addr.arpa. SERIAL 7200 1800 86400 30"},
		{"96.10.in-addr.arpa.", dns.TypeSOA, dns.RcodeSuccess,
			[]string{"96.10.in-addr.arpa. 30 IN SOA ns.dns.96.10.in-addr.arpa. hostmaster.96.10.in-addr.arpa. SERIAL 7200 1800 86400 30"}, nil, ""},
		{"20.5.96.10.in-addr.arpa.", dns.TypeA, dns.RcodeSuccess, nil, nil,
			"96.10.in-addr.arpa. 30 IN SOA ns.dns.96.10.in-addr.arpa. hostmaster.96.10.in-addr.arpa. SERIAL 7200 1800 86400 30"},
		// Outside the Service and pod ranges: not ours.
		{"1.2.3.4.in-addr.arpa.", dns.TypePTR, dns.RcodeServerFailure, nil, nil, ""},
		{"1.0.112.10.in-addr.arpa.", dns.TypePTR, dns.RcodeServerFailure, nil, nil, ""},

		// ExternalName: a CNAME; followed when its target is in the zone.
		{"ext.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"ext.default.svc.cluster.local. 30 IN CNAME www.example.com."}, nil, ""},
		{"ext.default.svc.cluster.local.", dns.TypeCNAME, dns.RcodeSuccess, []string{"ext.default.svc.cluster.local. 30 IN CNAME www.example.com."}, nil, ""},
		// A CNAME owner has no other data: every type gets the CNAME.
		{"ext.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess, []string{"ext.default.svc.cluster.local. 30 IN CNAME www.example.com."}, nil, ""},
		{"_http._tcp.ext.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeNameError, nil, nil, soaCluster},
		{"www.ext.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},
		{"alias.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{
			"alias.default.svc.cluster.local. 30 IN CNAME web.default.svc.cluster.local.",
			"web.default.svc.cluster.local. 30 IN A 10.96.5.20"}, nil, ""},

		// NODATA: the name exists, not with this type. AAAA: an IPv4 cluster.
		{"web.default.svc.cluster.local.", dns.TypeAAAA, dns.RcodeSuccess, nil, nil, soaCluster},
		{"db.default.svc.cluster.local.", dns.TypeAAAA, dns.RcodeSuccess, nil, nil, soaCluster},
		{"web.default.svc.cluster.local.", dns.TypeTXT, dns.RcodeSuccess, nil, nil, soaCluster},
		{"web.default.svc.cluster.local.", dns.TypeMX, dns.RcodeSuccess, nil, nil, soaCluster},
		{"default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, nil, nil, soaCluster},
		{"svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, nil, nil, soaCluster},
		{"default.pod.cluster.local.", dns.TypeA, dns.RcodeSuccess, nil, nil, soaCluster},
		{"cluster.local.", dns.TypeA, dns.RcodeSuccess, nil, nil, soaCluster},
		{"dns-version.cluster.local.", dns.TypeA, dns.RcodeSuccess, nil, nil, soaCluster},
		// NXDOMAIN: no such name.
		{"nope.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},
		{"nope.default.svc.cluster.local.", dns.TypeAAAA, dns.RcodeNameError, nil, nil, soaCluster},
		{"web.nons.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},
		{"nons.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},
		{"web.default.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},

		// The schema version, the zone's SOA and NS.
		{"dns-version.cluster.local.", dns.TypeTXT, dns.RcodeSuccess, []string{`dns-version.cluster.local. 28800 IN TXT "1.1.0"`}, nil, ""},
		{"cluster.local.", dns.TypeSOA, dns.RcodeSuccess, []string{soaCluster}, nil, ""},
		{"cluster.local.", dns.TypeNS, dns.RcodeSuccess, []string{"cluster.local. 30 IN NS kube-dns.kube-system.svc.cluster.local."},
			[]string{"kube-dns.kube-system.svc.cluster.local. 30 IN A 10.96.0.10"}, ""},
		{"ns.dns.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"ns.dns.cluster.local. 30 IN A 10.96.0.10"}, nil, ""},

		// Pods (pods insecure): any address, in an existing namespace.
		{"10-244-1-5.default.pod.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"10-244-1-5.default.pod.cluster.local. 30 IN A 10.244.1.5"}, nil, ""},
		{"10-244-9-9.other.pod.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"10-244-9-9.other.pod.cluster.local. 30 IN A 10.244.9.9"}, nil, ""},
		{"10-244-1-5.default.pod.cluster.local.", dns.TypeAAAA, dns.RcodeSuccess, nil, nil, soaCluster},
		{"10-244-1-5.nons.pod.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},
		{"1-2-3.default.pod.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},
		{"10-244-1-256.default.pod.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, soaCluster},

		// Case does not matter; the answer keeps the question's spelling.
		{"WEB.Default.SVC.Cluster.Local.", dns.TypeA, dns.RcodeSuccess, []string{"WEB.Default.SVC.Cluster.Local. 30 IN A 10.96.5.20"}, nil, ""},
		{"_HTTPS._TCP.Kubernetes.DEFAULT.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess,
			[]string{"_HTTPS._TCP.Kubernetes.DEFAULT.svc.cluster.local. 30 IN SRV 0 100 443 kubernetes.default.svc.cluster.local."},
			[]string{"kubernetes.default.svc.cluster.local. 30 IN A 10.96.0.1"}, ""},
		{"NOPE.default.svc.CLUSTER.LOCAL.", dns.TypeA, dns.RcodeNameError, nil, nil,
			"CLUSTER.LOCAL. 30 IN SOA ns.dns.cluster.local. hostmaster.cluster.local. SERIAL 7200 1800 86400 30"},
		{"DB-0.db.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{"DB-0.db.default.svc.cluster.local. 30 IN A 10.244.1.7"}, nil, ""},

		// Names outside the cluster's zones: SERVFAIL, there is no upstream.
		{"example.com.", dns.TypeA, dns.RcodeServerFailure, nil, nil, ""},
		{"local.", dns.TypeA, dns.RcodeServerFailure, nil, nil, ""},
		{".", dns.TypeNS, dns.RcodeServerFailure, nil, nil, ""},
		{"notcluster.local.", dns.TypeA, dns.RcodeServerFailure, nil, nil, ""},
	} {
		t.Run(tc.name+"/"+dns.TypeToString[tc.qtype], func(t *testing.T) {
			m := exchange(t, addr, "udp", tc.name, tc.qtype, 4096)
			if m.Rcode != tc.rcode {
				t.Errorf("rcode %s, want %s", dns.RcodeToString[m.Rcode], dns.RcodeToString[tc.rcode])
			}
			inZone := tc.rcode != dns.RcodeServerFailure
			if m.Authoritative != inZone {
				t.Errorf("aa %v, want %v", m.Authoritative, inZone)
			}
			if m.Truncated {
				t.Error("TC set")
			}
			answer := rrs(m.Answer)
			for i, a := range answer {
				if f := strings.Fields(a); len(f) == 11 && f[3] == "SOA" {
					f[6] = "SERIAL"
					answer[i] = strings.Join(f, " ")
				}
			}
			if want := sorted(tc.answer); !slices.Equal(answer, want) {
				t.Errorf("answer\n%s\nwant\n%s", strings.Join(answer, "\n"), strings.Join(want, "\n"))
			}
			if got, want := rrs(m.Extra), sorted(tc.extra); !slices.Equal(got, want) {
				t.Errorf("additional\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if got := soaText(m); got != tc.soa {
				t.Errorf("authority\n%s\nwant\n%s", got, tc.soa)
			}
			if opt := m.IsEdns0(); opt == nil {
				t.Error("an EDNS0 query got an answer without OPT")
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
