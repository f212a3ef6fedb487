package iptables

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/vishvananda/netlink"

	pt "kubik/ch07-kube-proxy/proxy/proxytest"
)

// fakeIPTables keeps the chains and rules of each table and applies
// restore input as iptables-restore --noflush does: a chain line creates or
// flushes a chain, -A appends, -X deletes. Upstream: iptablestest.FakeIPTables.
type fakeIPTables struct {
	tables      map[Table]map[Chain][]string
	lastRestore string
	randomFully bool
}

// SetHasRandomFully sets what HasRandomFully answers.
func (f *fakeIPTables) SetHasRandomFully(v bool) *fakeIPTables { f.randomFully = v; return f }

// state is the rules by table and chain, for the packet tracer.
func (f *fakeIPTables) state() pt.IPTChains {
	st := pt.IPTChains{}
	for t, chains := range f.tables {
		st[string(t)] = map[string][]string{}
		for c, rules := range chains {
			st[string(t)][string(c)] = rules
		}
	}
	return st
}

func newFakeIPTables() *fakeIPTables {
	f := &fakeIPTables{tables: map[Table]map[Chain][]string{}}
	for _, t := range []Table{TableNAT, TableFilter, TableMangle} {
		f.tables[t] = map[Chain][]string{}
		for _, c := range []Chain{ChainPrerouting, ChainInput, ChainForward, ChainOutput, ChainPostrouting} {
			f.tables[t][c] = nil
		}
	}
	return f
}

func (f *fakeIPTables) EnsureChain(table Table, chain Chain) (bool, error) {
	if _, ok := f.tables[table][chain]; ok {
		return true, nil
	}
	f.tables[table][chain] = nil
	return false, nil
}

func (f *fakeIPTables) EnsureRule(table Table, chain Chain, args ...string) (bool, error) {
	rule := "-A " + string(chain) + " " + strings.Join(args, " ")
	for _, r := range f.tables[table][chain] {
		if r == rule {
			return true, nil
		}
	}
	f.tables[table][chain] = append([]string{rule}, f.tables[table][chain]...)
	return false, nil
}

func (f *fakeIPTables) ChainExists(table Table, chain Chain) (bool, error) {
	_, ok := f.tables[table][chain]
	return ok, nil
}

func (f *fakeIPTables) DeleteChain(table Table, chain Chain) error {
	delete(f.tables[table], chain)
	return nil
}

func (f *fakeIPTables) HasRandomFully() bool { return f.randomFully }
func (f *fakeIPTables) IsIPv6() bool         { return false }

func (f *fakeIPTables) SaveInto(table Table, buf *bytes.Buffer) error {
	fmt.Fprintf(buf, "*%s\n", table)
	for c := range f.tables[table] {
		fmt.Fprintf(buf, ":%s - [0:0]\n", c)
	}
	buf.WriteString("COMMIT\n")
	return nil
}

// appendRule appends a rule to a chain (tests that need a stray rule).
func (f *fakeIPTables) appendRule(table Table, chain Chain, args ...string) (bool, error) {
	f.tables[table][chain] = append(f.tables[table][chain], "-A "+string(chain)+" "+strings.Join(args, " "))
	return false, nil
}

var builtinTargets = map[string]bool{"ACCEPT": true, "REJECT": true, "DROP": true, "MARK": true, "RETURN": true, "DNAT": true, "SNAT": true, "MASQUERADE": true}

// RestoreAll applies data atomically; like iptables-restore it fails (and
// changes nothing) if a rule would jump to a chain that does not exist.
func (f *fakeIPTables) RestoreAll(data []byte) error {
	f.lastRestore = string(data)
	dump, err := pt.ParseIPTablesDump(string(data))
	if err != nil {
		return err
	}
	next := map[Table]map[Chain][]string{}
	for t, chains := range f.tables {
		next[t] = map[Chain][]string{}
		for c, r := range chains {
			next[t][c] = r
		}
	}
	for _, t := range dump.Tables {
		tbl := next[Table(t.Name)]
		for _, c := range t.Chains {
			tbl[Chain(c.Name)] = c.Rules
		}
		for _, c := range t.Chains {
			if c.Deleted {
				delete(tbl, Chain(c.Name))
			}
		}
		for _, rules := range tbl {
			for _, raw := range rules {
				r, err := pt.ParseIPTRule(raw)
				if err != nil {
					return err
				}
				if r.Jump != nil && !builtinTargets[r.Jump.Value] {
					if _, ok := tbl[Chain(r.Jump.Value)]; !ok {
						return fmt.Errorf("iptables-restore: rule %q jumps to missing chain %s", raw, r.Jump.Value)
					}
				}
			}
		}
	}
	f.tables = next
	return nil
}

type conntrackNone struct{}

func (conntrackNone) ListEntries(uint8) ([]*netlink.ConntrackFlow, error) { return nil, nil }
func (conntrackNone) ClearEntries(uint8, ...netlink.CustomConntrackFilter) (int, error) {
	return 0, nil
}

type fakeNFAcct struct{}

func (fakeNFAcct) Ensure(string) error { return nil }

type fakeSysctl map[string]int

func (s fakeSysctl) GetSysctl(name string) (int, error) { return s[name], nil }
func (s fakeSysctl) SetSysctl(name string, v int) error { s[name] = v; return nil }
