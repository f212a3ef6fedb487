package dns_test

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// TestTruncation: over UDP an answer is cut to 512 bytes, or to the
// client's EDNS0 buffer size, with the TC bit set; over TCP it is whole.
func TestTruncation(t *testing.T) {
	_, addr := startServer(t, nil)
	for _, tc := range []struct {
		name      string
		network   string
		edns      uint16
		wantTC    bool
		wantCount int // 0: fewer than all, at least one
		maxLen    int
	}{
		{"medium.default.svc.cluster.local.", "udp", 0, true, 0, 512},
		{"medium.default.svc.cluster.local.", "udp", 1232, true, 0, 1232},
		{"medium.default.svc.cluster.local.", "udp", 4096, false, mediumEndpoints, 4096},
		{"medium.default.svc.cluster.local.", "udp", 100, true, 0, 512}, // below 512 counts as 512
		{"many.default.svc.cluster.local.", "udp", 0, true, 0, 512},
		{"many.default.svc.cluster.local.", "udp", 4096, true, 0, 4096},
		{"many.default.svc.cluster.local.", "udp", 65000, true, 0, 4096}, // capped at 4096
		{"many.default.svc.cluster.local.", "tcp", 0, false, manyEndpoints, dns.MaxMsgSize},
		{"many.default.svc.cluster.local.", "tcp", 4096, false, manyEndpoints, dns.MaxMsgSize},
	} {
		m := exchange(t, addr, tc.network, tc.name, dns.TypeA, tc.edns)
		m.Compress = true // as the server sent it
		packed, err := m.Pack()
		if err != nil {
			t.Fatal(err)
		}
		n := len(m.Answer)
		t.Logf("%s over %s, EDNS0 %d: %d bytes, %d records, TC %v", tc.name, tc.network, tc.edns, len(packed), n, m.Truncated)
		if m.Rcode != dns.RcodeSuccess || m.Truncated != tc.wantTC || len(packed) > tc.maxLen {
			t.Errorf("%s over %s, EDNS0 %d: rcode %s, TC %v (want %v), %d bytes (at most %d)",
				tc.name, tc.network, tc.edns, dns.RcodeToString[m.Rcode], m.Truncated, tc.wantTC, len(packed), tc.maxLen)
		}
		if tc.wantCount > 0 && n != tc.wantCount || tc.wantCount == 0 && n == 0 {
			t.Errorf("%s over %s, EDNS0 %d: %d records, want %d", tc.name, tc.network, tc.edns, n, tc.wantCount)
		}
		for _, rr := range m.Answer {
			if rr.Header().Ttl != 30 || rr.Header().Rrtype != dns.TypeA {
				t.Errorf("record %s", rr)
			}
		}
	}
}

// TestLoadBalance: the A records of a headless Service come in a random
// order (the loadbalance plugin of kubeadm's Corefile).
func TestLoadBalance(t *testing.T) {
	_, addr := startServer(t, nil)
	first := map[string]bool{}
	for range 50 {
		m := exchange(t, addr, "udp", "db.default.svc.cluster.local.", dns.TypeA, 0)
		first[m.Answer[0].(*dns.A).A.String()] = true
		if len(first) > 1 {
			return
		}
	}
	t.Errorf("50 answers all begin with %v", first)
}

// TestMalformed sends broken packets over UDP and TCP: each gets a
// FORMERR or NOTIMP, or no answer, and the server goes on answering.
func TestMalformed(t *testing.T) {
	_, addr := startServer(t, nil)
	valid := new(dns.Msg).SetQuestion("web.default.svc.cluster.local.", dns.TypeA)
	header := func(id, bits, qd, an, ns, ar uint16) []byte {
		b := make([]byte, 12)
		for i, v := range []uint16{id, bits, qd, an, ns, ar} {
			binary.BigEndian.PutUint16(b[2*i:], v)
		}
		return b
	}
	packed, _ := valid.Pack()
	twoQuestions := append(header(7, 0x0100, 2, 0, 0, 0), packed[12:]...)
	twoQuestions = append(twoQuestions, packed[12:]...)
	update := append(header(8, 5<<11, 1, 0, 0, 0), packed[12:]...)
	noQuestion := header(9, 0x0100, 0, 0, 0, 0)
	// A name that points at itself: a compression loop.
	loop := append(header(10, 0x0100, 1, 0, 0, 0), 0xC0, 12, 0, 1, 0, 1)
	response := append(header(11, 0x8100, 1, 0, 0, 0), packed[12:]...)

	for _, tc := range []struct {
		name  string
		pkt   []byte
		rcode int // -1: no answer is due
	}{
		{"empty", nil, -1},
		{"one byte", []byte{0}, -1},
		{"short header", []byte{1, 2, 3, 4, 5}, -1},
		{"header claims a question it lacks", header(5, 0x0100, 1, 0, 0, 0), dns.RcodeFormatError},
		{"question without class", packed[:len(packed)-2], dns.RcodeRefused}, // class 0
		{"truncated question", packed[:len(packed)-6], dns.RcodeFormatError},
		{"two questions", twoQuestions, dns.RcodeFormatError},
		{"no question", noQuestion, dns.RcodeFormatError},
		{"UPDATE opcode", update, dns.RcodeNotImplemented},
		{"compression loop", loop, dns.RcodeFormatError},
		{"a response", response, -1},
		{"garbage", []byte(strings.Repeat("\xff", 300)), -1},
	} {
		for _, network := range []string{"udp", "tcp"} {
			if tc.rcode < 0 {
				// No answer is due: send it, and see the server answer
				// the next query.
				rawSend(t, addr, network, tc.pkt)
			} else {
				m := new(dns.Msg)
				if err := m.Unpack(rawExchange(t, addr, network, tc.pkt)); err != nil {
					t.Errorf("%s over %s: answer does not unpack: %v", tc.name, network, err)
				} else if m.Rcode != tc.rcode {
					t.Errorf("%s over %s: rcode %s, want %s", tc.name, network, dns.RcodeToString[m.Rcode], dns.RcodeToString[tc.rcode])
				}
			}
			if m := exchange(t, addr, network, valid.Question[0].Name, dns.TypeA, 0); len(m.Answer) != 1 {
				t.Fatalf("after %s over %s the server answers %v", tc.name, network, m)
			}
		}
	}

	// A TCP length prefix promising more than ever comes, then silence:
	// the server drops the connection after its read timeout.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte{0xff, 0xff, 1, 2, 3})
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Errorf("half a TCP message: %v (want the server to close the connection)", err)
	}
}

