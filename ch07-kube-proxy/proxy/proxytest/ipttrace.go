package proxytest

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
)

// IPTValue is a rule parameter's value, maybe negated ("! -s 10.0.0.0/8").
type IPTValue struct {
	Negated bool
	Value   string
}

// Matches compares the value with s.
func (v *IPTValue) Matches(s string) bool { return (v.Value == s) != v.Negated }

// IPTRule is the parts of an "-A CHAIN ..." rule a packet trace needs.
// Upstream: iptablestest.Rule (pkg/util/iptables/testing/parse.go).
type IPTRule struct {
	Raw                                           string
	Chain                                         string
	Protocol, SourceAddress, SourceType           *IPTValue
	DestinationAddress, DestinationType, DestPort *IPTValue
	Jump, Probability, DNATDestination            *IPTValue
	AffinityCheck                                 bool // -m recent --rcheck
	MarkCheck, CTStateCheck                       *IPTValue
}

var wordRegexp = regexp.MustCompile(`(?:^|\s)("[^"]*"|[^"]\S*)`)

// ParseIPTRule parses one rule.
func ParseIPTRule(rule string) (*IPTRule, error) {
	var words []string
	for _, m := range wordRegexp.FindAllStringSubmatch(rule, -1) {
		words = append(words, strings.Trim(m[1], `"`))
	}
	if len(words) < 3 || words[0] != "-A" {
		return nil, fmt.Errorf("bad iptables rule %q", rule)
	}
	r := &IPTRule{Raw: rule, Chain: words[1]}
	fields := map[string]**IPTValue{
		"-p": &r.Protocol, "-s": &r.SourceAddress, "--src-type": &r.SourceType,
		"-d": &r.DestinationAddress, "--dst-type": &r.DestinationType, "--dport": &r.DestPort,
		"-j": &r.Jump, "--probability": &r.Probability, "--to-destination": &r.DNATDestination,
		"--mark": &r.MarkCheck, "--ctstate": &r.CTStateCheck,
	}
	negated := false
	for w := 2; w < len(words); {
		switch {
		case words[w] == "-m" && w+1 < len(words):
			w += 2
			continue
		case words[w] == "!":
			negated = true
			w++
			continue
		case words[w] == "--rcheck":
			r.AffinityCheck = true
			w++
		case fields[words[w]] != nil && w+1 < len(words):
			*fields[words[w]] = &IPTValue{Negated: negated, Value: words[w+1]}
			w += 2
		default:
			w++
		}
		negated = false
	}
	return r, nil
}

// IPTChains is iptables state: table → chain → rules.
type IPTChains map[string]map[string][]string

// iptablesTracer walks a packet through parsed rules. Upstream:
// iptablesTracer in pkg/proxy/iptables/proxier_test.go.
type iptablesTracer struct {
	state    IPTChains
	localIPs map[string]bool
	t        *testing.T
	matches  []string
	outputs  []string
	markMasq bool
}

func addressMatches(t *testing.T, address *IPTValue, ipStr string) bool {
	ip := net.ParseIP(ipStr)
	if ip == nil {
		t.Fatalf("Bad IP in test case: %s", ipStr)
	}
	var matches bool
	if strings.Contains(address.Value, "/") {
		_, cidr, err := net.ParseCIDR(address.Value)
		if err != nil {
			t.Errorf("Bad CIDR in kube-proxy output: %v", err)
			return false
		}
		matches = cidr.Contains(ip)
	} else {
		matches = ip.Equal(net.ParseIP(address.Value))
	}
	return matches != address.Negated
}

func (tr *iptablesTracer) ruleMatches(r *IPTRule, sourceIP, protocol, destIP, destPort string) bool {
	addrtype := func(ip string) string {
		if tr.localIPs[ip] {
			return "LOCAL"
		}
		return "not-matched"
	}
	switch {
	case r.SourceAddress != nil && !addressMatches(tr.t, r.SourceAddress, sourceIP):
	case r.SourceType != nil && !r.SourceType.Matches(addrtype(sourceIP)):
	case r.Protocol != nil && !r.Protocol.Matches(protocol):
	case r.DestinationAddress != nil && !addressMatches(tr.t, r.DestinationAddress, destIP):
	case r.DestinationType != nil && !r.DestinationType.Matches(addrtype(destIP)):
	case r.DestPort != nil && !r.DestPort.Matches(destPort):
	// Rules about past state (affinity, marks, conntrack) never match.
	case r.AffinityCheck || r.MarkCheck != nil || r.CTStateCheck != nil:
	default:
		return true
	}
	return false
}

