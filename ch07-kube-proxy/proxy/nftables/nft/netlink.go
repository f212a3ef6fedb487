package nft

// Partial syncs over netlink.
//
// `nft -f` reads every chain of the table into its cache before it checks
// a command: at 5000 Services that is 15 000 chains and most of a partial
// sync's time. The operations a partial sync is made of — per-Service and
// per-endpoint chains and their rules, elements of the service maps and
// sets — are therefore encoded here as netlink messages
// (github.com/google/nftables) and sent as one batch, which the kernel
// applies atomically, as it applies an `nft -f` transaction.
//
// The dividing line: a transaction goes over netlink only if every one of
// its operations is one of the shapes below; anything else (the table,
// base chains, chains with a comment, adding sets or maps, the fixed rules
// of a full sync, affinity sets and their rules, firewall source ranges,
// elements of a set whose type was not written by nft here first) sends
// the whole transaction to `nft -f`. Full syncs, and so the
// first sync, always include the table and go to `nft -f`.
//
// Supported operations:
//
//	add/flush/delete chain NAME            (regular chain, no comment)
//	delete set NAME
//	add/delete element NAME { KEY [comment "..."] [: VERDICT] }
//	    keys of the types ipv4_addr, inet_proto, inet_service and their
//	    concatenations; verdicts drop, accept, return, jump C, goto C
//	add rule CHAIN STATEMENTS [comment "..."], the statements being
//	    ip saddr|daddr [!=] ADDR[/LEN]  (LEN 1 to 32)
//	    fib saddr type local
//	    meta l4proto tcp|udp|sctp [dnat to ADDR:PORT]
//	    numgen random mod N vmap { 0 : goto C0 , 1 : goto C1 , ... }
//	    and a final jump C, goto C, drop, accept or return
//
// Each rule is encoded with the expressions nft 1.0.6 generates for the
// same text (netlink_test.go adds every shape both ways and compares what
// the kernel holds), so `nft list` prints the same table either way.

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/userdata"
	"golang.org/x/sys/unix"
)

// errUnsupported says an operation has no netlink encoding here.
var errUnsupported = errors.New("not supported over netlink")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUnsupported, fmt.Sprintf(format, args...))
}

// setTypes maps a set or map name to its key type words
// ("ipv4_addr . inet_proto . inet_service" → 3 words).
type setTypes map[string][]string

// record notes the sets and maps a successful transaction added or deleted.
func (st setTypes) record(tx *Transaction) {
	tx.ForEach(func(verb string, obj Object) {
		var name, typ string
		switch o := obj.(type) {
		case *Set:
			name, typ = o.Name, o.Type
		case *Map:
			name, typ = o.Name, o.Type
			if i := strings.Index(typ, ":"); i != -1 {
				typ = typ[:i]
			}
		case *Table:
			if verb == "delete" {
				clear(st)
			}
			return
		default:
			return
		}
		switch verb {
		case "add":
			st[name] = strings.Split(strings.TrimSpace(typ), " . ")
		case "delete":
			delete(st, name)
		}
	})
}

// netlinkBatch queues tx's operations on conn; an errUnsupported error
// means tx must go to `nft -f` instead (nothing has been sent).
func netlinkBatch(conn *nftables.Conn, table string, types setTypes, tx *Transaction) error {
	t := &nftables.Table{Name: table, Family: nftables.TableFamilyIPv4}
	if tx.family != IPv4Family {
		return unsupported("family %s", tx.family)
	}
	// Encode everything first, so that nothing is queued on a failure.
	var queue []func(*nftables.Conn) error
	for _, op := range tx.ops {
		f, err := encodeOperation(t, types, op.verb, op.obj)
		if err != nil {
			return err
		}
		queue = append(queue, f)
	}
	for _, f := range queue {
		if err := f(conn); err != nil {
			return err
		}
	}
	return nil
}

