// Package nft builds nftables transactions as nft command text and runs
// them with the nft binary (`nft -f -`: one atomic transaction), and lists
// what a table holds (`nft --json list ...`). A transaction made only of
// the operations partial syncs write goes to the kernel as one netlink
// batch instead (github.com/google/nftables, netlink.go), built into the
// same bytecode nft builds, without nft's cache of the whole table; stale
// chains are deleted over netlink too. Fake is an in-memory table that
// applies the same transactions, for tests.
//
// The text is exactly what sigs.k8s.io/knftables (which upstream
// kube-proxy uses) writes for the same objects, so a transaction here reads
// like upstream's, line for line:
//
//	add chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80
//	add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-... }
//	add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80 }
//
// Upstream: sigs.k8s.io/knftables (objects.go, transaction.go, exec, fake.go).
package nft

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Family is an nftables address family ("ip", "ip6", "inet").
type Family string

// IPv4Family is the family of kube-proxy's IPv4 table.
const IPv4Family Family = "ip"

// Object is a table, chain, rule, set, map or element.
type Object interface {
	writeOperation(verb string, family Family, table string, b *strings.Builder)
}

// Table is the table the Interface was made for.
type Table struct {
	Comment *string
}

// Chain is a regular chain (Type nil) or a base chain on a netfilter hook.
type Chain struct {
	Name     string
	Type     *string // "filter", "nat"
	Hook     *string // "prerouting", "input", ...
	Priority *string // "dstnat", "dstnat-10", "filter", "srcnat" or a number
	Comment  *string
}

// Rule is one rule, appended to Chain.
type Rule struct {
	Chain   string
	Rule    string
	Comment *string
}

// Set is a named set.
type Set struct {
	Name    string
	Type    string   // "ipv4_addr"
	Flags   []string // "dynamic", "timeout"
	Timeout *time.Duration
	Comment *string
}

// Map is a named map (verdict map when its type ends in ": verdict").
type Map struct {
	Name    string
	Type    string
	Comment *string
}

// Element is an element of a Set or a Map.
type Element struct {
	Set     string
	Map     string
	Key     []string
	Value   []string // maps only
	Comment *string
}

// numericPriorities are nft's names of the standard hook priorities.
var numericPriorities = map[string]int{"raw": -300, "mangle": -150, "dstnat": -100, "filter": 0, "security": 50, "srcnat": 100}

// ParsePriority turns "dstnat-10" into -110. nft 1.0.6 rejects symbolic
// priorities on some hooks (dstnat on output), so numbers are written.
func ParsePriority(priority string) (int, error) {
	if v, err := strconv.Atoi(priority); err == nil {
		return v, nil
	}
	mod := 0
	if i := strings.IndexAny(priority, "+-"); i != -1 {
		m, err := strconv.Atoi(priority[i:])
		if err != nil {
			return 0, fmt.Errorf("could not parse modifier %q: %w", priority[i:], err)
		}
		mod, priority = m, priority[:i]
	}
	v, ok := numericPriorities[priority]
	if !ok {
		return 0, fmt.Errorf("unknown priority %q", priority)
	}
	return v + mod, nil
}

func (t *Table) writeOperation(verb string, family Family, table string, b *strings.Builder) {
	fmt.Fprintf(b, "%s table %s %s", verb, family, table)
	if verb == "add" && t.Comment != nil {
		fmt.Fprintf(b, " { comment %q ; }", *t.Comment)
	}
	b.WriteByte('\n')
}

func (c *Chain) writeOperation(verb string, family Family, table string, b *strings.Builder) {
	fmt.Fprintf(b, "%s chain %s %s %s", verb, family, table, c.Name)
	if verb == "add" && (c.Type != nil || c.Comment != nil) {
		b.WriteString(" {")
		if c.Type != nil {
			fmt.Fprintf(b, " type %s hook %s", *c.Type, *c.Hook)
			if p, err := ParsePriority(*c.Priority); err == nil {
				fmt.Fprintf(b, " priority %d ;", p)
			} else {
				fmt.Fprintf(b, " priority %s ;", *c.Priority)
			}
		}
		if c.Comment != nil {
			fmt.Fprintf(b, " comment %q ;", *c.Comment)
		}
		b.WriteString(" }")
	}
	b.WriteByte('\n')
}

