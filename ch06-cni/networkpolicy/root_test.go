package networkpolicy

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/containernetworking/plugins/pkg/testutils"
	"github.com/vishvananda/netlink"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
)

// kernelModel is the model in network namespaces: a "node" with the bridge
// br0 (10.244.1.1/24, the node's address) and one namespace per pod on it,
// each listening on TCP 80 and 81, as kubik-cni wires pods.
type kernelModel struct {
	node ns.NetNS
	pods map[string]ns.NetNS // by namespace/name
}

func newTestNS(t testing.TB) ns.NetNS {
	t.Helper()
	n, err := testutils.NewNS()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.Close()
		if err := testutils.UnmountNS(n); err != nil {
			t.Errorf("removing netns %s: %v", n.Path(), err)
		}
	})
	return n
}

func newKernelModel(t *testing.T) *kernelModel {
	m := &kernelModel{node: newTestNS(t), pods: map[string]ns.NetNS{}}
	err := m.node.Do(func(ns.NetNS) error {
		if err := os.WriteFile("/proc/sys/net/bridge/bridge-nf-call-iptables", []byte("1"), 0o644); err != nil {
			return err
		}
		br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: "br0"}}
		if err := netlink.LinkAdd(br); err != nil {
			return err
		}
		if err := netlink.AddrAdd(br, mustAddr("10.244.1.1/24")); err != nil {
			return err
		}
		return netlink.LinkSetUp(br)
	})
	if err != nil {
		t.Fatalf("node namespace: %v", err)
	}
	for i, p := range modelPodList() {
		pns := newTestNS(t)
		m.pods[p.key()] = pns
		err := m.node.Do(func(ns.NetNS) error {
			veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: fmt.Sprintf("veth%d", i), MasterIndex: bridgeIndex()},
				PeerName: "eth0", PeerNamespace: netlink.NsFd(int(pns.Fd()))}
			if err := netlink.LinkAdd(veth); err != nil {
				return err
			}
			return netlink.LinkSetUp(veth)
		})
		if err == nil {
			err = pns.Do(func(ns.NetNS) error {
				for _, name := range []string{"lo", "eth0"} {
					l, err := netlink.LinkByName(name)
					if err != nil {
						return err
					}
					if err := netlink.LinkSetUp(l); err != nil {
						return err
					}
				}
				eth0, _ := netlink.LinkByName("eth0")
				if err := netlink.AddrAdd(eth0, mustAddr(p.IP.String()+"/24")); err != nil {
					return err
				}
				for _, port := range modelPorts {
					l, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
					if err != nil {
						return err
					}
					t.Cleanup(func() { l.Close() })
					go func() {
						for {
							c, err := l.Accept()
							if err != nil {
								return
							}
							c.Close()
						}
					}()
				}
				return nil
			})
		}
		if err != nil {
			t.Fatalf("pod %s: %v", p.key(), err)
		}
	}
	return m
}

func bridgeIndex() int {
	l, err := netlink.LinkByName("br0")
	if err != nil {
		return 0
	}
	return l.Attrs().Index
}

func mustAddr(s string) *netlink.Addr {
	a, err := netlink.ParseAddr(s)
	if err != nil {
		panic(err)
	}
	return a
}

// dial reports whether a TCP connection from namespace n to addr opens
// within a second (a dropped SYN never answers).
func dial(n ns.NetNS, addr netip.AddrPort) bool {
	ok := false
	_ = n.Do(func(ns.NetNS) error {
		c, err := net.DialTimeout("tcp", addr.String(), time.Second)
		if err == nil {
			c.Close()
			ok = true
		}
		return nil
	})
	return ok
}

// probe runs every probe of the model at once.
func (m *kernelModel) probe() truthTable {
	got := truthTable{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, from := range modelPodList() {
		for _, to := range modelPodList() {
			for _, port := range modelPorts {
				wg.Go(func() {
					ok := dial(m.pods[from.key()], netip.AddrPortFrom(to.IP, uint16(port)))
					mu.Lock()
					got[probeKey(from, to, port)] = ok
					mu.Unlock()
				})
			}
		}
	}
	wg.Wait()
	return got
}

// TestKernelEnforcesModel loads each case's table into a node namespace
// with nft and probes the full truth table with real connections through
// the bridge (br_netfilter sends bridged packets through the forward
// hook). The node itself reaches every pod under every case.
func TestKernelEnforcesModel(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: network namespaces and nft")
	}
	m := newKernelModel(t)
	for _, c := range modelCases() {
		t.Run(c.name, func(t *testing.T) {
			script := Render(Compute(modelInput(c.policies...)))
			if err := m.node.Do(func(ns.NetNS) error { return Apply(context.Background(), script) }); err != nil {
				t.Fatalf("%v\n%s", err, script)
			}
			want := expectTable(c.want)
			if d := want.diff(m.probe()); d != "" {
				t.Fatalf("%s\n%s", d, script)
			}
			for _, to := range modelPodList() {
				if !dial(m.node, netip.AddrPortFrom(to.IP, 80)) {
					t.Errorf("the node cannot reach %s:80", to.key())
				}
			}
		})
	}
}

// TestLongNamesLoad: names of Kubernetes objects can be longer than nft's
// limits on comments (128 bytes); the table still loads.
func TestLongNamesLoad(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: a network namespace and nft")
	}
	long := strings.Repeat("n", 63)
	in := modelInput()
	for _, p := range in.Pods {
		p.Namespace, p.Name = long, p.Namespace+p.Name+strings.Repeat("p", 250)
	}
	in.Namespaces = append(in.Namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: long, Labels: map[string]string{"ns": "long"}}})
	in.Policies = []*networkingv1.NetworkPolicy{withEgress(withIngress(policy(long, strings.Repeat("q", 253), all, ingress, egress),
		ingressRule(ports(namedTCP("serve-80-tcp")), nsPeer("long"))), egressRule(ports(namedTCP("serve-81-tcp")), nsPeer("long")))}
	rs := Compute(in)
	if len(rs.Ingress) != 9 || len(rs.Egress) != 9 {
		t.Fatalf("isolated pods: %d ingress, %d egress, want 9 and 9", len(rs.Ingress), len(rs.Egress))
	}
	node := newTestNS(t)
	script := Render(rs)
	if err := node.Do(func(ns.NetNS) error { return Apply(context.Background(), script) }); err != nil {
		t.Fatalf("%v\n%s", err, script)
	}
}
