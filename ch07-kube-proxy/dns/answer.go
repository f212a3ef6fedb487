package dns

import (
	"math/rand/v2"
	"net"

	"github.com/miekg/dns"
)

// Fixed values of CoreDNS's answers.
const (
	// dnsVersionTTL is the TTL of dns-version.<zone> (the schema's example).
	dnsVersionTTL = 28800
	// maxSOATTL caps the SOA's own TTL (CoreDNS: min(ttl, 300)).
	maxSOATTL = 300
	// SOA timers, CoreDNS's.
	soaRefresh, soaRetry, soaExpire = 7200, 1800, 86400
	// maxCNAMEChain bounds how many in-zone CNAMEs are followed.
	maxCNAMEChain = 10
)

// ServeDNS answers one query; it is the dns.Handler the UDP and TCP
// servers call.
func (s *Server) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	udp := true
	if a := w.LocalAddr(); a != nil && a.Network() == "tcp" {
		udp = false
	}
	m := s.Reply(req, udp)
	s.metrics.count(req, m, udp)
	if err := w.WriteMsg(m); err != nil {
		s.log.Debug("writing the answer failed", "err", err)
	}
}

// Reply is the answer to req, sized for its transport: over UDP at most
// 512 bytes, or the client's EDNS0 buffer size (up to 4096); over TCP at
// most 64 KiB. An answer that does not fit is cut and has the TC bit set,
// and the client asks again over TCP.
func (s *Server) Reply(req *dns.Msg, udp bool) *dns.Msg {
	m := new(dns.Msg)
	if len(req.Question) != 1 {
		return m.SetRcodeFormatError(req)
	}
	if req.Opcode != dns.OpcodeQuery {
		return m.SetRcode(req, dns.RcodeNotImplemented)
	}
	m.SetReply(req)
	size := dns.MaxMsgSize
	if udp {
		size = dns.MinMsgSize
	}
	opt := req.IsEdns0()
	if opt != nil && opt.Version() != 0 {
		m.SetRcode(req, dns.RcodeBadVers)
		return m.SetEdns0(maxUDPSize, false)
	}
	s.answer(m, req.Question[0])
	if opt != nil {
		if udp {
			size = min(max(int(opt.UDPSize()), dns.MinMsgSize), maxUDPSize)
		}
		m.SetEdns0(maxUDPSize, false)
	}
	m.Truncate(size)
	return m
}

// answer fills m with the answer to q.
func (s *Server) answer(m *dns.Msg, q dns.Question) {
	name := lowerASCII(q.Name)
	zone, reverse, ok := s.findZone(name)
	switch {
	case !ok:
		// Not ours, and there is no upstream to forward to.
		m.Rcode = dns.RcodeServerFailure
		return
	case q.Qclass != dns.ClassINET && q.Qclass != dns.ClassANY:
		m.Rcode = dns.RcodeRefused
		return
	case q.Qtype == dns.TypeAXFR || q.Qtype == dns.TypeIXFR:
		m.Rcode = dns.RcodeRefused // as CoreDNS's kubernetes plugin (no transfer plugin)
		return
	}
	m.Authoritative = true
	soaOwner := q.Name[len(q.Name)-len(zone):] // the zone, in the query's case
	labels := dns.SplitDomainName(name[:len(name)-len(zone)])

	var exists bool
	if reverse {
		exists, m.Answer = s.answerReverse(q, labels, zone)
	} else {
		res := s.index.lookup(labels, s.zone, s.cfg.LocalIPs)
		exists = res.exists
		m.Answer, m.Extra = s.records(q.Name, q.Qtype, res, 0)
	}
	switch {
	case !exists && s.cfg.HasSynced != nil && !s.cfg.HasSynced():
		m.Rcode = dns.RcodeServerFailure // not NXDOMAIN before the index is complete (CoreDNS)
		m.Ns = []dns.RR{s.soa(soaOwner, zone)}
	case !exists:
		m.Rcode = dns.RcodeNameError
		m.Ns = []dns.RR{s.soa(soaOwner, zone)}
	case len(m.Answer) == 0: // NODATA
		m.Ns = []dns.RR{s.soa(soaOwner, zone)}
	}
}

// findZone finds the zone of name (lower case): the longest of the
// served zones that name is in.
func (s *Server) findZone(name string) (zone string, reverse, ok bool) {
	for off, end := 0, false; !end; off, end = dns.NextLabel(name, off) {
		if r, found := s.zones[name[off:]]; found {
			return name[off:], r, true
		}
	}
	return "", false, false
}

// records are the answer and additional records of owner for qtype in the
// cluster zone, from what the name holds (res).
func (s *Server) records(owner string, qtype uint16, res result, depth int) (answer, extra []dns.RR) {
	if len(res.entries) > 0 && res.entries[0].target != "" {
		return s.cname(owner, qtype, res.entries[0].target, depth)
	}
	switch qtype {
	case dns.TypeA:
		answer = s.addresses(owner, res.entries)
	case dns.TypeSRV:
		answer, extra = s.srv(owner, res.entries)
	case dns.TypeTXT:
		if res.txt != "" {
			answer = []dns.RR{&dns.TXT{Hdr: hdr(owner, dns.TypeTXT, dnsVersionTTL), Txt: []string{res.txt}}}
		}
	case dns.TypeSOA:
		if res.apex {
			answer = []dns.RR{s.soa(owner, s.zone)}
		}
	case dns.TypeNS:
		if res.apex {
			answer, extra = s.ns(owner)
		}
	}
	// AAAA: none (an IPv4 cluster); other types: NODATA.
	return answer, extra
}

