package nodeagent

import (
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strings"

	"github.com/coreos/go-iptables/iptables"
)

// The agent's iptables chains, flannel's FLANNEL-POSTRTG and FLANNEL-FWD.
const (
	postroutingChain = "KUBIK-POSTRTG"
	forwardChain     = "KUBIK-FWD"

	// kubeProxyMasqMark is the mark kube-proxy puts on packets it will
	// masquerade itself (KUBE-MARK-MASQ); they are left to it, so nothing
	// is NATed twice.
	kubeProxyMasqMark = "0x4000/0x4000"
)

// chainRules is one chain of our own and the rule in a built-in chain that
// jumps to it.
type chainRules struct {
	Table, Chain string
	From         string   // the built-in chain: POSTROUTING, FORWARD
	Jump         []string // the jump rule in From
	Rules        [][]string
}

func comment(text string) []string { return []string{"-m", "comment", "--comment", text} }

// masqRules are flannel's masquerade rules (pkg/trafficmngr/iptables,
// masqRules) for cluster CIDR cluster and this node's subnet: only traffic
// from pods that leaves the pod network gets the node's address.
//
//	-A POSTROUTING -j KUBIK-POSTRTG
//	-A KUBIK-POSTRTG -m mark --mark 0x4000/0x4000 -j RETURN
//	-A KUBIK-POSTRTG -s 10.244.0.0/16 -d 10.244.0.0/16 -j RETURN
//	-A KUBIK-POSTRTG -s 10.244.0.0/16 ! -d 224.0.0.0/4 -j MASQUERADE --random-fully
//	-A KUBIK-POSTRTG ! -s 10.244.0.0/16 -d 10.244.1.0/24 -j RETURN
//	-A KUBIK-POSTRTG ! -s 10.244.0.0/16 -d 10.244.0.0/16 -j MASQUERADE --random-fully
func masqRules(cluster, subnet netip.Prefix, randomFully bool) chainRules {
	c, s := cluster.String(), subnet.String()
	masq := []string{"-j", "MASQUERADE"}
	if randomFully {
		masq = append(masq, "--random-fully")
	}
	rule := func(parts ...[]string) []string { return slices.Concat(parts...) }
	return chainRules{
		Table: "nat", Chain: postroutingChain, From: "POSTROUTING",
		Jump: rule(comment("kubik-node-agent masq"), []string{"-j", postroutingChain}),
		Rules: [][]string{
			rule([]string{"-m", "mark", "--mark", kubeProxyMasqMark},
				comment("kube-proxy masquerades what it marked"), []string{"-j", "RETURN"}),
			rule([]string{"-s", c, "-d", c},
				comment("pod to pod keeps its source address"), []string{"-j", "RETURN"}),
			rule([]string{"-s", c, "!", "-d", "224.0.0.0/4"},
				comment("pod to outside the pod network, not multicast"), masq),
			rule([]string{"!", "-s", c, "-d", s},
				comment("the return path to the pods of this node"), []string{"-j", "RETURN"}),
			rule([]string{"!", "-s", c, "-d", c},
				comment("host to remote pods"), masq),
		},
	}
}

// forwardRules are flannel's forward rules: the node forwards the pod
// network's traffic even when the FORWARD chain's policy is DROP.
func forwardRules(cluster netip.Prefix) chainRules {
	c := cluster.String()
	return chainRules{
		Table: "filter", Chain: forwardChain, From: "FORWARD",
		Jump: slices.Concat(comment("kubik-node-agent forward"), []string{"-j", forwardChain}),
		Rules: [][]string{
			slices.Concat([]string{"-s", c}, comment("kubik-node-agent forward"), []string{"-j", "ACCEPT"}),
			slices.Concat([]string{"-d", c}, comment("kubik-node-agent forward"), []string{"-j", "ACCEPT"}),
		},
	}
}

// saveLines is the chain as `iptables -S <chain>` prints it: -N, then -A
// lines. The rules above are written in the order iptables prints their
// parts, so comparing the listing with these lines finds any change.
func (cr chainRules) saveLines() []string {
	lines := []string{"-N " + cr.Chain}
	for _, r := range cr.Rules {
		lines = append(lines, "-A "+cr.Chain+" "+saveQuote(r))
	}
	return lines
}

// saveQuote joins a rule the way iptables-save prints it: a word with
// characters other than letters, digits, '-', '_' (and the '.', '/' and
// '!' of addresses and negations) in double quotes, with ", ' and \
// escaped.
func saveQuote(rule []string) string {
	words := make([]string, len(rule))
	for i, w := range rule {
		plain := w != "" && strings.IndexFunc(w, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' ||
				r == '.' || r == '/' || r == '!')
		}) < 0
		if plain {
			words[i] = w
		} else {
			words[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, `'`, `\'`).Replace(w) + `"`
		}
	}
	return strings.Join(words, " ")
}

// ensureChain makes the chain hold exactly cr.Rules, in order, and the
// built-in chain jump to it. It rewrites the chain only when its listing
// differs, so a resync or a restarted agent with the rules in place changes
// nothing. Flannel checks its rules the same way every --iptables-resync
// seconds and restores them if any is missing.
func ensureChain(ipt *iptables.IPTables, cr chainRules, log *slog.Logger) error {
	exists, err := ipt.ChainExists(cr.Table, cr.Chain)
	if err != nil {
		return err
	}
	var current []string
	if exists {
		if current, err = ipt.List(cr.Table, cr.Chain); err != nil {
			return err
		}
	}
	if want := cr.saveLines(); !slices.Equal(current, want) {
		// ClearChain creates the chain or flushes it.
		if err := ipt.ClearChain(cr.Table, cr.Chain); err != nil {
			return err
		}
		for _, r := range cr.Rules {
			if err := ipt.Append(cr.Table, cr.Chain, r...); err != nil {
				return fmt.Errorf("iptables -t %s -A %s %s: %w", cr.Table, cr.Chain, strings.Join(r, " "), err)
			}
		}
		log.Info("iptables chain written", "table", cr.Table, "chain", cr.Chain, "rules", len(cr.Rules), "had", max(len(current)-1, 0))
	}
	ok, err := ipt.Exists(cr.Table, cr.From, cr.Jump...)
	if err != nil {
		return err
	}
	if !ok {
		if err := ipt.Append(cr.Table, cr.From, cr.Jump...); err != nil {
			return err
		}
		log.Info("iptables jump added", "table", cr.Table, "chain", cr.From, "to", cr.Chain)
	}
	return nil
}
