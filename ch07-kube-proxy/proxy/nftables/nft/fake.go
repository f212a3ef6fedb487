package nft

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Fake is an in-memory table that applies transactions as nft would
// (atomically: a failing transaction changes nothing) and dumps its
// contents as a list of "add" operations, as knftables.Fake.Dump.
type Fake struct {
	family Family
	table  string

	mu sync.Mutex
	// Table is nil until the table is added.
	Table *FakeTable
	// LastTransaction is the last transaction Run was given.
	LastTransaction *Transaction
}

// FakeTable is the content of the fake table.
type FakeTable struct {
	Table  Table
	Chains map[string]*FakeChain
	Sets   map[string]*FakeSet
	Maps   map[string]*FakeMap
}

// FakeChain is a chain and its rules.
type FakeChain struct {
	Chain Chain
	Rules []*Rule
}

// FakeSet is a set and its elements.
type FakeSet struct {
	Set      Set
	Elements []*Element
}

// FakeMap is a map and its elements.
type FakeMap struct {
	Map      Map
	Elements []*Element
}

// NewFake returns an empty fake for family/table.
func NewFake(family Family, table string) *Fake { return &Fake{family: family, table: table} }

func (f *Fake) NewTransaction() *Transaction { return NewTransaction(f.family, f.table) }

func (t *FakeTable) copy() *FakeTable {
	c := &FakeTable{Table: t.Table, Chains: map[string]*FakeChain{}, Sets: map[string]*FakeSet{}, Maps: map[string]*FakeMap{}}
	for n, ch := range t.Chains {
		c.Chains[n] = &FakeChain{Chain: ch.Chain, Rules: slices.Clone(ch.Rules)}
	}
	for n, s := range t.Sets {
		c.Sets[n] = &FakeSet{Set: s.Set, Elements: slices.Clone(s.Elements)}
	}
	for n, m := range t.Maps {
		c.Maps[n] = &FakeMap{Map: m.Map, Elements: slices.Clone(m.Elements)}
	}
	return c
}

func findElement(elements []*Element, key []string) int {
	for i, e := range elements {
		if slices.Equal(e.Key, key) {
			return i
		}
	}
	return -1
}

// Run applies tx.
func (f *Fake) Run(_ context.Context, tx *Transaction) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.LastTransaction = tx
	var t *FakeTable
	if f.Table != nil {
		t = f.Table.copy()
	}
	for _, op := range tx.ops {
		if _, ok := op.obj.(*Table); ok {
			switch op.verb {
			case "add":
				if t == nil {
					t = &FakeTable{Table: *op.obj.(*Table), Chains: map[string]*FakeChain{}, Sets: map[string]*FakeSet{}, Maps: map[string]*FakeMap{}}
				}
			case "delete":
				if t == nil {
					return fmt.Errorf("%w: no such table", ErrNotFound)
				}
				t = nil
			case "flush":
				if t == nil {
					return fmt.Errorf("%w: no such table", ErrNotFound)
				}
				for _, ch := range t.Chains {
					ch.Rules = nil
				}
			}
			continue
		}
		if t == nil {
			return fmt.Errorf("%w: no such table", ErrNotFound)
		}
		if err := t.apply(op); err != nil {
			return err
		}
	}
	f.Table = t
	return nil
}

func (t *FakeTable) apply(op operation) error {
	switch obj := op.obj.(type) {
	case *Chain:
		ch := t.Chains[obj.Name]
		switch op.verb {
		case "add":
			if ch == nil {
				t.Chains[obj.Name] = &FakeChain{Chain: *obj}
			}
		case "flush":
			if ch == nil {
				return fmt.Errorf("%w: no such chain %q", ErrNotFound, obj.Name)
			}
			ch.Rules = nil
		case "delete":
			if ch == nil {
				return fmt.Errorf("%w: no such chain %q", ErrNotFound, obj.Name)
			}
			// As the kernel: a chain's rules go with it.
			delete(t.Chains, obj.Name)
		}
	case *Rule:
		ch := t.Chains[obj.Chain]
		if ch == nil {
			return fmt.Errorf("%w: no such chain %q", ErrNotFound, obj.Chain)
		}
		if op.verb != "add" {
			return fmt.Errorf("unhandled operation %q on a rule", op.verb)
		}
		for _, ref := range jumpTargets(obj.Rule) {
			if t.Chains[ref] == nil {
				return fmt.Errorf("%w: rule in %q jumps to missing chain %q", ErrNotFound, obj.Chain, ref)
			}
		}
		r := *obj
		ch.Rules = append(ch.Rules, &r)
	case *Set:
		s := t.Sets[obj.Name]
		switch op.verb {
		case "add":
			if s == nil {
				t.Sets[obj.Name] = &FakeSet{Set: *obj}
			}
		case "flush":
			if s == nil {
				return fmt.Errorf("%w: no such set %q", ErrNotFound, obj.Name)
			}
			s.Elements = nil
		case "delete":
			if s == nil {
				return fmt.Errorf("%w: no such set %q", ErrNotFound, obj.Name)
			}
			delete(t.Sets, obj.Name)
		}
	case *Map:
		m := t.Maps[obj.Name]
		switch op.verb {
		case "add":
			if m == nil {
				t.Maps[obj.Name] = &FakeMap{Map: *obj}
			}
		case "flush":
			if m == nil {
				return fmt.Errorf("%w: no such map %q", ErrNotFound, obj.Name)
			}
			m.Elements = nil
		case "delete":
			if m == nil {
				return fmt.Errorf("%w: no such map %q", ErrNotFound, obj.Name)
			}
			delete(t.Maps, obj.Name)
		}
	case *Element:
		var elements *[]*Element
		if obj.Set != "" {
			s := t.Sets[obj.Set]
			if s == nil {
				return fmt.Errorf("%w: no such set %q", ErrNotFound, obj.Set)
			}
			elements = &s.Elements
		} else {
			m := t.Maps[obj.Map]
			if m == nil {
				return fmt.Errorf("%w: no such map %q", ErrNotFound, obj.Map)
			}
			for _, ref := range jumpTargets(strings.Join(obj.Value, " ")) {
				if t.Chains[ref] == nil {
					return fmt.Errorf("%w: element of %q points to missing chain %q", ErrNotFound, obj.Map, ref)
				}
			}
			elements = &m.Elements
		}
		i := findElement(*elements, obj.Key)
		switch op.verb {
		case "add":
			e := *obj
			if i >= 0 {
				(*elements)[i] = &e
			} else {
				*elements = append(*elements, &e)
			}
		case "delete":
			if i < 0 {
				return fmt.Errorf("%w: no such element %q", ErrNotFound, strings.Join(obj.Key, " . "))
			}
			*elements = append((*elements)[:i], (*elements)[i+1:]...)
		default:
			return fmt.Errorf("unhandled operation %q on an element", op.verb)
		}
	}
	return nil
}