// cname answers a name that is an alias (an ExternalName Service): the
// CNAME, and, when its target is in the cluster zone, the target's own
// records. A target outside is left to the client: there is no upstream
// to ask.
func (s *Server) cname(owner string, qtype uint16, target string, depth int) (answer, extra []dns.RR) {
	answer = []dns.RR{&dns.CNAME{Hdr: hdr(owner, dns.TypeCNAME, s.cfg.TTL), Target: target}}
	if qtype == dns.TypeCNAME || depth >= maxCNAMEChain || !dns.IsSubDomain(s.zone, target) {
		return answer, nil
	}
	labels := dns.SplitDomainName(target[:len(target)-len(s.zone)])
	res := s.index.lookup(labels, s.zone, s.cfg.LocalIPs)
	if !res.exists {
		return answer, nil
	}
	more, extra := s.records(target, qtype, res, depth+1)
	return append(answer, more...), extra
}

// addresses are the A records of the entries, each address once, in a
// random order (kubeadm's Corefile has the loadbalance plugin).
func (s *Server) addresses(owner string, entries []entry) []dns.RR {
	seen := make(map[[4]byte]bool, len(entries))
	var rrs []dns.RR
	for _, e := range entries {
		if !e.addr.Is4() || seen[e.addr.As4()] {
			continue
		}
		seen[e.addr.As4()] = true
		rrs = append(rrs, &dns.A{Hdr: hdr(owner, dns.TypeA, s.cfg.TTL), A: net.IP(e.addr.AsSlice())})
	}
	rand.Shuffle(len(rrs), func(i, j int) { rrs[i], rrs[j] = rrs[j], rrs[i] })
	return rrs
}

// srv are the SRV records of the entries, one per entry and port, with the
// entries' A records as additional data. As CoreDNS: priority 0 and the
// weights splitting 100 evenly.
func (s *Server) srv(owner string, entries []entry) (answer, extra []dns.RR) {
	n := 0
	for _, e := range entries {
		for _, p := range e.ports {
			if p.number >= 0 {
				n++
			}
		}
	}
	if n == 0 {
		return nil, nil
	}
	weight := uint16(max(100/n, 1))
	type target struct {
		name string
		port int32
	}
	seen := map[target]bool{}
	glue := map[string]bool{}
	for _, e := range entries {
		for _, p := range e.ports {
			if p.number < 0 || seen[target{e.name, p.number}] {
				continue
			}
			seen[target{e.name, p.number}] = true
			answer = append(answer, &dns.SRV{Hdr: hdr(owner, dns.TypeSRV, s.cfg.TTL),
				Priority: 0, Weight: weight, Port: uint16(p.number), Target: e.name})
			if g := e.name + e.addr.String(); !glue[g] {
				glue[g] = true
				extra = append(extra, &dns.A{Hdr: hdr(e.name, dns.TypeA, s.cfg.TTL), A: net.IP(e.addr.AsSlice())})
			}
			if len(answer) == maxEntries {
				return answer, extra
			}
		}
	}
	return answer, extra
}

// ns are the zone's NS records (owner is the apex) with their addresses.
func (s *Server) ns(owner string) (answer, extra []dns.RR) {
	seen := map[string]bool{}
	for _, e := range s.index.nameServers(s.zone, s.cfg.LocalIPs) {
		if !seen[e.name] {
			seen[e.name] = true
			answer = append(answer, &dns.NS{Hdr: hdr(owner, dns.TypeNS, s.cfg.TTL), Ns: e.name})
		}
		if e.addr.Is4() {
			extra = append(extra, &dns.A{Hdr: hdr(e.name, dns.TypeA, s.cfg.TTL), A: net.IP(e.addr.AsSlice())})
		}
	}
	return answer, extra
}

// answerReverse answers a name of a reverse zone: PTR records of a
// ClusterIP or an endpoint address.
func (s *Server) answerReverse(q dns.Question, labels []string, zone string) (exists bool, answer []dns.RR) {
	ip, partial, ok := reverseAddr(labels, zone)
	switch {
	case !ok:
		return false, nil
	case partial:
		if len(labels) == 0 && q.Qtype == dns.TypeSOA {
			return true, []dns.RR{s.soa(q.Name, zone)}
		}
		return true, nil
	}
	names := s.index.reverse(ip, s.zone)
	if len(names) == 0 {
		return false, nil
	}
	if q.Qtype != dns.TypePTR {
		return true, nil
	}
	for _, n := range names {
		answer = append(answer, &dns.PTR{Hdr: hdr(q.Name, dns.TypePTR, s.cfg.TTL), Ptr: n})
	}
	return true, answer
}

// soa is the SOA record of zone, named owner (the zone as the query spelt
// it). CoreDNS's: ns.dns.<zone> hostmaster.<zone> with the index's serial.
func (s *Server) soa(owner, zone string) dns.RR {
	return &dns.SOA{Hdr: hdr(owner, dns.TypeSOA, min(s.cfg.TTL, maxSOATTL)),
		Ns: "ns." + labelDNS + "." + zone, Mbox: "hostmaster." + zone, Serial: s.index.Serial(),
		Refresh: soaRefresh, Retry: soaRetry, Expire: soaExpire, Minttl: s.cfg.TTL}
}

// lowerASCII lower-cases the ASCII letters of a name (DNS names compare
// case-insensitively in ASCII only, RFC 4343), keeping its length.
func lowerASCII(name string) string {
	b := []byte(name)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

func hdr(name string, rrtype uint16, ttl uint32) dns.RR_Header {
	return dns.RR_Header{Name: name, Rrtype: rrtype, Class: dns.ClassINET, Ttl: ttl}
}
