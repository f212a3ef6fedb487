package nft

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/google/nftables"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// inScratchNetns runs f in a new network namespace, deleted at the end.
func inScratchNetns(t *testing.T, f func() error) {
	t.Helper()
	name := "kubik-ptest-nl-" + randomSuffix()
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	netns, err := ns.GetNS("/run/netns/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer netns.Close()
	if err := netns.Do(func(ns.NetNS) error { return f() }); err != nil {
		t.Fatal(err)
	}
}

// baseTransaction is the part of kube-proxy's table the shapes refer to,
// written by `nft -f` (it adds the table).
func baseTransaction(n Interface) *Transaction {
	tx := n.NewTransaction()
	tx.Add(&Table{Comment: ptr("rules for kube-proxy")})
	tx.Add(&Chain{Name: "mark-for-masquerade"})
	tx.Add(&Rule{Chain: "mark-for-masquerade", Rule: "mark set mark or 0x4000"})
	tx.Add(&Chain{Name: "reject-chain", Comment: ptr("helper for @no-endpoint-services / @no-endpoint-nodeports")})
	tx.Add(&Rule{Chain: "reject-chain", Rule: "reject"})
	tx.Add(&Set{Name: "cluster-ips", Type: "ipv4_addr", Comment: ptr("Active ClusterIPs")})
	for _, m := range []string{"service-ips", "no-endpoint-services", "firewall-ips"} {
		tx.Add(&Map{Name: m, Type: "ipv4_addr . inet_proto . inet_service : verdict", Comment: ptr(m)})
	}
	for _, m := range []string{"service-nodeports", "no-endpoint-nodeports"} {
		tx.Add(&Map{Name: m, Type: "inet_proto . inet_service : verdict", Comment: ptr(m)})
	}
	for _, c := range []string{svcChain, epChainA, epChainB, extChain} {
		tx.Add(&Chain{Name: c})
	}
	tx.Add(&Rule{Chain: epChainB, Rule: "ip saddr 10.244.1.2 jump mark-for-masquerade"})
	tx.Add(&Element{Set: "cluster-ips", Key: []string{"10.96.0.9"}})
	tx.Add(&Element{Map: "service-ips", Key: []string{"10.96.0.9", "udp", "53"}, Value: []string{"goto " + svcChain}})
	tx.Add(&Element{Map: "service-nodeports", Key: []string{"udp", "30053"}, Value: []string{"goto " + extChain}})
	tx.Add(&Element{Map: "no-endpoint-services", Key: []string{"10.96.0.8", "tcp", "80"}, Value: []string{"drop"}, Comment: ptr("ns/a:p")})
	tx.Add(&Set{Name: "affinity-X", Type: "ipv4_addr", Flags: []string{"dynamic", "timeout"}})
	return tx
}

func ptr(s string) *string { return &s }

const (
	svcChain = "service-ULMVA6XW-ns1/svc1/tcp/p80"
	epChainA = "endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80"
	epChainB = "endpoint-ZCZBVNAZ-ns1/svc1/tcp/p80__10.180.2.1/80"
	extChain = "external-ULMVA6XW-ns1/svc1/tcp/p80"
)

// netlinkShapes are the operations partial syncs write, one shape each.
var netlinkShapes = map[string]func(tx *Transaction){
	"masquerade off-cluster sources to a ClusterIP": func(tx *Transaction) {
		tx.Add(&Rule{Chain: svcChain, Rule: "ip daddr 172.30.0.41 ip saddr != 10.0.0.0/8 jump mark-for-masquerade"})
		tx.Add(&Rule{Chain: svcChain, Rule: "ip daddr 172.30.0.41 ip saddr != 10.244.0.0/16 jump mark-for-masquerade"})
		tx.Add(&Rule{Chain: svcChain, Rule: "ip daddr 172.30.0.41 ip saddr != 10.128.0.0/9 jump mark-for-masquerade"})
		tx.Add(&Rule{Chain: svcChain, Rule: "ip daddr 172.30.0.41 ip saddr != 10.244.16.0/20 jump mark-for-masquerade"})
	},
	"masquerade all": func(tx *Transaction) {
		tx.Add(&Rule{Chain: svcChain, Rule: "ip daddr 172.30.0.41 jump mark-for-masquerade"})
	},
	"numgen vmap": func(tx *Transaction) {
		tx.Add(&Rule{Chain: svcChain, Rule: Concat("numgen random mod", 1, "vmap", "{", "0", ":", "goto", epChainA, "}")})
		tx.Add(&Rule{Chain: svcChain, Rule: Concat("numgen random mod", 2, "vmap", "{", "0", ":", "goto", epChainA, ",", "1", ":", "goto", epChainB, "}")})
		tx.Add(&Rule{Chain: svcChain, Rule: Concat("numgen random mod", 3, "vmap", "{", "0", ":", "goto", epChainA, ",",
			"1", ":", "goto", epChainB, ",", "2", ":", "goto", epChainA, "}")})
	},
	"endpoint chain": func(tx *Transaction) {
		tx.Add(&Chain{Name: epChainA})
		tx.Flush(&Chain{Name: epChainA})
		tx.Add(&Rule{Chain: epChainA, Rule: "ip saddr 10.180.0.1 jump mark-for-masquerade"})
		tx.Add(&Rule{Chain: epChainA, Rule: "meta l4proto tcp dnat to 10.180.0.1:80"})
		tx.Add(&Rule{Chain: epChainA, Rule: "meta l4proto udp dnat to 10.180.0.1:53"})
		tx.Add(&Rule{Chain: epChainA, Rule: "meta l4proto sctp dnat to 10.180.0.1:65535"})
	},
	"external chain": func(tx *Transaction) {
		tx.Add(&Rule{Chain: extChain, Rule: "jump mark-for-masquerade"})
		tx.Add(&Rule{Chain: extChain, Rule: "ip saddr 10.0.0.0/8 goto " + svcChain, Comment: ptr("short-circuit pod traffic")})
		tx.Add(&Rule{Chain: extChain, Rule: "fib saddr type local jump mark-for-masquerade", Comment: ptr("masquerade local traffic")})
		tx.Add(&Rule{Chain: extChain, Rule: "fib saddr type local goto " + svcChain, Comment: ptr("short-circuit local traffic")})
		tx.Add(&Rule{Chain: extChain, Rule: "goto " + svcChain})
		tx.Add(&Rule{Chain: extChain, Rule: "drop"})
	},
	"new chains of a Service": func(tx *Transaction) {
		c := "service-NEW-ns2/svc2/udp/dns"
		e := "endpoint-NEW-ns2/svc2/udp/dns__10.1.2.3/53"
		tx.Add(&Chain{Name: e})
		tx.Flush(&Chain{Name: e})
		tx.Add(&Chain{Name: c})
		tx.Flush(&Chain{Name: c})
		tx.Add(&Rule{Chain: c, Rule: Concat("numgen random mod", 1, "vmap", "{", "0", ":", "goto", e, "}")})
		tx.Add(&Rule{Chain: e, Rule: "meta l4proto udp dnat to 10.1.2.3:53"})
		tx.Add(&Element{Map: "service-ips", Key: []string{"10.96.0.10", "udp", "53"}, Value: []string{"goto " + c}})
	},
	"flush and delete chains, delete a set": func(tx *Transaction) {
		tx.Flush(&Chain{Name: epChainB})
		tx.Delete(&Chain{Name: epChainB})
		tx.Delete(&Set{Name: "affinity-X"})
	},
	"elements": func(tx *Transaction) {
		tx.Add(&Element{Set: "cluster-ips", Key: []string{"172.30.0.41"}})
		tx.Add(&Element{Map: "service-ips", Key: []string{"172.30.0.41", "tcp", "80"}, Value: []string{"goto " + svcChain}})
		tx.Add(&Element{Map: "service-ips", Key: []string{"172.30.0.42", "sctp", "65535"}, Value: []string{"goto " + extChain}})
		tx.Add(&Element{Map: "firewall-ips", Key: []string{"5.6.7.8", "tcp", "80"}, Value: []string{"goto " + extChain}})
		tx.Add(&Element{Map: "service-nodeports", Key: []string{"tcp", "3001"}, Value: []string{"goto " + extChain}})
		tx.Add(&Element{Map: "no-endpoint-services", Key: []string{"172.30.0.43", "tcp", "80"}, Value: []string{"goto reject-chain"},
			Comment: ptr("ns1/svc3:p80")})
		tx.Add(&Element{Map: "no-endpoint-services", Key: []string{"172.30.0.44", "udp", "53"}, Value: []string{"drop"},
			Comment: ptr("ns1/svc4:dns")})
		tx.Add(&Element{Map: "no-endpoint-nodeports", Key: []string{"tcp", "3002"}, Value: []string{"goto reject-chain"},
			Comment: ptr("ns1/svc3:p80")})
	},
	"delete and replace elements": func(tx *Transaction) {
		tx.Delete(&Element{Set: "cluster-ips", Key: []string{"10.96.0.9"}})
		tx.Delete(&Element{Map: "service-ips", Key: []string{"10.96.0.9", "udp", "53"}, Value: []string{"goto " + svcChain}})
		tx.Delete(&Element{Map: "service-nodeports", Key: []string{"udp", "30053"}})
		tx.Delete(&Element{Map: "no-endpoint-services", Key: []string{"10.96.0.8", "tcp", "80"}, Value: []string{"drop"}, Comment: ptr("ns/a:p")})
		tx.Add(&Element{Map: "no-endpoint-services", Key: []string{"10.96.0.8", "tcp", "80"}, Value: []string{"goto reject-chain"}, Comment: ptr("ns/a:p")})
	},
}

// tableState is what the kernel holds, as nft prints it (with the
// bytecode) and as netlink returns the rules and sets.
type tableState struct {
	listing, bytecode string
	sets              string // the sets' netlink messages, bytes included
	rules             map[string][]*nftables.Rule
	setObjects        []*nftables.Set
}

func readTableState(t *testing.T) tableState {
	t.Helper()
	var st tableState
	for _, args := range [][]string{{"list", "table", "ip", "kube-proxy"}, {"--debug=netlink", "list", "table", "ip", "kube-proxy"}} {
		out, err := exec.Command("nft", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("nft %v: %v: %s", args, err, out)
		}
		if args[0] == "list" {
			st.listing = string(out)
		} else {
			st.bytecode = sortElementLines(string(out))
		}
	}
	st.sets = setMessages(t)
	conn, err := nftables.New()
	if err != nil {
		t.Fatal(err)
	}
	table := &nftables.Table{Name: "kube-proxy", Family: nftables.TableFamilyIPv4}
	chains, err := conn.ListChainsOfTableFamily(nftables.TableFamilyIPv4)
	if err != nil {
		t.Fatal(err)
	}
	st.rules = map[string][]*nftables.Rule{}
	for _, c := range chains {
		rules, err := conn.GetRules(table, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			r.Table, r.Chain = nil, nil
		}
		st.rules[c.Name] = rules
	}
	if st.setObjects, err = conn.GetSets(table); err != nil {
		t.Fatal(err)
	}
	for _, s := range st.setObjects {
		s.Table = nil
	}
	return st
}

// setMessages dumps the sets of the family over netlink, every
// attribute with its bytes (userdata included).
func setMessages(t *testing.T) string {
	t.Helper()
	conn, err := netlink.Dial(unix.NETLINK_NETFILTER, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	msgs, err := conn.Execute(netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(unix.NFNL_SUBSYS_NFTABLES<<8 | unix.NFT_MSG_GETSET),
			Flags: netlink.Request | netlink.Dump},
		Data: []byte{unix.NFPROTO_IPV4, 0, 0, 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range msgs {
		attrs, err := netlink.UnmarshalAttributes(m.Data[4:])
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range attrs {
			fmt.Fprintf(&b, "%d:%x ", a.Type, a.Data)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// sortElementLines sorts each run of "element" lines of nft's bytecode
// dump: the kernel's hash sets return their elements in an order of
// their own (a random hash seed per set).
func sortElementLines(dump string) string {
	lines := strings.Split(strings.TrimSpace(dump), "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "element ") {
			j++
		}
		sort.Strings(lines[i:j])
		i = max(j, i+1)
	}
	return strings.Join(lines, "\n")
}

// TestNetlinkShapes writes each shape once with `nft -f` and once over
// netlink, each in a fresh network namespace on the same base table, and
// compares what the kernel then holds: nft's listing, nft's bytecode
// dump, and the rules and sets as netlink returns them.
func TestNetlinkShapes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for name, shape := range netlinkShapes {
		t.Run(name, func(t *testing.T) {
			var byNFT, byNetlink tableState
			for _, viaNetlink := range []bool{false, true} {
				inScratchNetns(t, func() error {
					n, err := New(IPv4Family, "kube-proxy")
					if err != nil {
						return err
					}
					ctx := context.Background()
					if err := n.Run(ctx, baseTransaction(n)); err != nil {
						return err
					}
					tx := n.NewTransaction()
					shape(tx)
					if viaNetlink {
						if err := runOverNetlink(n.(*realNFT), tx); err != nil {
							return err
						}
						byNetlink = readTableState(t)
					} else {
						if _, err := n.(*realNFT).run(ctx, bytes.NewBufferString(tx.String()), "-f", "-"); err != nil {
							return err
						}
						byNFT = readTableState(t)
					}
					return nil
				})
			}
			if byNFT.listing != byNetlink.listing {
				t.Errorf("nft list differs\nnft -f:\n%s\nnetlink:\n%s", byNFT.listing, byNetlink.listing)
			}
			if byNFT.bytecode != byNetlink.bytecode {
				t.Errorf("bytecode differs\nnft -f:\n%s\nnetlink:\n%s", byNFT.bytecode, byNetlink.bytecode)
			}
			if !reflect.DeepEqual(byNFT.rules, byNetlink.rules) {
				for c := range byNFT.rules {
					for i := range byNFT.rules[c] {
						if i >= len(byNetlink.rules[c]) || !reflect.DeepEqual(byNFT.rules[c][i], byNetlink.rules[c][i]) {
							t.Errorf("chain %s rule %d differs", c, i)
						}
					}
				}
				t.Errorf("rules differ")
			}
			if !reflect.DeepEqual(byNFT.setObjects, byNetlink.setObjects) {
				for i := range byNFT.setObjects {
					if i < len(byNetlink.setObjects) && !reflect.DeepEqual(byNFT.setObjects[i], byNetlink.setObjects[i]) {
						t.Errorf("set %d differs:\nnft -f:  %+v\nnetlink: %+v", i, byNFT.setObjects[i], byNetlink.setObjects[i])
					}
				}
				t.Errorf("sets differ")
			}
			if byNFT.sets != byNetlink.sets {
				t.Errorf("set messages differ\nnft -f:\n%s\nnetlink:\n%s", byNFT.sets, byNetlink.sets)
			}
		})
	}
}

// runOverNetlink runs tx over netlink, failing if it is not supported.
func runOverNetlink(n *realNFT, tx *Transaction) error {
	return sendBatch(func(conn *nftables.Conn) error { return netlinkBatch(conn, n.table, n.types, tx) })
}

// TestNetlinkUnsupported: what a partial sync may contain but netlink.go
// does not encode goes to `nft -f` whole.
func TestNetlinkUnsupported(t *testing.T) {
	types := setTypes{}
	base := NewTransaction(IPv4Family, "kube-proxy")
	base.Add(&Map{Name: "service-ips", Type: "ipv4_addr . inet_proto . inet_service : verdict"})
	types.record(base)
	for _, op := range []Object{
		&Table{},
		&Chain{Name: "filter-input", Type: ptr("filter"), Hook: ptr("input"), Priority: ptr("0")},
		&Chain{Name: "reject-chain", Comment: ptr("helper")},
		&Set{Name: "affinity-X", Type: "ipv4_addr", Flags: []string{"dynamic", "timeout"}},
		&Map{Name: "service-ips", Type: "ipv4_addr . inet_proto . inet_service : verdict"},
		&Rule{Chain: "endpoint-X", Rule: "update @affinity-X { ip saddr }"},
		&Rule{Chain: "service-X", Rule: "ip saddr @affinity-X goto endpoint-X"},
		&Rule{Chain: "firewall-X", Rule: "ip saddr != { 203.0.113.0/25 } drop"},
		&Rule{Chain: "mark-for-masquerade", Rule: "mark set mark or 0x4000"},
		&Rule{Chain: "x", Rule: "ip saddr 10.0.0.1/8 drop"},
		&Rule{Chain: "x", Rule: "ip saddr 0.0.0.0/0 drop"},
		&Rule{Chain: "x", Rule: "goto a drop"},
		&Rule{Chain: "x", Rule: "dnat to 10.0.0.1:80"},
		&Rule{Chain: "x", Rule: "numgen random mod 2 vmap { 0 : goto a , 2 : goto b }"},
		&Element{Set: "cluster-ips", Key: []string{"10.0.0.1"}},
		&Element{Map: "service-ips", Key: []string{"10.0.0.1", "tcp"}, Value: []string{"drop"}},
		&Element{Map: "service-ips", Key: []string{"10.0.0.1", "icmp", "80"}, Value: []string{"drop"}},
	} {
		tx := NewTransaction(IPv4Family, "kube-proxy")
		tx.Add(&Chain{Name: "service-X"})
		tx.Add(op)
		conn, err := nftables.New()
		if err != nil {
			t.Fatal(err)
		}
		if err := netlinkBatch(conn, "kube-proxy", types, tx); !errors.Is(err, errUnsupported) {
			t.Errorf("%s: got %v, want unsupported", strings.TrimSpace(tx.String()), err)
		}
	}
}

// FuzzEncodeRule: any rule text is encoded or refused, never a panic.
func FuzzEncodeRule(f *testing.F) {
	for _, r := range []string{
		"ip daddr 172.30.0.41 ip saddr != 10.0.0.0/8 jump mark-for-masquerade",
		"numgen random mod 2 vmap { 0 : goto a , 1 : goto b }",
		"meta l4proto tcp dnat to 10.180.0.1:80",
		"fib saddr type local goto x",
		"numgen random mod 2 vmap { 0 : goto a ,",
		"ip saddr",
	} {
		f.Add(r)
	}
	t := &nftables.Table{Name: "kube-proxy", Family: nftables.TableFamilyIPv4}
	f.Fuzz(func(tt *testing.T, rule string) {
		_, err := encodeRule(t, &Rule{Chain: "c", Rule: rule})
		if err != nil && !errors.Is(err, errUnsupported) {
			tt.Errorf("%q: %v is not an errUnsupported", rule, err)
		}
	})
}