func encodeOperation(t *nftables.Table, types setTypes, verb string, obj Object) (func(*nftables.Conn) error, error) {
	switch o := obj.(type) {
	case *Chain:
		if o.Type != nil || o.Comment != nil {
			return nil, unsupported("chain %s with properties", o.Name)
		}
		c := &nftables.Chain{Name: o.Name, Table: t}
		switch verb {
		case "add":
			return func(conn *nftables.Conn) error { conn.AddChain(c); return nil }, nil
		case "flush":
			return func(conn *nftables.Conn) error { conn.FlushChain(c); return nil }, nil
		case "delete":
			return func(conn *nftables.Conn) error { conn.DelChain(c); return nil }, nil
		}
	case *Set:
		if verb == "delete" {
			s := &nftables.Set{Name: o.Name, Table: t}
			return func(conn *nftables.Conn) error { conn.DelSet(s); return nil }, nil
		}
	case *Rule:
		if verb == "add" {
			return encodeRule(t, o)
		}
	case *Element:
		return encodeElement(t, types, verb, o)
	}
	return nil, unsupported("%s %T", verb, obj)
}

// encodeElement encodes an element of a named set or map.
func encodeElement(t *nftables.Table, types setTypes, verb string, e *Element) (func(*nftables.Conn) error, error) {
	name := e.Set
	if name == "" {
		name = e.Map
	}
	keyTypes, ok := types[name]
	if !ok {
		return nil, unsupported("element of %s, whose type is unknown", name)
	}
	key, err := encodeKey(keyTypes, e.Key)
	if err != nil {
		return nil, err
	}
	el := nftables.SetElement{Key: key}
	s := &nftables.Set{Name: name, Table: t, IsMap: e.Map != ""}
	if verb == "delete" {
		return func(conn *nftables.Conn) error { return conn.SetDeleteElements(s, []nftables.SetElement{el}) }, nil
	}
	if verb != "add" {
		return nil, unsupported("%s element", verb)
	}
	if e.Comment != nil {
		el.Comment = *e.Comment
	}
	if e.Map != "" {
		if len(e.Value) != 1 {
			return nil, unsupported("map value %q", e.Value)
		}
		v, err := parseVerdict(strings.Fields(e.Value[0]))
		if err != nil {
			return nil, err
		}
		el.VerdictData = v
	} else if len(e.Value) != 0 {
		return nil, unsupported("set element with a value")
	}
	return func(conn *nftables.Conn) error { return conn.SetAddElements(s, []nftables.SetElement{el}) }, nil
}

// encodeKey encodes a key as nft does: each field of a concatenation
// takes a whole number of 4-byte registers; addresses and ports are in
// network byte order.
func encodeKey(keyTypes, words []string) ([]byte, error) {
	if len(keyTypes) != len(words) {
		return nil, unsupported("key %q for type %q", words, keyTypes)
	}
	var key []byte
	for i, typ := range keyTypes {
		var field []byte
		switch typ {
		case "ipv4_addr":
			a, err := netip.ParseAddr(words[i])
			if err != nil || !a.Is4() {
				return nil, unsupported("ipv4_addr %q", words[i])
			}
			b := a.As4()
			field = b[:]
		case "inet_proto":
			p, ok := protocols[words[i]]
			if !ok {
				return nil, unsupported("inet_proto %q", words[i])
			}
			field = []byte{p}
		case "inet_service":
			port, err := strconv.ParseUint(words[i], 10, 16)
			if err != nil {
				return nil, unsupported("inet_service %q", words[i])
			}
			field = binaryutil.BigEndian.PutUint16(uint16(port))
		default:
			return nil, unsupported("key type %q", typ)
		}
		key = append(key, field...)
		if len(keyTypes) > 1 {
			for len(key)%4 != 0 {
				key = append(key, 0)
			}
		}
	}
	return key, nil
}

var protocols = map[string]byte{"tcp": unix.IPPROTO_TCP, "udp": unix.IPPROTO_UDP, "sctp": unix.IPPROTO_SCTP}

// parseVerdict parses "drop", "goto CHAIN", ...
func parseVerdict(words []string) (*expr.Verdict, error) {
	switch {
	case len(words) == 1 && words[0] == "drop":
		return &expr.Verdict{Kind: expr.VerdictDrop}, nil
	case len(words) == 1 && words[0] == "accept":
		return &expr.Verdict{Kind: expr.VerdictAccept}, nil
	case len(words) == 1 && words[0] == "return":
		return &expr.Verdict{Kind: expr.VerdictReturn}, nil
	case len(words) == 2 && words[0] == "jump":
		return &expr.Verdict{Kind: expr.VerdictJump, Chain: words[1]}, nil
	case len(words) == 2 && words[0] == "goto":
		return &expr.Verdict{Kind: expr.VerdictGoto, Chain: words[1]}, nil
	}
	return nil, unsupported("verdict %q", words)
}

