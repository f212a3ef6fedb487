package proxytest

import (
	"sort"
	"strings"
)

// nftObjectOrder sorts object types (higher first), as upstream's helper.
var nftObjectOrder = map[string]int{"table": 10, "chain": 9, "rule": 8, "set": 7, "map": 6, "element": 5}

// SortNFTablesTransaction drops blank and comment lines and sorts the rest
// by object type, then object name; rules of one chain keep their order.
// Upstream: sortNFTablesTransaction in pkg/proxy/nftables/helpers_test.go.
func SortNFTablesTransaction(tx string) string {
	var lines []string
	for _, l := range strings.Split(tx, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && l[0] != '#' {
			lines = append(lines, l)
		}
	}
	sort.SliceStable(lines, func(i, j int) bool {
		wi, wj := strings.Split(lines[i], " "), strings.Split(lines[j], " ")
		if len(wi) < 5 || len(wj) < 5 {
			return false
		}
		if wi[1] != wj[1] {
			return nftObjectOrder[wi[1]] >= nftObjectOrder[wj[1]]
		}
		if wi[4] != wj[4] {
			return wi[4] < wj[4]
		}
		if wi[1] == "rule" {
			return false
		}
		return lines[i] < lines[j]
	})
	return strings.Join(lines, "\n")
}
