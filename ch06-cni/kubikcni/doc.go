// Package kubikcni is kubik-cni, chapter 6's CNI plugin: it connects a pod's
// network namespace to the node's bridge and gives it an address from the
// node's subnet. It corresponds to upstream's reference bridge plugin
// (containernetworking/plugins, plugins/main/bridge) with host-local IPAM
// built in (package kubik/ch06-cni/ipam), reduced to what a Kubernetes pod
// network needs: one IPv4 subnet per node, a default route via the bridge.
//
// Who runs it: since the dockershim removal in Kubernetes 1.24 the kubelet
// never execs CNI plugins itself. The kubelet asks the container runtime for a
// pod sandbox over the CRI (RunPodSandbox); containerd's CRI plugin creates
// the pod's network namespace and, through libcni, execs every plugin of the
// network configuration list it found in its conf_dir, looking the binary up
// by the config's "type" in its bin_dir. The plugin runs in containerd's own
// network namespace (here: the node's), receives the operation in environment
// variables (CNI_COMMAND=ADD|DEL|CHECK|GC|STATUS|VERSION, CNI_CONTAINERID,
// CNI_NETNS=/path/to/the/pod/netns, CNI_IFNAME=eth0, CNI_PATH, CNI_ARGS) and
// the plugin's entry of the conflist on stdin, with "name" and "cniVersion"
// of the list (and "prevResult" for CHECK and DEL) injected. It prints a
// result (ADD) or an error, both JSON, on stdout and exits; see CNI SPEC.md.
//
// What ADD does (compare cmdAdd of the bridge plugin):
//
//   - read the node's subnet from the file the node agent writes
//     (ReadSubnetFile; flannel's subnet.env idea);
//   - make sure the bridge (kubik0) exists, is up and carries the gateway,
//     the subnet's first address; enable net.ipv4.ip_forward and
//     net.bridge.bridge-nf-call-iptables in the node's namespace;
//   - reserve an address (package ipam);
//   - create a veth pair: CNI_IFNAME inside the pod's namespace with the
//     address and a default route via the gateway, the other end on the
//     bridge with hairpin mode (a pod reaching itself through a Service);
//   - print the result converted to the config's cniVersion.
//
// Masquerading traffic that leaves the cluster is the node agent's job, not
// the plugin's: pod-to-pod traffic keeps its source addresses.
package kubikcni
