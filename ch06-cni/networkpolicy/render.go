package networkpolicy

import (
	"fmt"
	"strings"
)

// TableName is the agent's nft table, in family inet.
const TableName = "kubik-network-policy"

// The base chains' priority: in the forward hook just before the filter
// tables of iptables and kube-proxy (priority filter = 0). A drop here is
// final; an accept only ends this table's verdict, so traffic this table
// accepts still meets the other tables' rules.
const (
	egressPriority  = "filter - 10"
	ingressPriority = "filter - 9"
)

// Render writes rs as the input of `nft -f`: one transaction that
// replaces the whole table (add and delete so that the delete never fails,
// then the new table), so the kernel switches from the old rules to the
// new ones at once.
func Render(rs *Ruleset) string {
	var b strings.Builder
	fmt.Fprintf(&b, "add table inet %s\n", TableName)
	fmt.Fprintf(&b, "delete table inet %s\n", TableName)
	fmt.Fprintf(&b, "table inet %s {\n", TableName)
	fmt.Fprintf(&b, "\tcomment \"NetworkPolicy, by kubik-node-agent\"\n")

	fmt.Fprintf(&b, "\tset node-ips {\n\t\ttype ipv4_addr\n\t\tcomment \"this node's addresses: always reach its pods\"\n")
	var ips []string
	for _, a := range rs.NodeIPs {
		ips = append(ips, a.String())
	}
	elements(&b, ips)
	b.WriteString("\t}\n")
	for _, s := range rs.Sets {
		fmt.Fprintf(&b, "\tset %s {\n\t\ttype ipv4_addr\n\t\tflags interval\n\t\tcomment %s\n", s.Name, setComment(s.Comment, s.Shared))
		var es []string
		for _, r := range s.Ranges {
			if r.From == r.To {
				es = append(es, r.From.String())
			} else {
				es = append(es, r.From.String()+"-"+r.To.String())
			}
		}
		elements(&b, es)
		b.WriteString("\t}\n")
	}
	for _, s := range rs.PortSets {
		fmt.Fprintf(&b, "\tset %s {\n\t\ttype ipv4_addr . inet_proto . inet_service\n\t\tcomment %s\n", s.Name, setComment(s.Comment, s.Shared))
		var es []string
		for _, e := range s.Elements {
			es = append(es, fmt.Sprintf("%s . %s . %d", e.IP, e.Protocol, e.Port))
		}
		elements(&b, es)
		b.WriteString("\t}\n")
	}

	for _, ch := range rs.Ingress {
		fmt.Fprintf(&b, "\tchain %s {\n", ch.Name)
		b.WriteString("\t\tip saddr @node-ips accept\n")
		podRules(&b, ch, "saddr")
		b.WriteString("\t}\n")
	}
	for _, ch := range rs.Egress {
		fmt.Fprintf(&b, "\tchain %s {\n", ch.Name)
		podRules(&b, ch, "daddr")
		b.WriteString("\t}\n")
	}

	baseChain(&b, "forward-egress", egressPriority, "saddr", rs.Egress)
	baseChain(&b, "forward-ingress", ingressPriority, "daddr", rs.Ingress)
	b.WriteString("}\n")
	return b.String()
}

// maxCommentLen is nft's limit on a comment, in bytes.
const maxCommentLen = 128

// nftComment quotes text as an nft comment, cut to nft's limit (names
// of Kubernetes objects can be longer). Object names have no quotes.
func nftComment(text string) string {
	if len(text) > maxCommentLen {
		text = text[:maxCommentLen-3] + "..."
	}
	return `"` + strings.ReplaceAll(text, `"`, "'") + `"`
}

func setComment(comment string, shared int) string {
	if shared > 0 {
		return nftComment(fmt.Sprintf("%s, shared with %d more rules", comment, shared))
	}
	return nftComment(comment)
}

func elements(b *strings.Builder, es []string) {
	if len(es) > 0 {
		fmt.Fprintf(b, "\t\telements = { %s }\n", strings.Join(es, ", "))
	}
}

// podRules writes a pod's accept rules, then the drop; peer is the
// address field of the other end (saddr for ingress).
func podRules(b *strings.Builder, ch *PodChain, peer string) {
	for _, r := range ch.Rules {
		var m []string
		if r.Peers != "" {
			m = append(m, fmt.Sprintf("ip %s @%s", peer, r.Peers))
		}
		switch {
		case r.PortSet != "":
			m = append(m, "ip daddr . meta l4proto . th dport @"+r.PortSet)
		case r.Protocol != "" && r.Port != 0 && r.EndPort != 0:
			m = append(m, fmt.Sprintf("%s dport %d-%d", r.Protocol, r.Port, r.EndPort))
		case r.Protocol != "" && r.Port != 0:
			m = append(m, fmt.Sprintf("%s dport %d", r.Protocol, r.Port))
		case r.Protocol != "":
			m = append(m, "meta l4proto "+r.Protocol)
		}
		m = append(m, "accept", "comment "+nftComment(r.Policy))
		fmt.Fprintf(b, "\t\t%s\n", strings.Join(m, " "))
	}
	fmt.Fprintf(b, "\t\tcounter drop comment %s\n", nftComment("isolated "+ch.Pod))
}

// baseChain writes a hook chain: replies pass, then each isolated pod's
// packets go to its chain (field is the pod's end: saddr for egress).
func baseChain(b *strings.Builder, name, priority, field string, chains []*PodChain) {
	fmt.Fprintf(b, "\tchain %s {\n\t\ttype filter hook forward priority %s; policy accept;\n", name, priority)
	b.WriteString("\t\tct state established,related accept\n")
	var es []string
	for _, ch := range chains {
		for _, ip := range ch.IPs {
			es = append(es, fmt.Sprintf("%s : jump %s", ip, ch.Name))
		}
	}
	if len(es) > 0 {
		fmt.Fprintf(b, "\t\tip %s vmap { %s }\n", field, strings.Join(es, ", "))
	}
	b.WriteString("\t}\n")
}