// jumpTargets are the chains a rule or verdict names after jump/goto.
func jumpTargets(rule string) []string {
	var out []string
	words := strings.Fields(rule)
	for i := 0; i+1 < len(words); i++ {
		if words[i] == "jump" || words[i] == "goto" {
			out = append(out, strings.TrimRight(words[i+1], ","))
		}
	}
	return out
}

// DeleteChains deletes the chains as a transaction of "delete chain"
// operations would (LastTransaction is left alone).
func (f *Fake) DeleteChains(ctx context.Context, names []string) error {
	tx := f.NewTransaction()
	for _, name := range names {
		tx.Delete(&Chain{Name: name})
	}
	last := f.LastTransaction
	err := f.Run(ctx, tx)
	f.mu.Lock()
	f.LastTransaction = last
	f.mu.Unlock()
	return err
}

// ListAll lists the chain, set and map names.
func (f *Fake) ListAll(_ context.Context) (map[string][]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all := map[string][]string{}
	if f.Table == nil {
		return all, nil
	}
	for n := range f.Table.Chains {
		all["chain"] = append(all["chain"], n)
	}
	for n := range f.Table.Sets {
		all["set"] = append(all["set"], n)
	}
	for n := range f.Table.Maps {
		all["map"] = append(all["map"], n)
	}
	return all, nil
}

// ListElements lists a set's or map's elements.
func (f *Fake) ListElements(_ context.Context, objectType, name string) ([]*Element, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Table == nil {
		return nil, fmt.Errorf("%w: no such table", ErrNotFound)
	}
	switch objectType {
	case "set":
		if s := f.Table.Sets[name]; s != nil {
			return slices.Clone(s.Elements), nil
		}
	case "map":
		if m := f.Table.Maps[name]; m != nil {
			return slices.Clone(m.Elements), nil
		}
	}
	return nil, fmt.Errorf("%w: no such %s %q", ErrNotFound, objectType, name)
}

// Dump writes the table as "add" operations: the table, the chains, sets
// and maps (each sorted by name), then the rules of each chain in order,
// then the elements.
func (f *Fake) Dump() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := &strings.Builder{}
	t := f.Table
	if t == nil {
		return ""
	}
	t.Table.writeOperation("add", f.family, f.table, b)
	chains, sets, maps := sortedKeys(t.Chains), sortedKeys(t.Sets), sortedKeys(t.Maps)
	for _, n := range chains {
		t.Chains[n].Chain.writeOperation("add", f.family, f.table, b)
	}
	for _, n := range sets {
		t.Sets[n].Set.writeOperation("add", f.family, f.table, b)
	}
	for _, n := range maps {
		t.Maps[n].Map.writeOperation("add", f.family, f.table, b)
	}
	for _, n := range chains {
		for _, r := range t.Chains[n].Rules {
			r.writeOperation("add", f.family, f.table, b)
		}
	}
	for _, n := range sets {
		for _, e := range t.Sets[n].Elements {
			e.writeOperation("add", f.family, f.table, b)
		}
	}
	for _, n := range maps {
		for _, e := range t.Maps[n].Elements {
			e.writeOperation("add", f.family, f.table, b)
		}
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FindElement returns the element with key, or nil.
func (s *FakeSet) FindElement(key ...string) *Element {
	if i := findElement(s.Elements, key); i >= 0 {
		return s.Elements[i]
	}
	return nil
}

// FindElement returns the element with key, or nil.
func (m *FakeMap) FindElement(key ...string) *Element {
	if i := findElement(m.Elements, key); i >= 0 {
		return m.Elements[i]
	}
	return nil
}
