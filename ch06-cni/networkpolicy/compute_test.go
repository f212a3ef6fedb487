package networkpolicy

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/networkingv1"
)

// TestModelTruthTables: the rules Compute makes give, on the model, the
// truth table the NetworkPolicy API specifies for each case.
func TestModelTruthTables(t *testing.T) {
	for _, c := range modelCases() {
		t.Run(c.name, func(t *testing.T) {
			rs := Compute(modelInput(c.policies...))
			got := truthTable{}
			for _, from := range modelPodList() {
				for _, to := range modelPodList() {
					for _, port := range modelPorts {
						got[probeKey(from, to, port)] = allows(rs, from.IP, to.IP, "tcp", port)
					}
				}
			}
			if d := expectTable(c.want).diff(got); d != "" {
				t.Fatalf("%s\n%s", d, Render(rs))
			}
		})
	}
}

// TestOnlyThisNodesPodsAreTargets: policies are enforced for the pods of
// the node the rules are for; pods elsewhere are peers only. Host-network
// pods are neither; a pod without an address yet is no peer.
func TestOnlyThisNodesPodsAreTargets(t *testing.T) {
	in := modelInput(policy("x", "deny-all", all, ingress, egress))
	for _, p := range in.Pods {
		if p.Name == "b" {
			p.Spec.NodeName = "node-2"
		}
		if p.Namespace == "x" && p.Name == "c" {
			p.Spec.HostNetwork = true
		}
	}
	in.Pods[0].Status.PodIP, in.Pods[0].Status.PodIPs = "", nil // x/a: pending
	rs := Compute(in)
	var pods []string
	for _, ch := range rs.Ingress {
		pods = append(pods, ch.Pod)
	}
	if len(pods) != 0 {
		t.Fatalf("isolated pods on node-1: %v, want none (x/a has no address, x/b is on node-2, x/c is host-network)", pods)
	}

	in = modelInput(withIngress(policy("x", "from-b", all, ingress), ingressRule(nil, networkingv1.NetworkPolicyPeer{
		PodSelector: labels("pod", "b"), NamespaceSelector: labels()})))
	for _, p := range in.Pods {
		if p.Name == "b" {
			p.Spec.NodeName = "node-2"
		}
	}
	rs = Compute(in)
	if len(rs.Ingress) != 2 || rs.Ingress[0].Pod != "x/a" || rs.Ingress[1].Pod != "x/c" {
		t.Fatalf("isolated pods: %+v, want x/a and x/c", rs.Ingress)
	}
	if len(rs.Sets) != 1 || !slices.Equal(rs.Sets[0].Ranges, []ipRange{
		r("10.244.1.11", "10.244.1.11"), r("10.244.1.14", "10.244.1.14"), r("10.244.1.17", "10.244.1.17")}) {
		t.Fatalf("peer set: %+v, want the three b pods of node-2", rs.Sets)
	}
}

func r(from, to string) ipRange { return ipRange{netip.MustParseAddr(from), netip.MustParseAddr(to)} }

// TestIPBlockRanges: cidr minus except, merged, as an nft interval set
// holds them.
func TestIPBlockRanges(t *testing.T) {
	for _, c := range []struct {
		cidr   string
		except []string
		want   []ipRange
	}{
		{"10.0.0.0/24", nil, []ipRange{r("10.0.0.0", "10.0.0.255")}},
		{"10.0.0.0/24", []string{"10.0.0.0/25"}, []ipRange{r("10.0.0.128", "10.0.0.255")}},
		{"10.0.0.0/24", []string{"10.0.0.64/26", "10.0.0.7/32"},
			[]ipRange{r("10.0.0.0", "10.0.0.6"), r("10.0.0.8", "10.0.0.63"), r("10.0.0.128", "10.0.0.255")}},
		{"0.0.0.0/0", []string{"10.0.0.0/8"}, []ipRange{r("0.0.0.0", "9.255.255.255"), r("11.0.0.0", "255.255.255.255")}},
		{"10.0.0.0/24", []string{"10.0.0.0/16"}, nil},
		{"10.0.0.5/24", nil, []ipRange{r("10.0.0.0", "10.0.0.255")}}, // not masked
		{"fd00::/64", nil, nil},                                      // IPv6: not on this cluster
		{"garbage", nil, nil},
	} {
		if got := ipBlockRanges(c.cidr, c.except); !slices.Equal(got, c.want) {
			t.Errorf("ipBlockRanges(%s, %v) = %v, want %v", c.cidr, c.except, got, c.want)
		}
	}
	got := mergeRanges([]ipRange{r("10.0.0.5", "10.0.0.9"), r("10.0.0.1", "10.0.0.4"), r("10.0.0.7", "10.0.0.20"), r("10.0.1.0", "10.0.1.0")})
	if want := []ipRange{r("10.0.0.1", "10.0.0.20"), r("10.0.1.0", "10.0.1.0")}; !slices.Equal(got, want) {
		t.Errorf("mergeRanges = %v, want %v", got, want)
	}
}

