package kubik

import (
	"bytes"
	"fmt"
	"net/netip"
	"os/exec"
	"strings"
)

// TableName is the nftables table of the balancer's namespace.
const TableName = "kubik-lb"

// renderRuleset is the balancer's whole table, as `nft list ruleset`
// shows it in its namespace: one rule per balancer port, which picks a
// node at random for each new connection and translates the destination
// to that node's NodePort, and one rule that makes the balancer the
// source of what it translated, so that the node's answer comes back
// through it (which undoes both translations):
//
//	table ip kubik-lb {
//		chain prerouting {
//			type nat hook prerouting priority dstnat; policy accept;
//			ip daddr 10.240.8.200 tcp dport 80 dnat to numgen random mod 2 map { 0 : 10.240.8.11, 1 : 10.240.8.12 } : 31380 comment "default/web:http"
//		}
//		chain postrouting {
//			type nat hook postrouting priority srcnat; policy accept;
//			ct status dnat snat to 10.240.8.2
//		}
//	}
//
// The table is replaced in one transaction ("add" then "delete" makes the
// delete succeed when it did not exist); connections already translated
// keep their conntrack entries.
func renderRuleset(st *state, self netip.Addr, healthy func(lb, ip string) bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "add table ip %s\ndelete table ip %s\n", TableName, TableName)
	fmt.Fprintf(&b, "table ip %s {\n", TableName)
	b.WriteString("\tchain prerouting {\n\t\ttype nat hook prerouting priority dstnat; policy accept;\n")
	for _, name := range sortedKeys(st.LoadBalancers) {
		lb := st.LoadBalancers[name]
		for _, rule := range lbRules(lb, healthyBackends(lb, healthy)) {
			b.WriteString("\t\t" + rule + "\n")
		}
	}
	b.WriteString("\t}\n")
	b.WriteString("\tchain postrouting {\n\t\ttype nat hook postrouting priority srcnat; policy accept;\n")
	fmt.Fprintf(&b, "\t\tct status dnat snat to %s\n", self)
	b.WriteString("\t}\n}\n")
	return b.String()
}

// lbRules are a balancer's rules, one per port, to backends. A balancer
// without nodes has none: its address answers, but refuses connections.
func lbRules(lb *loadBalancerRecord, backends []backend) []string {
	if len(backends) == 0 {
		return nil
	}
	var match string
	if len(lb.SourceRanges) > 0 {
		match = "ip saddr { " + strings.Join(lb.SourceRanges, ", ") + " } "
	}
	var target string
	if len(backends) == 1 {
		target = backends[0].IP
	} else {
		var elems []string
		for i, be := range backends {
			elems = append(elems, fmt.Sprintf("%d : %s", i, be.IP))
		}
		target = fmt.Sprintf("numgen random mod %d map { %s }", len(backends), strings.Join(elems, ", "))
	}
	var rules []string
	for _, p := range lb.Ports {
		proto := strings.ToLower(string(p.Protocol))
		comment := nftComment(lb.Service + ":" + portLabel(p))
		rules = append(rules, fmt.Sprintf("%sip daddr %s %s dport %d dnat to %s : %d comment %q",
			match, lb.IP, proto, p.Port, target, p.NodePort, comment))
	}
	return rules
}

func portLabel(p lbPort) string {
	if p.Name != "" {
		return p.Name
	}
	return fmt.Sprint(p.Port)
}

// nftComment keeps the characters a Service's and a port's names can have.
func nftComment(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("./:-_", r) {
			return r
		}
		return '_'
	}, s)
}

// applyRuleset runs `nft -f -` in the namespace at nsPath.
func applyRuleset(nsPath, ruleset string) error {
	cmd := exec.Command("nsenter", "--net="+nsPath, "--", "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(ruleset)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("nft -f - in %s: %v: %s", nsPath, err, strings.TrimSpace(out.String()))
	}
	return nil
}
