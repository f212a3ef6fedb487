// Package networkpolicy enforces networking.k8s.io/v1 NetworkPolicy on one
// node with nftables. It is the part of a network add-on that Calico's
// Felix, Cilium's agent or kubernetes-sigs/kube-network-policies are: the
// apiserver only stores NetworkPolicies, kube-proxy never reads them, and a
// cluster whose network add-on does not enforce them silently ignores them.
//
// The node agent (kubik/ch06-cni/nodeagent) runs Run in its node's network
// namespace. Run watches Pods, Namespaces and NetworkPolicies; every change
// (at most once per MinSyncPeriod) and every resync period it computes the
// rules for the pods on this node (Compute, compute.go) and replaces the
// table "inet kubik-network-policy" in one nft transaction (Render,
// render.go; Apply, nft.go):
//
//   - chain forward-egress (hook forward): connections a pod of this node
//     opens are checked against the egress policies that select it;
//   - chain forward-ingress (hook forward, after it): connections to a pod
//     of this node are checked against the ingress policies that select it;
//   - one chain per selected pod and direction (ingress/<ns>/<pod>,
//     egress/<ns>/<pod>): accept what one of its policies allows, drop the
//     rest;
//   - one set of addresses per policy rule's peers (np/<ns>/<policy>/
//     ingress/<i>, peers.go): the pods its podSelector and
//     namespaceSelector select and its ipBlocks minus their excepts
//     (ranges.go), so a port of a rule is one nft rule however many pods
//     it names; rules with the same addresses share one set.
//
// Semantics are the API's: a pod no policy of a type selects is not
// isolated in that direction; a selected pod accepts only the union of its
// policies' rules; replies of an allowed connection (ct state established,
// related) pass; the node's own addresses always reach its pods (kubelet
// probes). Ingress is enforced on the destination pod's node, egress on the
// source pod's node, so a connection between two nodes passes both checks.
// Host-network pods are never selected (their address is the node's) and
// are no peers. Only IPv4 is handled: the cluster is IPv4-only.
package networkpolicy