// TestRender: the table one policy gives, as nft reads it.
func TestRender(t *testing.T) {
	in := modelInput(withIngress(policy("x", "allow-y-80", podA, ingress), ingressRule(ports(tcp(80)), nsPeer("y"))))
	got := Render(Compute(in))
	for _, want := range []string{
		"add table inet kubik-network-policy\ndelete table inet kubik-network-policy\ntable inet kubik-network-policy {\n",
		"\tset np/x/allow-y-80/ingress/0 {\n\t\ttype ipv4_addr\n\t\tflags interval\n\t\tcomment \"x/allow-y-80 ingress[0]\"\n\t\telements = { 10.244.1.13-10.244.1.15 }\n",
		"\tchain ingress/x/a {\n\t\tip saddr @node-ips accept\n\t\tip saddr @np/x/allow-y-80/ingress/0 tcp dport 80 accept comment \"x/allow-y-80\"\n\t\tcounter drop comment \"isolated x/a\"\n\t}\n",
		"\tchain forward-ingress {\n\t\ttype filter hook forward priority filter - 9; policy accept;\n\t\tct state established,related accept\n\t\tip daddr vmap { 10.244.1.10 : jump ingress/x/a }\n\t}\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Render lacks\n%s\nin\n%s", want, got)
		}
	}
}

// TestPolicyTypesDefaulting: Ingress always, Egress only with egress rules.
func TestPolicyTypesDefaulting(t *testing.T) {
	for _, c := range []struct {
		p            *networkingv1.NetworkPolicy
		wantI, wantE bool
	}{
		{policy("x", "p", all), true, false},
		{withEgress(policy("x", "p", all), egressRule(nil)), true, true},
		{policy("x", "p", all, egress), false, true},
		{withIngress(policy("x", "p", all, egress), ingressRule(nil)), false, true},
	} {
		if i, e := policyTypes(&c.p.Spec); i != c.wantI || e != c.wantE {
			t.Errorf("policyTypes(%+v) = %v, %v, want %v, %v", c.p.Spec, i, e, c.wantI, c.wantE)
		}
	}
}

// TestRulesWithTheSamePeersShareASet: one set per distinct address list,
// named after its first rule.
func TestRulesWithTheSamePeersShareASet(t *testing.T) {
	rs := Compute(modelInput(
		withIngress(policy("x", "p1", podA, ingress), ingressRule(ports(tcp(80)), nsPeer("y"))),
		withIngress(policy("x", "p2", all, ingress), ingressRule(ports(tcp(81)), nsPeer("y")), ingressRule(nil, nsPeer("z"))),
	))
	var names []string
	for _, s := range rs.Sets {
		names = append(names, fmt.Sprintf("%s+%d", s.Name, s.Shared))
	}
	if want := []string{"np/x/p1/ingress/0+1", "np/x/p2/ingress/1+0"}; !slices.Equal(names, want) {
		t.Fatalf("sets %v, want %v", names, want)
	}
	if got := Render(rs); !strings.Contains(got, `comment "x/p1 ingress[0], shared with 1 more rules"`) ||
		!strings.Contains(got, `ip saddr @np/x/p1/ingress/0 tcp dport 81 accept comment "x/p2"`) {
		t.Fatalf("Render:\n%s", got)
	}
}
