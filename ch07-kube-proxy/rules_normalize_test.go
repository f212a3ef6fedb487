package main_test

// Normalisation of kube-proxy's rule dumps, so that ours and upstream's can
// be compared: what the kernel lists in an order of its own (the Services
// in KUBE-SERVICES, nftables chains, the elements of a set) is sorted,
// counters are dropped, and what is not kube-proxy's (the node agent's
// KUBIK-* chains, CNI's chains, IPv6) is left out. Optionally only the
// Services of one namespace are kept, with the rules that belong to no
// Service: that part is stable from run to run and can be a golden.

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	pt "kubik/ch07-kube-proxy/proxy/proxytest"
)

var (
	// serviceRef finds "namespace/name" in a comment or a chain name.
	commentService = regexp.MustCompile(`([a-z0-9][-a-z0-9]*)/([a-z0-9][-a-z0-9.]*)`)
	jumpTarget     = regexp.MustCompile(`(?:-j|--jump|-g|--goto) (\S+)`)
	nftCounter     = regexp.MustCompile(`counter packets \d+ bytes \d+`)
	nftComment     = regexp.MustCompile(`comment "([^"]*)"`)
	// nftServiceChain is the per-Service (and per-endpoint) chain and set
	// naming of the nftables proxier: <kind>-<8 characters of hash>-<ns>/<name>/...
	// (service-, external-, local-, firewall-, endpoint-, affinity-).
	nftServiceChain = regexp.MustCompile(`\b[a-z]+-[A-Z0-9]{8}-([a-z0-9][-a-z0-9]*)/([a-z0-9][-a-z0-9.]*)/\S*`)
)

// rulesNamespace holds the Services of testdata/rules/services.yaml.
const rulesNamespace = "rules"

var builtinChains = map[string]bool{"PREROUTING": true, "INPUT": true, "FORWARD": true, "OUTPUT": true, "POSTROUTING": true}

// multiServiceChains hold rules of many Services, in the order kube-proxy
// happened to walk its Service map: sorted by Service (stable, so a
// Service's own rules keep their order).
var multiServiceChains = map[string]bool{"KUBE-SERVICES": true, "KUBE-NODEPORTS": true, "KUBE-EXTERNAL-SERVICES": true, "KUBE-PROXY-FIREWALL": true}

// foreignComment reports whether a rule's comment names a Service outside
// namespace keep.
func foreignComment(rule, keep string) bool {
	c, ok := pt.Comment(rule)
	if !ok {
		return false
	}
	m := commentService.FindStringSubmatch(c)
	return m != nil && m[1] != keep
}

