package proxytest

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// IPTablesDump is parsed iptables-restore input (or iptables-save output).
type IPTablesDump struct {
	Tables []IPTablesTable
}

// IPTablesTable is one "*table ... COMMIT" block.
type IPTablesTable struct {
	Name   string
	Chains []IPTablesChain
}

// IPTablesChain is a declared chain, its "-A" rules and whether "-X" deletes it.
type IPTablesChain struct {
	Name    string
	Rules   []string
	Deleted bool
}

var commentRegexp = regexp.MustCompile(`-m comment --comment ("[^"]*"|\S+)`)

// Comment is a rule's comment without quotes ("" if none).
func Comment(rule string) (string, bool) {
	m := commentRegexp.FindStringSubmatch(rule)
	if m == nil {
		return "", false
	}
	return strings.Trim(m[1], `"`), true
}

// ParseIPTablesDump parses restore input. Rules must follow the chain
// declarations of their table, as in iptables-save output.
func ParseIPTablesDump(data string) (*IPTablesDump, error) {
	dump := &IPTablesDump{}
	var t *IPTablesTable
	find := func(name string) *IPTablesChain {
		for i := range t.Chains {
			if t.Chains[i].Name == name {
				return &t.Chains[i]
			}
		}
		return nil
	}
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#':
		case line[0] == '*':
			dump.Tables = append(dump.Tables, IPTablesTable{Name: line[1:]})
			t = &dump.Tables[len(dump.Tables)-1]
		case t == nil:
			return nil, fmt.Errorf("line outside of a table: %q", line)
		case line == "COMMIT":
			t = nil
		case line[0] == ':':
			name := strings.Fields(line[1:])[0]
			if find(name) == nil {
				t.Chains = append(t.Chains, IPTablesChain{Name: name})
			}
		case strings.HasPrefix(line, "-A "):
			name := strings.Fields(line)[1]
			c := find(name)
			if c == nil {
				return nil, fmt.Errorf("rule for undeclared chain %q", name)
			}
			c.Rules = append(c.Rules, line)
		case strings.HasPrefix(line, "-X "):
			c := find(strings.Fields(line)[1])
			if c == nil {
				return nil, fmt.Errorf("-X of undeclared chain: %q", line)
			}
			c.Deleted = true
		default:
			return nil, fmt.Errorf("unparsable line %q", line)
		}
	}
	return dump, nil
}

// String writes the dump back as restore input.
func (d *IPTablesDump) String() string {
	b := &strings.Builder{}
	for _, t := range d.Tables {
		fmt.Fprintf(b, "*%s\n", t.Name)
		for _, c := range t.Chains {
			fmt.Fprintf(b, ":%s - [0:0]\n", c.Name)
		}
		for _, c := range t.Chains {
			for _, r := range c.Rules {
				fmt.Fprintf(b, "%s\n", r)
			}
		}
		for _, c := range t.Chains {
			if c.Deleted {
				fmt.Fprintf(b, "-X %s\n", c.Name)
			}
		}
		b.WriteString("COMMIT\n")
	}
	return b.String()
}

// GetChain returns a chain of a table, or nil.
func (d *IPTablesDump) GetChain(table, chain string) *IPTablesChain {
	for i := range d.Tables {
		if d.Tables[i].Name != table {
			continue
		}
		for j := range d.Tables[i].Chains {
			if d.Tables[i].Chains[j].Name == chain {
				return &d.Tables[i].Chains[j]
			}
		}
	}
	return nil
}

func serviceNameOfComment(rule string) (string, bool) {
	c, ok := Comment(rule)
	if !ok {
		return "", false
	}
	if i := strings.IndexAny(c, " :"); i != -1 {
		c = c[:i]
	}
	return c, true
}

func orderByCommentServiceName(r1, r2 string) bool {
	n1, ok1 := serviceNameOfComment(r1)
	n2, ok2 := serviceNameOfComment(r2)
	if !ok1 || !ok2 {
		return false
	}
	return n1 < n2
}

// SortIPTablesRules sorts restore input so that it does not depend on the
// order Services were processed in: tables by name; KUBE-NODEPORTS, then
// KUBE-SERVICES, then other KUBE-* chains, then the rest, alphabetically;
// the rules of KUBE-NODEPORTS and KUBE-SERVICES by service name (the
// "must be the last rule" rule last). Upstream: sortIPTablesRules in
// pkg/proxy/iptables/proxier_test.go.
func SortIPTablesRules(data string) (string, error) {
	dump, err := ParseIPTablesDump(data)
	if err != nil {
		return "", err
	}
	sort.Slice(dump.Tables, func(i, j int) bool { return dump.Tables[i].Name < dump.Tables[j].Name })
	for ti := range dump.Tables {
		chains := dump.Tables[ti].Chains
		sort.Slice(chains, func(i, j int) bool {
			a, b := chains[i].Name, chains[j].Name
			switch {
			case a == "KUBE-NODEPORTS":
				return true
			case b == "KUBE-NODEPORTS":
				return false
			case a == "KUBE-SERVICES":
				return true
			case b == "KUBE-SERVICES":
				return false
			case strings.HasPrefix(a, "KUBE-") && !strings.HasPrefix(b, "KUBE-"):
				return true
			case !strings.HasPrefix(a, "KUBE-") && strings.HasPrefix(b, "KUBE-"):
				return false
			default:
				return a < b
			}
		})
	}
	for _, table := range []string{"filter", "nat"} {
		if c := dump.GetChain(table, "KUBE-NODEPORTS"); c != nil {
			sort.SliceStable(c.Rules, func(i, j int) bool { return orderByCommentServiceName(c.Rules[i], c.Rules[j]) })
		}
	}
	if c := dump.GetChain("filter", "KUBE-SERVICES"); c != nil {
		sort.SliceStable(c.Rules, func(i, j int) bool { return orderByCommentServiceName(c.Rules[i], c.Rules[j]) })
	}
	if c := dump.GetChain("nat", "KUBE-SERVICES"); c != nil {
		last := func(r string) bool { cm, _ := Comment(r); return strings.Contains(cm, "must be the last rule") }
		sort.SliceStable(c.Rules, func(i, j int) bool {
			if last(c.Rules[i]) {
				return false
			} else if last(c.Rules[j]) {
				return true
			}
			return orderByCommentServiceName(c.Rules[i], c.Rules[j])
		})
	}
	return dump.String(), nil
}
