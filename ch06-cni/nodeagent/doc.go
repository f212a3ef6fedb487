// Package nodeagent is kubik-node-agent, chapter 6's per-node network
// daemon: the part of flannel (flanneld with --kube-subnet-mgr) that makes
// the pods of one node reachable from every other node. It corresponds to
// flannel-io/flannel's pkg/subnet/kube (the Kubernetes subnet manager),
// pkg/backend/hostgw and pkg/backend/vxlan (the two backends) and
// pkg/trafficmngr/iptables (masquerade and forward rules).
//
// Kubernetes itself does not connect nodes' pod networks: the controller
// manager's node-ipam controller only gives every Node a slice of the
// cluster's pod network (--cluster-cidr, 10.244.0.0/16) in spec.podCIDR,
// and the CNI plugin gives pods addresses from it. Making 10.244.2.7 on
// node-2 reachable from a pod on node-1 is the job of a network add-on; this
// is ours. One agent runs on every node, inside the node's network
// namespace, and talks only to the apiserver, with an identity of its own
// (Identity, RBAC).
//
// What Run does, in order:
//
//  1. watches all Nodes (an informer) and waits until its own Node has a
//     spec.podCIDR;
//  2. writes the subnet file the CNI plugin reads on every ADD
//     (kubik/ch06-cni/kubikcni.WriteSubnetFile; flannel's subnet.env): the
//     cluster network, the node's subnet and the pods' MTU;
//  3. sets up the backend: nothing for host-gw; for VXLAN the device
//     kubik.1 (flannel.1 in flannel);
//  4. installs the masquerade rules (nat KUBIK-POSTRTG) and the forward
//     rules (filter KUBIK-FWD);
//  5. publishes the node's annotations (kubik.io/backend-type,
//     kubik.io/backend-data, kubik.io/public-ip,
//     kubik.io/kube-subnet-manager) with a PATCH of nodes/status, so that
//     the other nodes' agents learn how to reach this one;
//  6. programs the routes to every other node (and for VXLAN their
//     neighbour and FDB entries);
//  7. starts the NetworkPolicy enforcement (kubik/ch06-cni/networkpolicy:
//     Calico's Felix in a Calico cluster), which keeps the nft table
//     "inet kubik-network-policy" in step with the Pods, Namespaces and
//     NetworkPolicies;
//  8. writes the CNI network configuration list: only now does containerd
//     report its network ready and the kubelet start pods here.
//
// Then it keeps the kernel in step with the Nodes: on every Node event and
// every resync period (30 s) it computes the wanted routes (plan.go) and
// reconciles the kernel's tables with them, replacing what differs and
// removing what no Node wants any more, one log line per change. Everything
// is idempotent, so a restarted agent finds its earlier work in place and
// only repairs what is missing or stale; nothing is removed when the agent
// stops, so pods keep talking while it restarts.
//
// All netlink and iptables calls act on the network namespace of the
// process: run the agent inside the node's namespace.
package nodeagent