// normalizeIPTables turns iptables-save output into kube-proxy's part of
// it, canonically ordered: KUBE-* chains and the jumps to them from the
// built-in chains, without counters. With keepNS, only the Services of that
// namespace are kept.
func normalizeIPTables(save, keepNS string) (string, error) {
	var lines []string
	for _, l := range strings.Split(save, "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	dump, err := pt.ParseIPTablesDump(strings.Join(lines, "\n"))
	if err != nil {
		return "", err
	}
	for ti := range dump.Tables {
		t := &dump.Tables[ti]
		foreignChains := map[string]bool{}
		if keepNS != "" {
			// A chain all of whose rules belong to other namespaces'
			// Services is theirs (KUBE-SVC-, KUBE-SEP-, KUBE-EXT- ...).
			for _, c := range t.Chains {
				if !strings.HasPrefix(c.Name, "KUBE-") || multiServiceChains[c.Name] || len(c.Rules) == 0 {
					continue
				}
				all := true
				for _, r := range c.Rules {
					all = all && foreignComment(r, keepNS)
				}
				if all {
					foreignChains[c.Name] = true
				}
			}
		}
		var chains []pt.IPTablesChain
		for _, c := range t.Chains {
			if !builtinChains[c.Name] && !strings.HasPrefix(c.Name, "KUBE-") || foreignChains[c.Name] {
				continue
			}
			var rules []string
			for _, r := range c.Rules {
				target := ""
				if m := jumpTarget.FindStringSubmatch(r); m != nil {
					target = m[1]
				}
				if builtinChains[c.Name] && !strings.HasPrefix(target, "KUBE-") {
					continue // the node agent's, CNI's
				}
				if keepNS != "" && (foreignComment(r, keepNS) || foreignChains[target]) {
					continue
				}
				rules = append(rules, r)
			}
			if builtinChains[c.Name] && len(rules) == 0 {
				continue
			}
			if multiServiceChains[c.Name] {
				sortByService(rules)
			}
			c.Rules, c.Deleted = rules, false
			chains = append(chains, c)
		}
		if keepNS != "" {
			chains = dropUnreferencedEmpty(chains)
		}
		sort.SliceStable(chains, func(i, j int) bool { return chains[i].Name < chains[j].Name })
		t.Chains = chains
	}
	var tables []pt.IPTablesTable
	for _, t := range dump.Tables {
		if len(t.Chains) > 0 {
			tables = append(tables, t)
		}
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	dump.Tables = tables
	return dump.String(), nil
}

// dropUnreferencedEmpty drops the service chains left without rules and
// without a kept rule jumping to them: another namespace's (a NodePort
// Service with no endpoints yet has an empty KUBE-EXT- chain, whose
// rules would have named its namespace).
var serviceChain = regexp.MustCompile(`^KUBE-(SVC|SVL|EXT|FW|SEP)-`)

func dropUnreferencedEmpty(chains []pt.IPTablesChain) []pt.IPTablesChain {
	targets := map[string]bool{}
	for _, c := range chains {
		for _, r := range c.Rules {
			if m := jumpTarget.FindStringSubmatch(r); m != nil {
				targets[m[1]] = true
			}
		}
	}
	var out []pt.IPTablesChain
	for _, c := range chains {
		if len(c.Rules) == 0 && serviceChain.MatchString(c.Name) && !targets[c.Name] {
			continue
		}
		out = append(out, c)
	}
	return out
}

// sortByService orders rules by the Service their comment names; rules
// without one ("must be the last rule", the generic ones) go last, in
// their order.
func sortByService(rules []string) {
	key := func(r string) string {
		c, ok := pt.Comment(r)
		if !ok {
			return "\xff"
		}
		if m := commentService.FindString(c); m != "" && !strings.Contains(c, "must be the last rule") {
			// "ns/name:port ..." sorts by ns/name, then port name.
			rest := c[strings.Index(c, m)+len(m):]
			port, _, _ := strings.Cut(strings.TrimPrefix(rest, ":"), " ")
			return m + "\x00" + port
		}
		return "\xff"
	}
	sort.SliceStable(rules, func(i, j int) bool { return key(rules[i]) < key(rules[j]) })
}

// nftBlock is a chain, set or map of an nft listing.
type nftBlock struct {
	kind, name string
	lines      []string // body lines, trimmed; elements flattened into one sorted "elements = { ... }"
	elements   []string
}

// nftTable is one table of an nft listing.
type nftTable struct {
	family, name string
	comment      string
	blocks       []*nftBlock
}

// parseNFT parses `nft list ruleset` (or `nft list table`) output.
func parseNFT(text string) ([]*nftTable, error) {
	var tables []*nftTable
	var t *nftTable
	var b *nftBlock
	inElements := false
	var elementText strings.Builder
	for n, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case inElements:
			elementText.WriteString(" " + line)
			if strings.HasSuffix(line, "}") {
				inElements = false
				b.elements = splitElements(elementText.String())
			}
		case t == nil:
			f := strings.Fields(line)
			if len(f) != 4 || f[0] != "table" || f[3] != "{" {
				return nil, fmt.Errorf("line %d: %q outside a table", n+1, raw)
			}
			t = &nftTable{family: f[1], name: f[2]}
			tables = append(tables, t)
		case b == nil && line == "}":
			t = nil
		case b == nil && strings.HasPrefix(line, "comment "):
			t.comment = line
		case b == nil:
			f := strings.Fields(line)
			if len(f) != 3 || f[2] != "{" {
				return nil, fmt.Errorf("line %d: %q is not a chain, set or map", n+1, raw)
			}
			b = &nftBlock{kind: f[0], name: f[1]}
			t.blocks = append(t.blocks, b)
		case line == "}":
			b = nil
		case strings.HasPrefix(line, "elements = {"):
			elementText.Reset()
			elementText.WriteString(line)
			if strings.HasSuffix(line, "}") {
				b.elements = splitElements(line)
			} else {
				inElements = true
			}
		default:
			b.lines = append(b.lines, nftCounter.ReplaceAllString(line, "counter"))
		}
	}
	if t != nil {
		return nil, fmt.Errorf("table %s %s is never closed", t.family, t.name)
	}
	return tables, nil
}