// ruleEncoder turns the words of a rule into expressions.
type ruleEncoder struct {
	words []string
	exprs []expr.Any
	// l4proto is the protocol a "meta l4proto" match fixed, for dnat.
	l4proto byte
	// anonymous is the verdict map of a numgen statement.
	anonymous *nftables.Set
	elements  []nftables.SetElement
	done      bool // a verdict was written: nothing may follow
}

func encodeRule(t *nftables.Table, r *Rule) (func(*nftables.Conn) error, error) {
	e := &ruleEncoder{words: strings.Fields(r.Rule)}
	for len(e.words) > 0 {
		if e.done {
			return nil, unsupported("rule %q: words after the verdict", r.Rule)
		}
		if err := e.statement(); err != nil {
			return nil, fmt.Errorf("rule %q: %w", r.Rule, err)
		}
	}
	rule := &nftables.Rule{Table: t, Chain: &nftables.Chain{Name: r.Chain, Table: t}, Exprs: e.exprs}
	if r.Comment != nil {
		if len(*r.Comment) > 128 {
			return nil, unsupported("comment longer than 128 characters")
		}
		rule.UserData = userdata.AppendString(nil, userdata.TypeComment, *r.Comment)
	}
	anonymous, elements := e.anonymous, e.elements
	if anonymous != nil {
		anonymous.Table = t
	}
	return func(conn *nftables.Conn) error {
		if anonymous != nil {
			// AddSet gives the set its batch ID; the lookup refers to it.
			if err := conn.AddSet(anonymous, elements); err != nil {
				return err
			}
			for _, x := range rule.Exprs {
				if l, ok := x.(*expr.Lookup); ok && l.SetName == "" {
					l.SetName, l.SetID = anonymous.Name, anonymous.ID
				}
			}
		}
		conn.AddRule(rule)
		return nil
	}, nil
}

// take removes and returns the next n words, or nil if there are fewer.
func (e *ruleEncoder) take(n int) []string {
	if len(e.words) < n {
		return nil
	}
	w := e.words[:n]
	e.words = e.words[n:]
	return w
}

func (e *ruleEncoder) statement() error {
	switch e.words[0] {
	case "ip":
		return e.ipMatch()
	case "fib":
		w := e.take(4)
		if w == nil || strings.Join(w, " ") != "fib saddr type local" {
			return unsupported("fib %q", w)
		}
		e.exprs = append(e.exprs,
			&expr.Fib{Register: 1, FlagSADDR: true, ResultADDRTYPE: true},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(unix.RTN_LOCAL)})
		return nil
	case "meta":
		w := e.take(3)
		if w == nil || w[1] != "l4proto" {
			return unsupported("meta %q", w)
		}
		p, ok := protocols[w[2]]
		if !ok {
			return unsupported("l4proto %q", w[2])
		}
		e.l4proto = p
		e.exprs = append(e.exprs,
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{p}})
		return nil
	case "dnat":
		return e.dnat()
	case "numgen":
		return e.numgenVmap()
	case "jump", "goto":
		w := e.take(2)
		if w == nil {
			return unsupported("verdict without a chain")
		}
		v, err := parseVerdict(w)
		if err != nil {
			return err
		}
		e.exprs = append(e.exprs, v)
		e.done = true
		return nil
	case "drop", "accept", "return":
		v, _ := parseVerdict(e.take(1))
		e.exprs = append(e.exprs, v)
		e.done = true
		return nil
	}
	return unsupported("statement %q", e.words[0])
}

