package dns_test

import (
	"net"
	"net/netip"
	"testing"

	"github.com/miekg/dns"

	kubedns "kubik/ch07-kube-proxy/dns"
)

// recorder is a dns.ResponseWriter that keeps what the handler wrote.
type recorder struct {
	local net.Addr
	msg   *dns.Msg
}

func (r *recorder) LocalAddr() net.Addr       { return r.local }
func (r *recorder) RemoteAddr() net.Addr      { return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5353} }
func (r *recorder) WriteMsg(m *dns.Msg) error { r.msg = m; return nil }
func (r *recorder) Write(b []byte) (int, error) {
	return len(b), nil
}
func (r *recorder) Close() error        { return nil }
func (r *recorder) TsigStatus() error   { return nil }
func (r *recorder) TsigTimersOnly(bool) {}
func (r *recorder) Hijack()             {}

// FuzzServeDNS feeds random packets to the handler, as the UDP and TCP
// servers would after unpacking them: it never panics, always answers,
// and the answer packs within the transport's limit.
func FuzzServeDNS(f *testing.F) {
	for _, q := range []struct {
		name  string
		qtype uint16
		edns  uint16
	}{
		{"web.default.svc.cluster.local.", dns.TypeA, 0},
		{"many.default.svc.cluster.local.", dns.TypeA, 1232},
		{"_postgres._tcp.db.default.svc.cluster.local.", dns.TypeSRV, 4096},
		{"7.1.244.10.in-addr.arpa.", dns.TypePTR, 0},
		{"alias.default.svc.cluster.local.", dns.TypeA, 0},
		{"10-244-1-5.default.pod.cluster.local.", dns.TypeA, 0},
		{"cluster.local.", dns.TypeNS, 0},
		{"example.com.", dns.TypeA, 0},
	} {
		m := new(dns.Msg).SetQuestion(q.name, q.qtype)
		if q.edns > 0 {
			m.SetEdns0(q.edns, true)
		}
		b, err := m.Pack()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
		f.Add(b, false)
	}
	f.Add([]byte{0, 1, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0}, true)

	idx := kubedns.NewIndex()
	fillIndex(idx)
	srv, err := kubedns.NewServer(kubedns.Config{ReverseCIDRs: []netip.Prefix{serviceCIDR, podCIDR},
		LocalIPs: []netip.Addr{dnsPodIP}}, idx)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, packet []byte, udp bool) {
		req := new(dns.Msg)
		if req.Unpack(packet) != nil {
			return // the server answers these itself (FORMERR) or drops them
		}
		w := &recorder{local: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 53}}
		limit := dns.MaxMsgSize
		if udp {
			w.local = &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 53}
			limit = dns.MinMsgSize
			if opt := req.IsEdns0(); opt != nil {
				limit = max(limit, min(int(opt.UDPSize()), 4096))
			}
		}
		srv.ServeDNS(w, req)
		if w.msg == nil {
			t.Fatal("no answer")
		}
		if w.msg.Id != req.Id || !w.msg.Response {
			t.Fatalf("answer id %d qr %v to query %d", w.msg.Id, w.msg.Response, req.Id)
		}
		b, err := w.msg.Pack()
		if err != nil {
			// An answer that cannot be packed (a question name the query
			// could carry but not an answer) is a bug only if the
			// question itself packs.
			if _, qerr := req.Pack(); qerr == nil {
				t.Fatalf("answer does not pack: %v\n%v", err, w.msg)
			}
			return
		}
		if len(b) > limit {
			t.Fatalf("answer of %d bytes over a %d-byte limit", len(b), limit)
		}
	})
}
