// Package kubik is the cloud provider of Kubik's own "cloud": the node
// network of chapter 6's fabric (a bridge on the host, each node a network
// namespace "machine" on it) seen as a cloud's VPC. --cloud-provider=kubik
// selects it, --cloud-config points at its configuration (Config).
//
// # The load balancer
//
// A cloud's network balancer (GCE's, AWS's classic one) is a device of its
// own in front of the nodes: it owns the Service's external address and
// forwards each port to the Service's NodePort on the nodes, where
// kube-proxy takes over. Kubik's is the same, made of a network namespace
// of its own — the balancer — plugged into the fabric's bridge with a veth
// pair, like one more machine:
//
//	host:  kbr<id> 10.240.8.1/24 ─┬─ node-1  eth0 10.240.8.11   kube-proxy: NodePort 31380 → pods
//	                              ├─ node-2  eth0 10.240.8.12   kube-proxy: NodePort 31380 → pods
//	                              └─ klb<…> ⇄ [netns …-balancer] eth0 10.240.8.2/24
//	                                                              + 10.240.8.200/32 (default/web)
//	                                   nftables: 10.240.8.200:80 → numgen random → node-1|node-2 :31380
//	                                             source → 10.240.8.2 (replies come back through it)
//
// The Service controller hands a Service and the nodes to
// EnsureLoadBalancer; the provider takes an address from loadBalancer.ipPool
// (10.240.8.200-10.240.8.250), adds it to the balancer's eth0 as a /32 (so
// it answers ARP for it on the bridge) and writes one nftables rule per
// port. `curl http://10.240.8.200` from the host reaches it: the pool lies
// inside the node network, which the bridge's own route covers (more
// specific than the fabric's guard route "unreachable 10.240.0.0/16").
// When the nodes change (UpdateLoadBalancer) only the rule's map of node
// addresses does.
//
// Why this and not the simpler way MetalLB's L2 mode works (the address
// added on one of the nodes, kube-proxy's LoadBalancer rules doing the
// rest): the balancer is then a part of the cloud, outside the cluster, as
// on a real cloud; the node list the service controller passes means
// something (a node deleted from the cluster stops getting traffic); the
// provider never writes inside a machine; and the whole of it is readable
// in one place:
//
//	ip netns exec kubik-<id>-balancer nft list ruleset
//	ip netns exec kubik-<id>-balancer ip addr
//
// Like a cloud's, it checks the nodes (every 5 s, GET /healthz on
// kube-proxy's port 10256, or on the Service's healthCheckNodePort for
// externalTrafficPolicy: Local) and sends new connections only to those
// that pass. What it does not keep is the client's address: the nodes see
// the balancer's.
//
// # The routes
//
// The balancer's namespace is also the VPC's router: the route controller's
// routes ("10.244.1.0/24 via 10.240.8.11", proto 75) go into its table,
// and it forwards. A machine whose only route to the pod range is
// "10.244.0.0/16 via 10.240.8.2" has its pods reach every other node's pods
// through it, with no route per peer — the cloud-routes alternative to the
// node agent's host-gw backend. The two never fight: each writes a
// different table (the agent the machines', the provider the balancer's),
// and when both run, the agent's per-node routes on a machine are more
// specific than a route to the balancer, so traffic takes the direct path
// and the balancer's routes are only used by the balancer itself (and by
// whatever is pointed at it).
//
// # The machines
//
// A node's machine is the namespace /run/netns/<instances.netnsPrefix><node>.
// It exists while the namespace does; it is shut down when the namespace
// is there with no process in it. Its provider ID is kubik://<node>, its
// InternalIP the address of its eth0.
//
// # The cloud's records
//
// What a cloud keeps in its database — which Service has which address,
// which route goes where — is a JSON file (balancer.stateFile, by default
// /run/kubik-cloud/<netns>.json), changed under a file lock. The namespace
// is programmed from it after each change and every 30 s, so one removed by
// hand, or by a cluster's cleanup, comes back with the same addresses.
// Teardown removes both.
//
// Upstream: a cloud provider lives in its own repository
// (kubernetes/cloud-provider-gcp, cloud-provider-aws, and
// kubernetes-sigs/cloud-provider-kind, which does the same for kind's
// containers with an Envoy container per balancer).
package kubik
