// Package util holds the helpers both proxiers use: IP family sorting of a
// Service's addresses, the node-port address filter (--nodeport-addresses),
// the local-traffic detector (--cluster-cidr), and the line buffer the
// iptables proxier builds its iptables-restore input in.
//
// Upstream: k8s.io/kubernetes/pkg/proxy/util.
package util
