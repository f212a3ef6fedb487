package dns_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// stubResolver does what a pod's C library does with the resolv.conf the
// kubelet writes for dnsPolicy ClusterFirst:
//
//	nameserver 10.96.0.10
//	search <namespace>.svc.cluster.local svc.cluster.local cluster.local
//	options ndots:5
//
// A name with fewer than ndots dots is tried with each search domain in
// order, then as it is; a name with at least ndots dots is tried as it is
// first; a name ending in a dot only as it is. NXDOMAIN, NODATA and
// SERVFAIL go on to the next candidate (glibc's res_search).
type stubResolver struct {
	t      *testing.T
	addr   string
	search []string
	ndots  int
	asked  []string
}

func (r *stubResolver) lookup(name string, qtype uint16) *dns.Msg {
	r.t.Helper()
	var candidates []string
	switch {
	case strings.HasSuffix(name, "."):
		candidates = []string{name}
	case strings.Count(name, ".") >= r.ndots:
		candidates = append([]string{name + "."}, r.expand(name)...)
	default:
		candidates = append(r.expand(name), name+".")
	}
	for _, c := range candidates {
		r.asked = append(r.asked, c)
		m := new(dns.Msg).SetQuestion(c, qtype)
		cl := &dns.Client{Net: "udp", Timeout: 10 * time.Second}
		resp, _, err := cl.Exchange(m, r.addr)
		if err != nil {
			r.t.Fatal(err)
		}
		if resp.Truncated {
			cl.Net = "tcp"
			if resp, _, err = cl.Exchange(m, r.addr); err != nil {
				r.t.Fatal(err)
			}
		}
		if resp.Rcode == dns.RcodeSuccess && len(resp.Answer) > 0 {
			return resp
		}
	}
	return nil
}

func (r *stubResolver) expand(name string) []string {
	var out []string
	for _, d := range r.search {
		out = append(out, name+"."+d+".")
	}
	return out
}

func searchList(namespace string) []string {
	return []string{namespace + ".svc.cluster.local", "svc.cluster.local", "cluster.local"}
}

// TestSearchPath shows the queries a pod makes for short and long names,
// and what it gets.
func TestSearchPath(t *testing.T) {
	_, addr := startServer(t, nil)
	for _, tc := range []struct {
		namespace, name string
		asked           []string
		answer          string // the A record's address; "" for no answer
	}{
		{"default", "my-svc", []string{"my-svc.default.svc.cluster.local."}, "10.96.0.50"},
		// The pod's own namespace comes first.
		{"other", "web", []string{"web.other.svc.cluster.local."}, "10.96.7.7"},
		{"default", "web", []string{"web.default.svc.cluster.local."}, "10.96.5.20"},
		// Another namespace: the second search domain.
		{"default", "web.other", []string{"web.other.default.svc.cluster.local.", "web.other.svc.cluster.local."}, "10.96.7.7"},
		{"default", "web.other.svc", []string{"web.other.svc.default.svc.cluster.local.", "web.other.svc.svc.cluster.local.",
			"web.other.svc.cluster.local."}, "10.96.7.7"},
		// Four dots are fewer than five: every search domain first.
		{"default", "kubernetes.default.svc.cluster.local", []string{
			"kubernetes.default.svc.cluster.local.default.svc.cluster.local.",
			"kubernetes.default.svc.cluster.local.svc.cluster.local.",
			"kubernetes.default.svc.cluster.local.cluster.local.",
			"kubernetes.default.svc.cluster.local."}, "10.96.0.1"},
		// A trailing dot: one query.
		{"default", "kubernetes.default.svc.cluster.local.", []string{"kubernetes.default.svc.cluster.local."}, "10.96.0.1"},
		// A headless Service's pod by its hostname.
		{"default", "db-0.db", []string{"db-0.db.default.svc.cluster.local."}, "10.244.1.7"},
		// Outside the cluster: three NXDOMAINs, then SERVFAIL.
		{"default", "example.com", []string{"example.com.default.svc.cluster.local.", "example.com.svc.cluster.local.",
			"example.com.cluster.local.", "example.com."}, ""},
		// Five dots: as it is first (SERVFAIL), then the search list.
		{"default", "a.b.c.d.example.com", []string{"a.b.c.d.example.com.", "a.b.c.d.example.com.default.svc.cluster.local.",
			"a.b.c.d.example.com.svc.cluster.local.", "a.b.c.d.example.com.cluster.local."}, ""},
	} {
		r := &stubResolver{t: t, addr: addr, search: searchList(tc.namespace), ndots: 5}
		m := r.lookup(tc.name, dns.TypeA)
		got := ""
		if m != nil {
			got = m.Answer[len(m.Answer)-1].(*dns.A).A.String()
		}
		t.Logf("pod in %s looks up %q: asks %v, gets %q", tc.namespace, tc.name, r.asked, got)
		if got != tc.answer || !slices.Equal(r.asked, tc.asked) {
			t.Errorf("pod in %s looks up %q: asked\n  %s\ngot %q; want asked\n  %s\nand %q", tc.namespace, tc.name,
				strings.Join(r.asked, "\n  "), got, strings.Join(tc.asked, "\n  "), tc.answer)
		}
	}
}