// splitElements splits "elements = { a, b : c }" into its elements.
func splitElements(s string) []string {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "elements = {"))
	s = strings.TrimSuffix(s, "}")
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.Join(strings.Fields(e), " "); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// normalizeNFT turns `nft list ruleset` output into kube-proxy's part of
// it: the table ip kube-proxy, and the KUBE-* chains (and the jumps to
// them) of the IPv4 iptables-nft tables; chains, sets and maps sorted by
// name, elements sorted, counters dropped. With keepNS, only the Services
// of that namespace are kept.
func normalizeNFT(ruleset, keepNS string) (string, error) {
	tables, err := parseNFT(ruleset)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	sort.SliceStable(tables, func(i, j int) bool { return tables[i].name < tables[j].name })
	for _, t := range tables {
		if t.family != "ip" {
			continue // IPv6 (upstream is dual-stack), bridge, inet: not compared
		}
		var blocks []*nftBlock
		if t.name == "kube-proxy" {
			blocks = t.blocks
			if keepNS != "" {
				blocks = keepNamespace(blocks, keepNS)
			}
		} else {
			for _, b := range t.blocks {
				switch {
				case strings.HasPrefix(b.name, "KUBE-"):
					blocks = append(blocks, b)
				case builtinChains[b.name]:
					kept := &nftBlock{kind: b.kind, name: b.name}
					for _, l := range b.lines {
						if strings.HasPrefix(l, "type ") || strings.Contains(l, "KUBE-") {
							kept.lines = append(kept.lines, l)
						}
					}
					if len(kept.lines) > 1 {
						blocks = append(blocks, kept)
					}
				}
			}
			if len(blocks) == 0 {
				continue
			}
		}
		sort.SliceStable(blocks, func(i, j int) bool {
			if blocks[i].kind != blocks[j].kind {
				return blocks[i].kind < blocks[j].kind
			}
			return blocks[i].name < blocks[j].name
		})
		fmt.Fprintf(&out, "table %s %s {\n", t.family, t.name)
		if t.comment != "" {
			fmt.Fprintf(&out, "\t%s\n", t.comment)
		}
		for _, b := range blocks {
			fmt.Fprintf(&out, "\t%s %s {\n", b.kind, b.name)
			for _, l := range b.lines {
				fmt.Fprintf(&out, "\t\t%s\n", l)
			}
			if len(b.elements) > 0 {
				els := append([]string(nil), b.elements...)
				sort.Strings(els)
				fmt.Fprintf(&out, "\t\telements = {\n")
				for i, e := range els {
					sep := ","
					if i == len(els)-1 {
						sep = ""
					}
					fmt.Fprintf(&out, "\t\t\t%s%s\n", e, sep)
				}
				fmt.Fprintf(&out, "\t\t}\n")
			}
			fmt.Fprintf(&out, "\t}\n")
		}
		fmt.Fprintf(&out, "}\n")
	}
	return out.String(), nil
}

// keepNamespace drops the chains of other namespaces' Services and the set
// and map elements that lead to them or name them, with the ClusterIPs
// they have in cluster-ips.
func keepNamespace(blocks []*nftBlock, keep string) []*nftBlock {
	foreign := func(s string) bool {
		for _, m := range nftServiceChain.FindAllStringSubmatch(s, -1) {
			if m[1] != keep {
				return true
			}
		}
		for _, m := range nftComment.FindAllStringSubmatch(s, -1) {
			if sm := commentService.FindStringSubmatch(m[1]); sm != nil && sm[1] != keep {
				return true
			}
		}
		return false
	}
	// The ClusterIPs (and other addresses) of foreign Services: the first
	// field of their service-ips elements.
	foreignIPs, ownIPs := map[string]bool{}, map[string]bool{}
	for _, b := range blocks {
		if b.name != "service-ips" {
			continue
		}
		for _, e := range b.elements {
			ip, _, _ := strings.Cut(e, " ")
			if foreign(e) {
				foreignIPs[ip] = true
			} else {
				ownIPs[ip] = true
			}
		}
	}
	var out []*nftBlock
	for _, b := range blocks {
		if foreign(b.name) {
			continue
		}
		kept := &nftBlock{kind: b.kind, name: b.name, lines: b.lines}
		for _, e := range b.elements {
			ip, _, _ := strings.Cut(e, " ")
			if foreign(e) || (foreignIPs[ip] && !ownIPs[ip]) {
				continue
			}
			kept.elements = append(kept.elements, e)
		}
		out = append(out, kept)
	}
	return out
}