func (r *Rule) writeOperation(verb string, family Family, table string, b *strings.Builder) {
	fmt.Fprintf(b, "%s rule %s %s %s", verb, family, table, r.Chain)
	if verb == "add" {
		b.WriteByte(' ')
		b.WriteString(r.Rule)
		if r.Comment != nil {
			fmt.Fprintf(b, " comment %q", *r.Comment)
		}
	}
	b.WriteByte('\n')
}

func (s *Set) writeOperation(verb string, family Family, table string, b *strings.Builder) {
	fmt.Fprintf(b, "%s set %s %s %s", verb, family, table, s.Name)
	if verb == "add" {
		fmt.Fprintf(b, " { type %s ;", s.Type)
		if len(s.Flags) != 0 {
			fmt.Fprintf(b, " flags %s ;", strings.Join(s.Flags, ","))
		}
		if s.Timeout != nil {
			fmt.Fprintf(b, " timeout %ds ;", int64(s.Timeout.Seconds()))
		}
		if s.Comment != nil {
			fmt.Fprintf(b, " comment %q ;", *s.Comment)
		}
		b.WriteString(" }")
	}
	b.WriteByte('\n')
}

func (m *Map) writeOperation(verb string, family Family, table string, b *strings.Builder) {
	fmt.Fprintf(b, "%s map %s %s %s", verb, family, table, m.Name)
	if verb == "add" {
		fmt.Fprintf(b, " { type %s ;", m.Type)
		if m.Comment != nil {
			fmt.Fprintf(b, " comment %q ;", *m.Comment)
		}
		b.WriteString(" }")
	}
	b.WriteByte('\n')
}

func (e *Element) writeOperation(verb string, family Family, table string, b *strings.Builder) {
	name := e.Set
	if name == "" {
		name = e.Map
	}
	fmt.Fprintf(b, "%s element %s %s %s { %s", verb, family, table, name, strings.Join(e.Key, " . "))
	if verb == "add" {
		if e.Comment != nil {
			fmt.Fprintf(b, " comment %q", *e.Comment)
		}
		if len(e.Value) != 0 {
			fmt.Fprintf(b, " : %s", strings.Join(e.Value, " . "))
		}
	}
	b.WriteString(" }\n")
}

// Concat joins words with spaces, as knftables.Concat: strings, []string
// and numbers; no space after "@" ("@cluster-ips").
func Concat(args ...any) string {
	b := &strings.Builder{}
	var needSpace, wroteAt bool
	write := func(s string) {
		if needSpace {
			b.WriteByte(' ')
		}
		b.WriteString(s)
		wroteAt = s == "@"
		needSpace = b.Len() > 0 && !wroteAt
	}
	for _, arg := range args {
		switch x := arg.(type) {
		case string:
			write(x)
		case []string:
			for _, s := range x {
				write(s)
			}
		case int:
			write(strconv.Itoa(x))
		default:
			write(fmt.Sprint(x))
		}
	}
	return b.String()
}

// Transaction is a list of operations nft applies atomically.
type Transaction struct {
	family Family
	table  string
	ops    []operation
}

type operation struct {
	verb string
	obj  Object
}

// NewTransaction returns an empty transaction on family/table.
func NewTransaction(family Family, table string) *Transaction {
	return &Transaction{family: family, table: table}
}

// Add adds obj (a no-op for an existing table, chain, set or map; an
// existing element is replaced).
func (tx *Transaction) Add(obj Object) { tx.ops = append(tx.ops, operation{"add", obj}) }

// Flush empties a chain (its rules) or a set or map (its elements).
func (tx *Transaction) Flush(obj Object) { tx.ops = append(tx.ops, operation{"flush", obj}) }

// Delete deletes obj, which must exist.
func (tx *Transaction) Delete(obj Object) { tx.ops = append(tx.ops, operation{"delete", obj}) }

// NumOperations is the number of operations.
func (tx *Transaction) NumOperations() int { return len(tx.ops) }

// String is the transaction as `nft -f` input.
func (tx *Transaction) String() string {
	b := &strings.Builder{}
	for _, op := range tx.ops {
		op.obj.writeOperation(op.verb, tx.family, tx.table, b)
	}
	return b.String()
}

// ForEach calls f for each operation, in order.
func (tx *Transaction) ForEach(f func(verb string, obj Object)) {
	for _, op := range tx.ops {
		f(op.verb, op.obj)
	}
}
