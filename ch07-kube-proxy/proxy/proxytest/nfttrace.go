package proxytest

import (
	"net"
	"regexp"
	"strings"
	"testing"

	"kubik/ch07-kube-proxy/proxy/nftables/nft"
)

// The pieces of the rules the nftables proxier writes, recognized one after
// the other from the start of a rule (a full nft parser is not needed).
// Upstream: the regexps of pkg/proxy/nftables/helpers_test.go.
var (
	destAddrRegexp          = regexp.MustCompile(`^ip6* daddr (!= )?(\S+)`)
	destAddrLookupRegexp    = regexp.MustCompile(`^ip6* daddr (!= )?\{([^}]*)\}`)
	destAddrLocalRegexp     = regexp.MustCompile(`^fib daddr type local`)
	destPortRegexp          = regexp.MustCompile(`^(tcp|udp|sctp) dport (\d+)`)
	destIPOnlyLookupRegexp  = regexp.MustCompile(`^ip6* daddr @(\S+)`)
	destDispatchRegexp      = regexp.MustCompile(`^ip6* daddr \. meta l4proto \. th dport vmap @(\S+)$`)
	destPortDispatchRegexp  = regexp.MustCompile(`^meta l4proto \. th dport vmap @(\S+)$`)
	sourceAddrRegexp        = regexp.MustCompile(`^ip6* saddr (!= )?(\S+)`)
	sourceAddrLookupRegexp  = regexp.MustCompile(`^ip6* saddr (!= )?\{([^}]*)\}`)
	sourceAddrLocalRegexp   = regexp.MustCompile(`^fib saddr type local`)
	endpointVMAPRegexp      = regexp.MustCompile(`^numgen random mod \d+ vmap \{(.*)\}$`)
	endpointVMapEntryRegexp = regexp.MustCompile(`\d+ : goto (\S+)`)
	masqueradeRegexp        = regexp.MustCompile(`^jump mark-for-masquerade$`)
	jumpRegexp              = regexp.MustCompile(`^(jump|goto) (\S+)$`)
	returnRegexp            = regexp.MustCompile(`^return$`)
	verdictRegexp           = regexp.MustCompile(`^(drop|reject)$`)
	dnatRegexp              = regexp.MustCompile(`^meta l4proto (tcp|udp|sctp) dnat to (\S+)$`)
	// Comments, and "ct state new" (traces are of new connections).
	ignoredRegexp = regexp.MustCompile(` *comment "[^"]*"$|^ct state new`)
)

type nftablesTracer struct {
	table    *nft.FakeTable
	nodeIPs  map[string]bool
	t        *testing.T
	matches  []string
	outputs  []string
	markMasq bool
}

func (tr *nftablesTracer) addressMatches(ipStr string, wantMatch bool, ruleAddress string) bool {
	ip := net.ParseIP(ipStr)
	if ip == nil {
		tr.t.Fatalf("Bad IP in test case: %s", ipStr)
	}
	var match bool
	if strings.Contains(ruleAddress, "/") {
		_, cidr, err := net.ParseCIDR(ruleAddress)
		if err != nil {
			tr.t.Errorf("Bad CIDR in kube-proxy output: %v", err)
			return false
		}
		match = cidr.Contains(ip)
	} else {
		match = ip.Equal(net.ParseIP(ruleAddress))
	}
	return match == wantMatch
}

func (tr *nftablesTracer) addressMatchesSet(ipStr string, wantMatch bool, set string) bool {
	for _, a := range strings.Split(strings.ReplaceAll(set, " ", ""), ",") {
		if tr.addressMatches(ipStr, true, a) != wantMatch {
			return false
		}
	}
	return true
}

func findKey(elements []*nft.Element, key ...string) *nft.Element {
	for _, e := range elements {
		if len(e.Key) >= len(key) && strings.Join(e.Key[:len(key)], " . ") == strings.Join(key, " . ") {
			return e
		}
	}
	return nil
}