// rawSend sends pkt (over TCP with its length prefix) and closes.
func rawSend(t *testing.T, addr, network string, pkt []byte) {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if network == "tcp" {
		pkt = append(binary.BigEndian.AppendUint16(nil, uint16(len(pkt))), pkt...)
	}
	if _, err := c.Write(pkt); err != nil {
		t.Fatal(err)
	}
}

// rawExchange sends pkt and returns the answer (nil if none came in 30
// seconds).
func rawExchange(t *testing.T, addr, network string, pkt []byte) []byte {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if network == "udp" {
		c.Write(pkt)
		buf := make([]byte, 65535)
		n, err := c.Read(buf)
		if err != nil {
			t.Errorf("no answer: %v", err)
			return nil
		}
		return buf[:n]
	}
	c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(pkt))), pkt...))
	var l [2]byte
	if _, err := io.ReadFull(c, l[:]); err != nil {
		t.Errorf("no answer: %v", err)
		return nil
	}
	buf := make([]byte, binary.BigEndian.Uint16(l[:]))
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Errorf("half an answer: %v", err)
		return nil
	}
	return buf
}

// TestReplyEdgeCases calls the handler directly with queries a client
// library would not send.
func TestReplyEdgeCases(t *testing.T) {
	srv, _ := startServer(t, nil)
	q := func(name string, qtype, class uint16) *dns.Msg {
		m := new(dns.Msg).SetQuestion(name, qtype)
		m.Question[0].Qclass = class
		return m
	}
	notify := q("cluster.local.", dns.TypeSOA, dns.ClassINET)
	notify.Opcode = dns.OpcodeNotify
	badVers := q("web.default.svc.cluster.local.", dns.TypeA, dns.ClassINET)
	badVers.SetEdns0(4096, false)
	badVers.IsEdns0().SetVersion(1)
	empty := new(dns.Msg)
	empty.Id = 3

	for _, tc := range []struct {
		name  string
		req   *dns.Msg
		rcode int
	}{
		{"no question", empty, dns.RcodeFormatError},
		{"NOTIFY", notify, dns.RcodeNotImplemented},
		{"EDNS version 1", badVers, dns.RcodeBadVers},
		{"CHAOS class", q("version.bind.", dns.TypeTXT, dns.ClassCHAOS), dns.RcodeServerFailure},
		{"CHAOS class in zone", q("web.default.svc.cluster.local.", dns.TypeA, dns.ClassCHAOS), dns.RcodeRefused},
		{"ANY class", q("web.default.svc.cluster.local.", dns.TypeA, dns.ClassANY), dns.RcodeSuccess},
		{"AXFR", q("cluster.local.", dns.TypeAXFR, dns.ClassINET), dns.RcodeRefused},
		{"IXFR", q("cluster.local.", dns.TypeIXFR, dns.ClassINET), dns.RcodeRefused},
		{"ANY type", q("web.default.svc.cluster.local.", dns.TypeANY, dns.ClassINET), dns.RcodeSuccess},
	} {
		for _, udp := range []bool{true, false} {
			m := srv.Reply(tc.req, udp)
			if m.Rcode != tc.rcode || m.Id != tc.req.Id || !m.Response {
				t.Errorf("%s (udp %v): rcode %s id %d qr %v, want %s id %d", tc.name, udp, dns.RcodeToString[m.Rcode], m.Id, m.Response,
					dns.RcodeToString[tc.rcode], tc.req.Id)
			}
			if _, err := m.Pack(); err != nil {
				t.Errorf("%s: the answer does not pack: %v", tc.name, err)
			}
		}
	}
}

// TestNotSynced: before the informers' first lists a name that is not
// found may yet exist: SERVFAIL, not NXDOMAIN (CoreDNS); found names are
// answered.
func TestNotSynced(t *testing.T) {
	_, addr := startServer(t, func() bool { return false })
	if m := exchange(t, addr, "udp", "nope.default.svc.cluster.local.", dns.TypeA, 0); m.Rcode != dns.RcodeServerFailure {
		t.Errorf("unsynced, unknown name: %s, want SERVFAIL", dns.RcodeToString[m.Rcode])
	}
	if m := exchange(t, addr, "udp", "web.default.svc.cluster.local.", dns.TypeA, 0); m.Rcode != dns.RcodeSuccess || len(m.Answer) != 1 {
		t.Errorf("unsynced, known name: %v", m)
	}
}