// ipMatch: ip saddr|daddr [!=] ADDR[/LEN]. nft loads only the prefix's
// bytes when the prefix ends on a byte boundary, and otherwise the whole
// address and a mask.
func (e *ruleEncoder) ipMatch() error {
	w := e.take(2)
	if w == nil {
		return unsupported("ip match")
	}
	var offset uint32
	switch w[1] {
	case "saddr":
		offset = 12
	case "daddr":
		offset = 16
	default:
		return unsupported("ip %s", w[1])
	}
	op := expr.CmpOpEq
	if len(e.words) > 0 && e.words[0] == "!=" {
		op = expr.CmpOpNeq
		e.take(1)
	}
	v := e.take(1)
	if v == nil {
		return unsupported("ip %s without a value", w[1])
	}
	prefix, err := parsePrefix(v[0])
	if err != nil {
		return err
	}
	addr := prefix.Addr().As4()
	bits := prefix.Bits()
	if bits == 0 {
		return unsupported("prefix %s", prefix)
	}
	switch {
	case bits == 32:
		e.exprs = append(e.exprs,
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: 4},
			&expr.Cmp{Op: op, Register: 1, Data: addr[:]})
	case bits > 0 && bits%8 == 0:
		n := uint32(bits / 8)
		e.exprs = append(e.exprs,
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: n},
			&expr.Cmp{Op: op, Register: 1, Data: addr[:n]})
	default:
		mask := binaryutil.BigEndian.PutUint32(^uint32(0) << (32 - bits))
		e.exprs = append(e.exprs,
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: 4},
			&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4, Mask: mask, Xor: make([]byte, 4)},
			&expr.Cmp{Op: op, Register: 1, Data: addr[:]})
	}
	return nil
}

// parsePrefix parses an IPv4 address or CIDR (host bits zero, as nft
// requires).
func parsePrefix(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() {
			return netip.Prefix{}, unsupported("address %q", s)
		}
		return netip.PrefixFrom(a, 32), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() || p.Masked() != p {
		return netip.Prefix{}, unsupported("prefix %q", s)
	}
	return p, nil
}

// dnat: dnat to ADDR:PORT, after a meta l4proto match.
func (e *ruleEncoder) dnat() error {
	w := e.take(3)
	if w == nil || w[1] != "to" || e.l4proto == 0 {
		return unsupported("dnat %q", w)
	}
	ap, err := netip.ParseAddrPort(w[2])
	if err != nil || !ap.Addr().Is4() {
		return unsupported("dnat to %q", w[2])
	}
	addr := ap.Addr().As4()
	e.exprs = append(e.exprs,
		&expr.Immediate{Register: 1, Data: addr[:]},
		&expr.Immediate{Register: 2, Data: binaryutil.BigEndian.PutUint16(ap.Port())},
		&expr.NAT{Type: expr.NATTypeDestNAT, Family: unix.NFPROTO_IPV4,
			RegAddrMin: 1, RegAddrMax: 1, RegProtoMin: 2, RegProtoMax: 2, Specified: true})
	e.done = true
	return nil
}

// numgenVmap: numgen random mod N vmap { 0 : goto C0 , ... }, with an
// anonymous constant verdict map keyed by the 32-bit number (host byte
// order), as nft builds it.
func (e *ruleEncoder) numgenVmap() error {
	w := e.take(6)
	if w == nil || w[1] != "random" || w[2] != "mod" || w[4] != "vmap" || w[5] != "{" {
		return unsupported("numgen %q", w)
	}
	mod, err := strconv.ParseUint(w[3], 10, 32)
	if err != nil || mod == 0 {
		return unsupported("numgen modulus %q", w[3])
	}
	var elements []nftables.SetElement
	for {
		el := e.take(4)
		if el == nil || el[1] != ":" {
			return unsupported("vmap element %q", el)
		}
		n, err := strconv.ParseUint(el[0], 10, 32)
		if err != nil || n >= mod {
			return unsupported("vmap key %q", el[0])
		}
		v, err := parseVerdict(el[2:4])
		if err != nil {
			return err
		}
		elements = append(elements, nftables.SetElement{Key: binaryutil.NativeEndian.PutUint32(uint32(n)), VerdictData: v})
		sep := e.take(1)
		if sep == nil {
			return unsupported("unterminated vmap")
		}
		if sep[0] == "}" {
			break
		}
		if sep[0] != "," {
			return unsupported("vmap separator %q", sep[0])
		}
	}
	e.anonymous = &nftables.Set{Anonymous: true, Constant: true, IsMap: true,
		KeyType: nftables.TypeInteger, DataType: nftables.TypeVerdict, KeyByteOrder: binaryutil.NativeEndian}
	e.elements = elements
	e.exprs = append(e.exprs,
		&expr.Numgen{Register: 1, Modulus: uint32(mod), Type: unix.NFT_NG_RANDOM},
		&expr.Lookup{SourceRegister: 1, DestRegister: 0, IsDestRegSet: true})
	e.done = true
	return nil
}