// runChain runs the packet through chain; true if it reached a verdict.
func (tr *nftablesTracer) runChain(chname, sourceIP, protocol, destIP, destPort string) bool {
	ch := tr.table.Chains[chname]
	if ch == nil {
		tr.t.Errorf("unknown chain %q", chname)
		return true
	}
	for _, ruleObj := range ch.Rules {
		rule := ignoredRegexp.ReplaceAllLiteralString(ruleObj.Rule, "")
		for rule != "" {
			rule = strings.TrimLeft(rule, " ")
			// Order matters: masqueradeRegexp before jumpRegexp, the set
			// lookups before the plain address matches.
			switch {
			case destIPOnlyLookupRegexp.MatchString(rule):
				m := destIPOnlyLookupRegexp.FindStringSubmatch(rule)
				rule = strings.TrimPrefix(rule, m[0])
				if s := tr.table.Sets[m[1]]; s == nil || findKey(s.Elements, destIP) == nil {
					rule = ""
				}
			case destDispatchRegexp.MatchString(rule):
				m := destDispatchRegexp.FindStringSubmatch(rule)
				rule = ""
				if mp := tr.table.Maps[m[1]]; mp == nil {
					tr.t.Errorf("unknown map %q", m[1])
				} else if e := findKey(mp.Elements, destIP, protocol, destPort); e != nil {
					rule = e.Value[0]
				}
			case destPortDispatchRegexp.MatchString(rule):
				m := destPortDispatchRegexp.FindStringSubmatch(rule)
				rule = ""
				if mp := tr.table.Maps[m[1]]; mp == nil {
					tr.t.Errorf("unknown map %q", m[1])
				} else if e := findKey(mp.Elements, protocol, destPort); e != nil {
					rule = e.Value[0]
				}
			case destAddrLookupRegexp.MatchString(rule):
				m := destAddrLookupRegexp.FindStringSubmatch(rule)
				rule = strings.TrimPrefix(rule, m[0])
				if !tr.addressMatchesSet(destIP, m[1] != "!= ", m[2]) {
					rule = ""
				}
			case destAddrRegexp.MatchString(rule):
				m := destAddrRegexp.FindStringSubmatch(rule)
				rule = strings.TrimPrefix(rule, m[0])
				if !tr.addressMatches(destIP, m[1] != "!= ", m[2]) {
					rule = ""
				}
			case destAddrLocalRegexp.MatchString(rule):
				rule = strings.TrimPrefix(rule, destAddrLocalRegexp.FindString(rule))
				if !tr.nodeIPs[destIP] {
					rule = ""
				}
			case destPortRegexp.MatchString(rule):
				m := destPortRegexp.FindStringSubmatch(rule)
				rule = strings.TrimPrefix(rule, m[0])
				if protocol != m[1] || destPort != m[2] {
					rule = ""
				}
			case sourceAddrLookupRegexp.MatchString(rule):
				m := sourceAddrLookupRegexp.FindStringSubmatch(rule)
				rule = strings.TrimPrefix(rule, m[0])
				if !tr.addressMatchesSet(sourceIP, m[1] != "!= ", m[2]) {
					rule = ""
				}
			case sourceAddrRegexp.MatchString(rule):
				m := sourceAddrRegexp.FindStringSubmatch(rule)
				rule = strings.TrimPrefix(rule, m[0])
				if !tr.addressMatches(sourceIP, m[1] != "!= ", m[2]) {
					rule = ""
				}
			case sourceAddrLocalRegexp.MatchString(rule):
				rule = strings.TrimPrefix(rule, sourceAddrLocalRegexp.FindString(rule))
				if !tr.nodeIPs[sourceIP] {
					rule = ""
				}
			case masqueradeRegexp.MatchString(rule):
				// The jump itself stands for the mark.
				rule = ""
				tr.matches = append(tr.matches, ruleObj.Rule)
				tr.markMasq = true
			case jumpRegexp.MatchString(rule):
				m := jumpRegexp.FindStringSubmatch(rule)
				rule = ""
				tr.matches = append(tr.matches, ruleObj.Rule)
				if tr.runChain(m[2], sourceIP, protocol, destIP, destPort) {
					return true
				} else if m[1] == "goto" {
					return false
				}
			case verdictRegexp.MatchString(rule):
				tr.matches = append(tr.matches, ruleObj.Rule)
				tr.outputs = append(tr.outputs, strings.ToUpper(verdictRegexp.FindStringSubmatch(rule)[1]))
				return true
			case returnRegexp.MatchString(rule):
				tr.matches = append(tr.matches, ruleObj.Rule)
				return false
			case dnatRegexp.MatchString(rule):
				tr.matches = append(tr.matches, ruleObj.Rule)
				tr.outputs = append(tr.outputs, dnatRegexp.FindStringSubmatch(rule)[2])
				return true
			case endpointVMAPRegexp.MatchString(rule):
				// A random endpoint: the trace follows all of them.
				for _, m := range endpointVMapEntryRegexp.FindAllStringSubmatch(endpointVMAPRegexp.FindStringSubmatch(rule)[1], -1) {
					tr.matches = append(tr.matches, ruleObj.Rule)
					_ = tr.runChain(m[1], sourceIP, protocol, destIP, destPort)
				}
				return true
			default:
				tr.t.Errorf("unmatched rule: %s", ruleObj.Rule)
				rule = ""
			}
		}
	}
	return false
}

// TraceNFTablesPacket says what happens to a packet in the fake table: the
// rules matched, the destinations ("ip:port, ..." or DROP/REJECT) and
// whether it is masqueraded. nodeIPs are the local addresses.
func TraceNFTablesPacket(t *testing.T, fake *nft.Fake, sourceIP, protocol, destIP, destPort string, nodeIPs []string) ([]string, string, bool) {
	tr := &nftablesTracer{table: fake.Table, nodeIPs: map[string]bool{}, t: t}
	for _, ip := range nodeIPs {
		tr.nodeIPs[ip] = true
	}
	done := func() ([]string, string, bool) { return tr.matches, strings.Join(tr.outputs, ", "), tr.markMasq }
	if tr.runChain("filter-prerouting-pre-dnat", sourceIP, protocol, destIP, destPort) {
		return done()
	}
	tr.runChain("nat-prerouting", sourceIP, protocol, destIP, destPort)
	if len(tr.outputs) != 0 {
		host, _, err := net.SplitHostPort(tr.outputs[0])
		if err != nil {
			t.Errorf("failed to parse host port %q: %v", tr.outputs[0], err)
		}
		destIP = host
	}
	if tr.runChain("filter-forward", sourceIP, protocol, destIP, destPort) {
		return done()
	}
	tr.runChain("filter-input", sourceIP, protocol, destIP, destPort)
	return done()
}