// runChain runs the packet through a chain; true if it hit a terminal target.
func (tr *iptablesTracer) runChain(table, chain, sourceIP, protocol, destIP, destPort string) bool {
	for _, raw := range tr.state[table][chain] {
		r, err := ParseIPTRule(raw)
		if err != nil {
			tr.t.Fatal(err)
		}
		if r.Jump == nil || !tr.ruleMatches(r, sourceIP, protocol, destIP, destPort) {
			continue
		}
		tr.matches = append(tr.matches, r.Raw)
		switch r.Jump.Value {
		case "KUBE-MARK-MASQ":
			tr.markMasq = true
			continue
		case "ACCEPT", "REJECT", "DROP":
			tr.outputs = append(tr.outputs, r.Jump.Value)
			return true
		case "DNAT":
			tr.outputs = append(tr.outputs, r.DNATDestination.Value)
			return true
		default:
			// A probabilistic jump keeps collecting the other choices.
			if tr.runChain(table, r.Jump.Value, sourceIP, protocol, destIP, destPort) && r.Probability == nil {
				return true
			}
		}
	}
	return false
}

// TraceIPTablesPacket says what happens to a packet: the rules matched, the
// destinations ("ip:port, ip:port", or ACCEPT/DROP/REJECT) and whether it
// is masqueraded. nodeIPs are the addresses that count as LOCAL.
func TraceIPTablesPacket(t *testing.T, state IPTChains, sourceIP, protocol, destIP, destPort string, nodeIPs []string) ([]string, string, bool) {
	tr := &iptablesTracer{state: state, localIPs: map[string]bool{"127.0.0.1": true, "::1": true}, t: t}
	for _, ip := range nodeIPs {
		tr.localIPs[ip] = true
	}
	tr.runChain("nat", "PREROUTING", sourceIP, protocol, destIP, destPort)
	// DNAT changes the destination the filter rules see.
	if len(tr.outputs) != 0 {
		destIP = strings.Split(tr.outputs[0], ":")[0]
	}
	for _, c := range []string{"KUBE-SERVICES", "KUBE-EXTERNAL-SERVICES", "KUBE-NODEPORTS", "KUBE-PROXY-FIREWALL"} {
		tr.runChain("filter", c, sourceIP, protocol, destIP, destPort)
	}
	return tr.matches, strings.Join(tr.outputs, ", "), tr.markMasq
}

// PacketFlowTest is one packet and what should happen to it.
type PacketFlowTest struct {
	Name     string
	SourceIP string
	Protocol string // "TCP" (default), "UDP", "SCTP"
	DestIP   string
	DestPort int
	Output   string
	Masq     bool
}

// Tracer traces one packet (iptables or nftables).
type Tracer func(t *testing.T, sourceIP, protocol, destIP, destPort string) (matches []string, output string, masq bool)

// RunPacketFlowTests runs each test case through trace.
func RunPacketFlowTests(t *testing.T, trace Tracer, testCases []PacketFlowTest) {
	t.Helper()
	for _, tc := range testCases {
		t.Run(tc.Name, func(t *testing.T) {
			protocol := strings.ToLower(tc.Protocol)
			if protocol == "" {
				protocol = "tcp"
			}
			matches, output, masq := trace(t, tc.SourceIP, protocol, tc.DestIP, fmt.Sprintf("%d", tc.DestPort))
			var errs []string
			if output != tc.Output {
				errs = append(errs, fmt.Sprintf("wrong output: expected %q got %q", tc.Output, output))
			}
			if masq != tc.Masq {
				errs = append(errs, fmt.Sprintf("wrong masq: expected %v got %v", tc.Masq, masq))
			}
			if errs != nil {
				t.Errorf("Test %q of a %s packet from %s to %s:%d got result:\n%s\n\nBy matching:\n%s\n\n",
					tc.Name, protocol, tc.SourceIP, tc.DestIP, tc.DestPort, strings.Join(errs, "\n"), strings.Join(matches, "\n"))
			}
		})
	}
}
